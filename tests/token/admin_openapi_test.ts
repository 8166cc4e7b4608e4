/**
 * docs/token-service.md § OpenAPI documents: the admin API's own OpenAPI document (`GET
 * /admin/v1/openapi.json`, behind the admin credential; `openapi --service admin`) covers every
 * admin route of the real service and nothing else, and real answers of the admin API — successes
 * and errors — match it; every answer carries `X-Request-Id` and every error body repeats it as
 * `requestId`.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { buildAdminOpenApi } from "../../src/token/admin/mod.ts";
import { createSigningKeyCipher } from "../../src/token/issuance/key_cipher.ts";
import { createTokenService } from "../../src/token/service.ts";
import { sqliteTokenStore } from "../../src/token/store/mod.ts";
import { VERSION } from "../../src/version.ts";
import { runInProcess } from "../cli/_run.ts";
import { responseValidator } from "../_helpers/openapi_validate.ts";
import { ADMIN_TOKEN, TEST_ISSUER, tokenEnv } from "../_helpers/token_env.ts";

const EIK = "121212121";

/** `METHOD /path/{param}` of every operation of a document. */
function operations(doc: Record<string, unknown>): Set<string> {
  return new Set(
    Object.entries(doc.paths as Record<string, object>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`)
    ),
  );
}

/** One call: method, the path template of the document, the real path, body (or raw text),
 * headers, and the status it must answer. */
type Call = [string, string, string, unknown, Record<string, string>?, number?];

Deno.test("[token] the admin OpenAPI document lists every admin route, and real answers match it", async () => {
  const env = await tokenEnv();
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
  const served = await env.app.request("/admin/v1/openapi.json", { headers: auth });
  equal(served.status, 200);
  const doc = await served.json();
  deepStrictEqual(doc, buildAdminOpenApi(VERSION), "served = built");

  const documented = operations(doc);
  const routes = new Set(
    env.app.routes
      .filter((r) => r.method !== "ALL" && r.path.startsWith("/admin/v1/"))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
  );
  deepStrictEqual([...routes].filter((r) => !documented.has(r)), [], "undocumented");
  deepStrictEqual([...documented].filter((r) => !routes.has(r)), [], "documented, not served");
  for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, object>>)) {
    ok(p.startsWith("/admin/v1/"), p);
    for (const op of Object.values(item)) ok(!("security" in op), `${p}: the document's security`);
  }
  deepStrictEqual(doc.security, [{ AdminToken: [] }]);

  const validate = responseValidator(doc);
  const answered = new Set<string>();
  const call = async (...[method, template, path, body, headers, status]: Call) => {
    const res = await env.app.request(`/admin/v1${path}`, {
      method,
      headers: { ...auth, ...headers },
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const what = `${method} ${path}`;
    const type = res.headers.get("content-type");
    const parsed = type?.startsWith("application/json") ? await res.json() : await res.text();
    equal(res.status, status ?? 200, `${what}: ${JSON.stringify(parsed)}`);
    const id = res.headers.get("x-request-id");
    ok(id, `${what}: X-Request-Id`);
    equal(validate(method, `/admin/v1${template}`, res.status, parsed, type), null);
    if (res.status >= 400) equal(parsed.requestId, id, `${what}: requestId`);
    else answered.add(`${method} /admin/v1${template}`);
    return parsed;
  };

  // Integrators.
  const integrator = { id: "acme", name: "ACME OOD", email: "dev@acme.bg", locale: "bg" };
  await call("POST", "/integrators", "/integrators", integrator, {}, 201);
  await call("POST", "/integrators", "/integrators", integrator, {}, 409);
  await call("POST", "/integrators", "/integrators", { name: "" }, {}, 400);
  await call("POST", "/integrators", "/integrators", "{", {}, 400);
  await call("POST", "/integrators", "/integrators", "{}", { "content-length": "2000000" }, 413);
  await call("GET", "/integrators", "/integrators", undefined);
  await call("GET", "/integrators/{id}", "/integrators/nope", undefined, {}, 404);
  await call("PATCH", "/integrators/{id}", "/integrators/acme", {
    allowedOrigins: ["https://acme.bg"],
  });
  await call("PATCH", "/integrators/{id}", "/integrators/acme", { locale: "de" }, {}, 400);
  await call("PATCH", "/integrators/{id}", "/integrators/nope", {}, {}, 404);

  // Keys.
  const live = await call(
    "POST",
    "/keys",
    "/keys",
    { integratorId: "acme", mode: "live" },
    {},
    201,
  );
  const test = await call(
    "POST",
    "/keys",
    "/keys",
    { integratorId: "acme", mode: "test", label: "ci", allowedEiks: [EIK] },
    {},
    201,
  );
  await call("POST", "/keys", "/keys", { integratorId: "nope", mode: "test" }, {}, 404);
  await call("POST", "/keys", "/keys", { integratorId: "acme", mode: "prod" }, {}, 400);
  await call("GET", "/keys", "/keys?integratorId=acme", undefined);
  await call("GET", "/keys/{id}", `/keys/${live.key.id}`, undefined);
  await call("GET", "/keys/{id}", "/keys/nope", undefined, {}, 404);
  const eiks = `/keys/${test.key.id}/allowed-eiks`;
  await call("PUT", "/keys/{id}/allowed-eiks", eiks, { allowedEiks: [EIK, "131313131"] });
  await call("PUT", "/keys/{id}/allowed-eiks", eiks, { allowedEiks: [] }, {}, 400);
  await call(
    "PUT",
    "/keys/{id}/allowed-eiks",
    "/keys/nope/allowed-eiks",
    {
      allowedEiks: null,
    },
    {},
    404,
  );
  const origins = `/keys/${test.key.id}/allowed-origins`;
  await call("PUT", "/keys/{id}/allowed-origins", origins, {
    allowedOrigins: ["https://app.acme.bg"],
  });
  await call(
    "PUT",
    "/keys/{id}/allowed-origins",
    origins,
    {
      allowedOrigins: ["file:///C:/x"],
    },
    {},
    400,
  );
  await call("PUT", "/keys/{id}/allowed-origins", origins, { allowedOrigins: null });
  const spare = await call(
    "POST",
    "/keys",
    "/keys",
    { integratorId: "acme", mode: "test" },
    {},
    201,
  );
  const rotated = await call(
    "POST",
    "/keys/{id}/rotate",
    `/keys/${spare.key.id}/rotate`,
    {
      graceSeconds: 60,
    },
    {},
    201,
  );
  await call(
    "POST",
    "/keys/{id}/rotate",
    `/keys/${spare.key.id}/rotate`,
    {
      graceSeconds: -1,
    },
    {},
    400,
  );
  await call("POST", "/keys/{id}/rotate", "/keys/nope/rotate", undefined, {}, 404);
  await call("POST", "/keys/{id}/revoke", `/keys/${rotated.key.id}/revoke`, undefined);
  await call("POST", "/keys/{id}/revoke", `/keys/${rotated.key.id}/revoke`, undefined, {}, 409);
  await call("POST", "/keys/{id}/rotate", `/keys/${rotated.key.id}/rotate`, undefined, {}, 409);
  await call("POST", "/keys/{id}/revoke", "/keys/nope/revoke", undefined, {}, 404);

  // Tokens, so that usage and the statement have lines.
  for (const key of [test.secret, live.secret]) {
    equal((await env.issue(key, { typeId: "debt_payments", eik: EIK })).status, 200);
  }

  // Applications and contracts.
  const apply = async () => {
    const res = await env.app.request("/api/v1/applications", {
      method: "POST",
      headers: { ...auth, authorization: `Bearer ${live.secret}` },
      body: JSON.stringify({ company: "ACME OOD", contactEmail: "a@acme.bg", intendedUse: "VAT" }),
    });
    equal(res.status, 201);
    return (await res.json()).id as string;
  };
  const first = await apply();
  await call("GET", "/applications", "/applications?status=pending&integratorId=acme", undefined);
  await call("GET", "/applications", "/applications?status=maybe", undefined, {}, 400);
  await call(
    "POST",
    "/applications/{id}/approve",
    `/applications/${first}/approve`,
    {
      endsAt: "someday",
    },
    {},
    400,
  );
  const approved = await call(
    "POST",
    "/applications/{id}/approve",
    `/applications/${first}/approve`,
    { note: "welcome" },
    {},
    201,
  );
  await call("POST", "/applications/{id}/approve", `/applications/${first}/approve`, {}, {}, 409);
  await call("POST", "/applications/{id}/approve", "/applications/nope/approve", {}, {}, 404);
  const second = await apply();
  await call("POST", "/applications/{id}/reject", `/applications/${second}/reject`, {
    note: "one contract is enough",
  });
  await call("POST", "/applications/{id}/reject", `/applications/${second}/reject`, {}, {}, 409);
  await call(
    "POST",
    "/applications/{id}/reject",
    `/applications/${first}/reject`,
    {
      note: 1,
    },
    {},
    400,
  );
  await call("POST", "/applications/{id}/reject", "/applications/nope/reject", {}, {}, 404);
  const contract = approved.contract.id as string;
  equal(
    (await env.issue(live.secret, { typeId: "debt_payments", eik: EIK })).status,
    200,
    "under the contract",
  );
  await call("GET", "/contracts", "/contracts?integratorId=acme", undefined);
  await call("GET", "/contracts/{id}", `/contracts/${contract}`, undefined);
  await call("GET", "/contracts/{id}", "/contracts/nope", undefined, {}, 404);
  const month = new Date(env.clock.now()).toISOString().slice(0, 7);
  const statement = `/contracts/${contract}/statement?month=${month}`;
  const lines = await call("GET", "/contracts/{id}/statement", statement, undefined);
  ok(lines.lines.length > 0, "the statement has lines");
  ok((await call("GET", "/contracts/{id}/statement", `${statement}&format=csv`, undefined))
    .includes("TOTAL"));
  await call(
    "GET",
    "/contracts/{id}/statement",
    `/contracts/${contract}/statement?month=2026-13`,
    undefined,
    {},
    400,
  );
  await call(
    "GET",
    "/contracts/{id}/statement",
    `/contracts/nope/statement?month=${month}`,
    undefined,
    {},
    404,
  );
  await call(
    "POST",
    "/contracts/{id}/terminate",
    `/contracts/${contract}/terminate`,
    {
      reason: 7,
    },
    {},
    400,
  );
  await call("POST", "/contracts/{id}/terminate", `/contracts/${contract}/terminate`, {
    reason: "the integrator asked",
  });
  await call("POST", "/contracts/{id}/terminate", `/contracts/${contract}/terminate`, {}, {}, 409);
  await call("POST", "/contracts/{id}/terminate", "/contracts/nope/terminate", {}, {}, 404);

  // Usage, notices, signing keys, the document.
  const usage = await call("GET", "/usage", `/usage?month=${month}&integratorId=acme`, undefined);
  ok(usage.total >= 3, "usage counted");
  await call("GET", "/usage", "/usage?format=csv&contractId=", undefined);
  await call("GET", "/usage", "/usage?month=May", undefined, {}, 400);
  const notices = await call("GET", "/notices", "/notices?kind=contract_terminated", undefined);
  ok(notices.items.length > 0, "the termination notice");
  await call("GET", "/integrators/{id}", "/integrators/acme", undefined);
  await call("GET", "/signing-keys", "/signing-keys", undefined);
  await call("POST", "/signing-keys/rotate", "/signing-keys/rotate", undefined, {}, 201);
  await call("POST", "/signing-keys/encrypt", "/signing-keys/encrypt", undefined, {}, 409);
  await call("GET", "/openapi.json", "/openapi.json", undefined);
  for (const authorization of [`Bearer ${live.secret}`, `Bearer ${ADMIN_TOKEN}x`, ""]) {
    await call("GET", "/openapi.json", "/openapi.json", undefined, { authorization }, 401);
    await call("POST", "/keys", "/keys", {}, { authorization }, 401);
  }

  // With a signing key secret, `encrypt` succeeds; a database outage is a 503.
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  let down = false;
  const flaky = new Proxy(store, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver);
      if (name !== "listIntegrators" || typeof v !== "function") return v;
      return (...a: unknown[]) => {
        if (down) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
        return v.apply(target, a);
      };
    },
  });
  const service = await createTokenService({
    store: flaky,
    clock: env.clock,
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
    adminToken: ADMIN_TOKEN,
    keyCipher: await createSigningKeyCipher("S".repeat(40)),
  });
  const res = await service.app.request("/admin/v1/signing-keys/encrypt", {
    method: "POST",
    headers: auth,
  });
  equal(res.status, 200);
  equal(validate("POST", "/admin/v1/signing-keys/encrypt", 200, await res.json()), null);
  answered.add("POST /admin/v1/signing-keys/encrypt");
  down = true;
  const outage = await service.app.request("/admin/v1/integrators", { headers: auth });
  equal(outage.status, 503);
  equal(outage.headers.get("retry-after"), "5");
  const body = await outage.json();
  equal(body.errorCode, "DATABASE_UNAVAILABLE");
  equal(validate("GET", "/admin/v1/integrators", 503, body), null);

  deepStrictEqual([...documented].filter((o) => !answered.has(o)), [], "never answered 2xx");
});

Deno.test("[cli] `openapi --service admin` prints the admin API's document", async () => {
  const r = await runInProcess(["openapi", "--service", "admin"]);
  equal(r.code, 0, r.stderr);
  deepStrictEqual(r.json(), buildAdminOpenApi(VERSION));
  equal(r.json().info.title, "Token service admin API");
});
