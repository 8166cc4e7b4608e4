/**
 * The admin HTTP API under /admin/v1 (interface-spec.md § Access phases): its own credential
 * (integrator keys never open it), integrators, keys, applications, contracts, the monthly
 * statement as JSON and CSV, usage, notices and signing-key rotation.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { FakeClock } from "../../../src/clock.ts";
import { adminTokenMatches } from "../../../src/token/admin/admin_auth.ts";
import { createTokenApp } from "../../../src/token/app.ts";
import { loadKeyRing } from "../../../src/token/issuance/signer.ts";
import { sqliteTokenStore } from "../../../src/token/store/mod.ts";
import { ADMIN_TOKEN, backendTest, tokenEnv } from "../../_helpers/token_env.ts";

const DAY = 24 * 3600 * 1000;

Deno.test("[token] /admin/v1 answers 401 without the admin credential, and integrator keys never open it", async () => {
  const t = await tokenEnv();
  const { secret: testKey } = await t.newKey("test");
  const { secret: liveKey } = await t.newKey("live");
  const cases: [string, Record<string, string>][] = [
    ["no header", {}],
    ["a test key", { authorization: `Bearer ${testKey}` }],
    ["a live key", { authorization: `Bearer ${liveKey}` }],
    ["a wrong token", { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ["a prefix of the token", { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
    ["basic auth", { authorization: `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}` }],
  ];
  for (const [what, headers] of cases) {
    for (
      const [method, path] of [["GET", "/admin/v1/keys"], ["POST", "/admin/v1/keys"], [
        "GET",
        "/admin/v1/nope",
      ]]
    ) {
      const res = await t.app.request(path!, { method: method!, headers });
      equal(res.status, 401, `${what} ${method} ${path}`);
      const body = await res.json();
      equal(body.errorCode, "ADMIN_UNAUTHORIZED");
      ok(!JSON.stringify(body).includes(ADMIN_TOKEN), "the token is never echoed");
    }
  }
  equal((await t.admin("GET", "/keys")).status, 200);
  ok(adminTokenMatches("abc", "abc"));
  ok(!adminTokenMatches("abc", "abd"));
  ok(!adminTokenMatches("", "abc"));
});

Deno.test("[token] the admin API is disabled when no admin token is configured", async () => {
  const clock = new FakeClock();
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const ring = await loadKeyRing({ store }, clock.now());
  for (const adminToken of [undefined, null, "", "too-short"]) {
    const app = createTokenApp({
      store,
      clock,
      keyRing: () => ring,
      config: { issuer: "x", audience: "svc-agent", minAgentVersion: null },
      adminToken,
    });
    for (const auth of ["Bearer ", "Bearer too-short", "Bearer undefined", "Bearer null"]) {
      const res = await app.request("/admin/v1/integrators", { headers: { authorization: auth } });
      equal(res.status, 401, `${adminToken} / ${auth}`);
    }
  }
});

backendTest("admin API: integrators, keys, validation, not found and conflicts", async (db) => {
  const t = await tokenEnv({ store: await db.open() });
  const created = await t.adminJson("POST", "/integrators", {
    name: "Фирма ООД",
    email: "a@b.test",
  }, 201);
  match(created.id, /^int_/);
  equal(created.locale, "bg");
  equal((await t.admin("POST", "/integrators", { id: created.id, name: "x" })).status, 409);
  const bad = await t.admin("POST", "/integrators", { name: "", email: "nope" });
  equal(bad.status, 400);
  const badBody = await bad.json();
  equal(badBody.errorCode, "VALIDATION_FAILED");
  equal(badBody.details.field, "name");
  equal(
    (await t.app.request("/admin/v1/integrators", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: "{oops",
    })).status,
    400,
  );
  equal((await t.admin("GET", "/integrators/nope")).status, 404);
  equal((await t.admin("POST", "/keys", { integratorId: "nope", mode: "test" })).status, 404);
  equal((await t.admin("POST", "/keys", { integratorId: created.id, mode: "prod" })).status, 400);
  equal((await t.admin("PUT", "/keys/key_nope/allowed-eiks", { allowedEiks: null })).status, 404);
  equal((await t.admin("PUT", "/keys/key_nope/allowed-eiks", { allowedEiks: ["12"] })).status, 400);

  const k = await t.adminJson("POST", "/keys", {
    integratorId: created.id,
    mode: "live",
    label: "Сървър 1",
    allowedEiks: ["121212121"],
  }, 201);
  match(k.secret, /^svc_live_[A-Za-z0-9_-]{43}$/);
  equal(k.key.status, "active");
  equal(k.key.phase, "pre_contract");
  equal(k.key.eikLimit, 3);
  const list = await t.adminJson("GET", `/keys?integratorId=${created.id}`);
  equal(list.items.length, 1);
  const text = JSON.stringify(list) +
    JSON.stringify(await t.adminJson("GET", `/keys/${k.key.id}`)) +
    JSON.stringify(await t.adminJson("GET", `/integrators/${created.id}`));
  ok(!text.includes(k.secret) && !text.includes("secretHash") && !text.includes("secret_hash"));
  const upd = await t.adminJson("PATCH", `/integrators/${created.id}`, { locale: "en" });
  equal(upd.locale, "en");
  const full = await t.adminJson("GET", `/integrators/${created.id}`);
  equal(full.keys.length, 1);
  deepStrictEqual(full.contracts, []);
  equal((await t.admin("POST", "/applications/app_nope/approve", {})).status, 404);
  equal((await t.admin("POST", "/applications/app_nope/reject", {})).status, 404);
  equal((await t.admin("POST", "/contracts/ctr_nope/terminate", {})).status, 404);
  equal((await t.admin("GET", "/applications?status=weird")).status, 400);
});

backendTest(
  "admin API: applications, contracts and the monthly statement as JSON and CSV",
  async (db) => {
    const t = await tokenEnv({ store: await db.open() });
    await t.adminJson(
      "POST",
      "/integrators",
      { id: "acme", name: "ACME", email: "dev@acme.test" },
      201,
    );
    const test = await t.adminJson("POST", "/keys", { integratorId: "acme", mode: "test" }, 201);
    const live = await t.adminJson("POST", "/keys", { integratorId: "acme", mode: "live" }, 201);
    await t.issue(live.secret, { typeId: "vat", eik: "111111111" }); // before the contract
    const submit = (body: unknown) =>
      t.app.request("/api/v1/applications", {
        method: "POST",
        headers: { authorization: `Bearer ${test.secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    equal((await submit({ company: 'ACME, "Ltd"', contactEmail: "bad" })).status, 400);
    const app1 = await (await submit({
      company: 'ACME, "Ltd"',
      contactEmail: "b@acme.test",
      intendedUse: "VAT",
    })).json();
    const rejected = await t.adminJson("POST", `/applications/${app1.id}/reject`, {
      note: "Incomplete",
    });
    equal(rejected.status, "rejected");
    equal(rejected.decisionNote, "Incomplete");
    t.clock.advance(1000);
    const app2 = await (await submit({
      company: 'ACME, "Ltd"',
      contactEmail: "b@acme.test",
      intendedUse: "VAT",
    })).json();
    const mine = await (await t.app.request("/api/v1/applications", {
      headers: { authorization: `Bearer ${live.secret}` },
    })).json();
    deepStrictEqual(mine.items.map((a: { status: string }) => a.status), ["rejected", "pending"]);
    equal((await t.adminJson("GET", "/applications?status=pending")).items.length, 1);
    equal(
      (await t.admin("POST", `/applications/${app2.id}/approve`, {
        endsAt: "2020-01-01T00:00:00Z",
      })).status,
      400,
    );
    t.clock.set(Date.UTC(2026, 10, 5, 12)); // the live key (7 days) is still valid
    const { contract } = await t.adminJson("POST", `/applications/${app2.id}/approve`, {
      endsAt: null,
    }, 201);
    equal(contract.endsAt, null);
    equal(contract.status, "active");
    for (const eik of ["111111111", "222222222", "333333333", "444444444"]) {
      await t.issue(live.secret, { typeId: "vat", eik });
    }
    await t.issue(live.secret, { typeId: "vat_batch", eiks: ["111111111", "555555555"] });
    await t.issue(live.secret, { typeId: "taxpayers" });
    await t.issue(test.secret, { typeId: "vat", eik: "111111111" }); // test keys are not billed
    t.clock.set(Date.UTC(2026, 11, 1, 0, 0, 1));
    await t.issue(live.secret, { typeId: "vat", eik: "111111111" }); // next month
    const s = await t.adminJson("GET", `/contracts/${contract.id}/statement?month=2026-11`);
    equal(s.totals.tokens, 7);
    equal(s.totals.distinctEiks, 5);
    deepStrictEqual(s.totals.byTypeId, { taxpayers: 1, vat: 4, vat_batch: 2 });
    deepStrictEqual(s.period, { from: "2026-11-05T12:00:00.000Z", to: "2026-12-01T00:00:00.000Z" });
    equal(s.company, 'ACME, "Ltd"');
    const csv = await t.admin(
      "GET",
      `/contracts/${contract.id}/statement?month=2026-11&format=csv`,
    );
    equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
    const lines = (await csv.text()).trimEnd().split("\r\n");
    equal(lines[0], "contract_id,company,month,key_id,type_id,eik,tokens");
    equal(lines.length, 1 + 7 + 1);
    equal(lines.at(-1), `${contract.id},"ACME, ""Ltd""",2026-11,TOTAL,,,7`);
    equal(
      (await t.adminJson("GET", `/contracts/${contract.id}/statement?month=2026-12`)).totals.tokens,
      1,
    );
    equal((await t.admin("GET", `/contracts/${contract.id}/statement?month=2026-13`)).status, 400);
    equal((await t.admin("GET", `/contracts/ctr_nope/statement?month=2026-11`)).status, 404);
    const usage = await t.adminJson("GET", "/usage?month=2026-11&integratorId=acme");
    equal(usage.total, 9, "7 billed + 1 before the contract + 1 test");
    const usageCsv = await (await t.admin("GET", "/usage?month=2026-11&format=csv")).text();
    ok(usageCsv.startsWith("month,integrator_id,contract_id,key_id,mode,type_id,eik,tokens\r\n"));
    equal((await t.adminJson("GET", "/contracts?integratorId=acme")).items.length, 1);
    const term = await t.adminJson("POST", `/contracts/${contract.id}/terminate`, {
      reason: "End",
    });
    equal(term.contract.terminationReason, "End");
    equal((await t.admin("POST", `/contracts/${contract.id}/terminate`, {})).status, 409);
    const notices = await t.adminJson("GET", "/notices?kind=contract_terminated");
    equal(notices.items.length, 1);
    equal(notices.items[0].recipient, "b@acme.test");
    equal(t.clock.now() + 7 * DAY, notices.items[0].params.keysExpireAt);
  },
);

Deno.test("[token] POST /admin/v1/signing-keys/rotate rotates and reloads the key ring", async () => {
  const t = await tokenEnv();
  const kid = t.ring().kid;
  const res = await t.adminJson("POST", "/signing-keys/rotate", undefined, 201);
  equal(res.items.length, 2);
  ok(t.ring().kid !== kid);
  const jwks = await (await t.app.request("/.well-known/jwks.json")).json();
  deepStrictEqual(jwks.keys.map((k: { kid: string }) => k.kid).sort(), [kid, t.ring().kid].sort());
  ok(!JSON.stringify(res).includes('"d"'), "no private key material");
});
