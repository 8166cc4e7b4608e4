/**
 * docs/token-service.md § OpenAPI documents: the token service's public OpenAPI document (`GET
 * /api/v1/openapi.json`) covers every public route of the real service, and its real answers —
 * successes and errors — match the document; every answer carries `X-Request-Id` and every error
 * body repeats it as `requestId`.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { agentUpdateRoute } from "../../src/token/app.ts";
import { responseValidator } from "../_helpers/openapi_validate.ts";
import { tokenEnv } from "../_helpers/token_env.ts";

const EIK = "121212121";

Deno.test("[token] the public OpenAPI document lists every public route, and real answers match it", async () => {
  const env = await tokenEnv();
  agentUpdateRoute(env.app, () => Promise.resolve(null));
  const doc = await (await env.app.request("/api/v1/openapi.json")).json();
  const documented = new Set(
    Object.entries(doc.paths as Record<string, object>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`)
    ),
  );
  // The pages of the profile and the desk are HTML (their forms too, e.g. removing a passkey);
  // their JSON routes, the passkey ceremonies, are documented.
  const ceremony = /\/(passkeys(\/options)?|passkey\/(options|verify))$/;
  const page = (r: { method: string; path: string }) =>
    (r.path.startsWith("/profile") || r.path.startsWith("/admin")) &&
    !(r.method === "POST" && ceremony.test(r.path));
  const routes = env.app.routes
    .filter((r) => r.method !== "ALL" && !r.path.startsWith("/admin/v1/") && !page(r))
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
  deepStrictEqual([...new Set(routes)].filter((r) => !documented.has(r)), [], "undocumented");

  const validate = responseValidator(doc);
  const { secret } = await env.newKey("test");
  const auth = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
  const calls: [string, string, RequestInit?][] = [
    ["GET", "/.well-known/jwks.json"],
    ["GET", "/api/v1/allowed-origins"],
    ["GET", "/api/v1/agent-version"],
    ["GET", "/api/v1/agent-update"],
    ["GET", "/health"],
    ["GET", "/api/v1/openapi.json"],
    ["POST", "/api/v1/tokens/issue", {
      headers: auth,
      body: JSON.stringify({ typeId: "debt_payments", eik: EIK }),
    }],
    ["POST", "/api/v1/tokens/issue", { headers: auth, body: "{" }],
    ["POST", "/api/v1/tokens/issue", { headers: auth, body: JSON.stringify({ typeId: "x" }) }],
    ["POST", "/api/v1/tokens/issue", {
      headers: { ...auth, authorization: "Bearer svc_test_nope" },
      body: "{}",
    }],
    ["POST", "/api/v1/applications", {
      headers: auth,
      body: JSON.stringify({ company: "Acme", contactEmail: "a@b.bg", intendedUse: "VAT" }),
    }],
    ["POST", "/api/v1/applications", { headers: auth, body: JSON.stringify({ company: "" }) }],
    ["GET", "/api/v1/applications", { headers: auth }],
  ];
  const statuses: number[] = [];
  for (const [method, path, init] of calls) {
    const res = await env.app.request(path, { method, ...init });
    statuses.push(res.status);
    const id = res.headers.get("x-request-id");
    ok(id, `${method} ${path}: X-Request-Id`);
    const json = res.headers.get("content-type")?.startsWith("application/json");
    const body = json ? await res.json() : await res.text();
    equal(validate(method, path, res.status, body), null);
    if (res.status >= 400) equal(body.requestId, id, `${method} ${path}: requestId`);
  }
  deepStrictEqual(statuses, [200, 200, 200, 404, 200, 200, 200, 400, 400, 401, 201, 400, 200]);
});

Deno.test("[token] an unknown route's 404 carries the request id too", async () => {
  const env = await tokenEnv();
  const res = await env.app.request("/nope");
  equal(res.status, 404);
  const body = await res.json();
  equal(body.errorCode, "NOT_FOUND");
  equal(body.requestId, res.headers.get("x-request-id"));
});
