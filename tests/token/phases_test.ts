/**
 * interface-spec.md § Access phases walked end to end over HTTP with a fake clock, on SQLite and
 * PostgreSQL: test keys (90 days, no EIK limit), live keys before a contract (7 days, 3 EIKs,
 * 402 for the 4th), the allowed list (403 with rejectedEiks), application → approval (phase 3:
 * no expiry, no limit), termination and expiry (back to 7 days and 3 EIKs), revocation and
 * rotation (401).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { backendTest, type TokenEnv, tokenEnv } from "../_helpers/token_env.ts";
import type { KeyMode } from "../../src/contract/mod.ts";

const DAY = 24 * 3600 * 1000;
const E = ["111111111", "222222222", "333333333", "444444444", "555555555", "666666666"];

async function expectStatus(t: TokenEnv, key: string, eik: string, status: number, code?: string) {
  const res = await t.issue(key, { typeId: "debt_payments", eik });
  const body = await res.json();
  equal(res.status, status, `${eik}: ${JSON.stringify(body)}`);
  if (code) equal(body.errorCode, code);
  return body;
}

async function setup(t: TokenEnv) {
  await t.adminJson("POST", "/integrators", {
    id: "acme",
    name: "ACME Ltd",
    email: "dev@acme.test",
    locale: "bg",
  }, 201);
  return async (mode: KeyMode, extra: Record<string, unknown> = {}) => {
    const r = await t.adminJson("POST", "/keys", { integratorId: "acme", mode, ...extra }, 201);
    return r as { secret: string; key: { id: string; expiresAt: string | null } };
  };
}

backendTest("phase 1: a test key lasts 90 days and has no EIK limit", async (db) => {
  const t = await tokenEnv({ store: await db.open() });
  const newKey = await setup(t);
  const { secret, key } = await newKey("test");
  equal(key.expiresAt, new Date(t.clock.now() + 90 * DAY).toISOString());
  const eiks = Array.from({ length: 25 }, (_, i) => String(300000000 + i));
  equal((await t.issue(secret, { typeId: "vat_batch", eiks })).status, 200);
  t.clock.advance(90 * DAY - 1);
  await expectStatus(t, secret, E[0]!, 200);
  t.clock.advance(1);
  await expectStatus(t, secret, E[0]!, 401, "API_KEY_EXPIRED");
});

backendTest(
  "phases 1→2→3→1: live keys, allowed list, contract, termination, revocation",
  async (db) => {
    const t = await tokenEnv({ store: await db.open() });
    const newKey = await setup(t);
    const old = await newKey("live");
    t.clock.advance(2 * DAY);
    const k1 = await newKey("live");
    // The 7 days are the integrator's: k1, made on day 2, ends with them on day 7 (with `old`).
    equal(k1.key.expiresAt, new Date(t.clock.now() + 5 * DAY).toISOString());

    // Phase 1: 3 EIKs per live key, the 4th is 402; used ones stay free.
    for (const eik of E.slice(0, 3)) await expectStatus(t, k1.secret, eik, 200);
    const lim = await expectStatus(t, k1.secret, E[3]!, 402, "EIK_LIMIT_REACHED");
    equal(lim.errorKind, "CREDENTIALS");
    await expectStatus(t, k1.secret, E[0]!, 200);

    // Allowed list: only an administrator sets it; others get 403 with rejectedEiks.
    await t.adminJson("PUT", `/keys/${k1.key.id}/allowed-eiks`, { allowedEiks: [E[0], E[1]] });
    const forb = await t.issue(k1.secret, { typeId: "vat_batch", eiks: [E[0], E[2], E[5]] });
    equal(forb.status, 403);
    deepStrictEqual((await forb.json()).rejectedEiks, [E[2], E[5]]);
    await t.adminJson("PUT", `/keys/${k1.key.id}/allowed-eiks`, { allowedEiks: null });

    // Phase 2: the integrator applies with its own key; one pending application at a time.
    const apply = (key: string) =>
      t.app.request("/api/v1/applications", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          company: "ACME Ltd",
          contactEmail: "billing@acme.test",
          intendedUse: "VAT filings for 200 clients",
        }),
      });
    const app = await (await apply(k1.secret)).json();
    equal(app.status, "pending");
    equal((await apply(k1.secret)).status, 409);
    equal((await apply("svc_live_" + "x".repeat(43))).status, 401);

    // Day 6: one key (`mid`) is still valid; on day 8 the trial is over for every key (402).
    t.clock.advance(4 * DAY);
    const mid = await newKey("live");
    t.clock.advance(2 * DAY);
    await expectStatus(t, old.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    await expectStatus(t, k1.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    await expectStatus(t, mid.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    // Approval on day 8: the approval date is the contract date; keys expired with the trial
    // stay expired (401 now: the contract is in force); a live key made under it never expires.
    const approved = await t.adminJson("POST", `/applications/${app.id}/approve`, {}, 201);
    equal(approved.contract.startsAt, new Date(t.clock.now()).toISOString());
    equal(approved.liftedKeys, 0);
    const kc = await newKey("live");
    t.clock.advance(5 * DAY);
    for (const eik of E) await expectStatus(t, kc.secret, eik, 200);
    await expectStatus(t, old.secret, E[0]!, 401, "API_KEY_EXPIRED");
    await expectStatus(t, k1.secret, E[0]!, 401, "API_KEY_EXPIRED");
    const view = await t.adminJson("GET", `/keys/${kc.key.id}`);
    equal(view.phase, "contract");
    equal(view.expiresAt, null);
    equal(view.eikLimit, null);
    const k2 = await newKey("live");
    equal(k2.key.expiresAt, null, "a live key created under a contract never expires");
    t.clock.advance(360 * DAY - 1); // 1 ms before the default end (one year after approval)
    await expectStatus(t, k2.secret, E[4]!, 200);

    // Termination: live keys get 7 days from now and 3 EIKs again, for all of them together
    // (k1's three from before the contract fill them).
    const term = await t.adminJson("POST", `/contracts/${approved.contract.id}/terminate`, {
      reason: "Unpaid invoice",
    });
    equal(term.contract.status, "terminated");
    equal(term.fallenBackKeys, 2);
    const fb = await t.adminJson("GET", `/keys/${k2.key.id}`);
    equal(fb.expiresAt, new Date(t.clock.now() + 7 * DAY).toISOString());
    equal(fb.phase, "pre_contract");
    await expectStatus(t, k2.secret, E[3]!, 402, "EIK_LIMIT_REACHED");
    await expectStatus(t, k2.secret, E[0]!, 200, undefined); // k1 covers it: free
    await expectStatus(t, kc.secret, E[0]!, 200, undefined); // among the 3 pre-contract EIKs
    await expectStatus(t, kc.secret, E[5]!, 402, "EIK_LIMIT_REACHED");
    t.clock.advance(7 * DAY);
    // The 7 days after the end are over: a live key without a contract is refused as a trial.
    await expectStatus(t, kc.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    await expectStatus(t, k2.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    // The 7 days after the end are over: no new live key without a contract.
    const late = await t.admin("POST", "/keys", { integratorId: "acme", mode: "live" });
    equal(late.status, 402);
    equal((await late.json()).errorCode, "LIVE_TRIAL_OVER");

    // Revocation.
    const k3 = await newKey("test");
    await expectStatus(t, k3.secret, E[0]!, 200);
    await t.adminJson("POST", `/keys/${k3.key.id}/revoke`);
    await expectStatus(t, k3.secret, E[0]!, 401, "API_KEY_REVOKED");
    equal((await t.admin("POST", `/keys/${k3.key.id}/revoke`)).status, 409);
  },
);

backendTest(
  "a contract that reaches its end date: keys fall back from the end, before and after the scheduler ran",
  async (db) => {
    const t = await tokenEnv({ store: await db.open() });
    const newKey = await setup(t);
    const k = await newKey("live");
    const res = await t.app.request("/api/v1/applications", {
      method: "POST",
      headers: { authorization: `Bearer ${k.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ company: "ACME", contactEmail: "b@acme.test", intendedUse: "x" }),
    });
    const app = await res.json();
    const endsAt = new Date(t.clock.now() + 10 * DAY).toISOString();
    const { contract } = await t.adminJson(
      "POST",
      `/applications/${app.id}/approve`,
      { endsAt },
      201,
    );
    equal(contract.endsAt, endsAt);
    t.clock.advance(10 * DAY + 3600_000);
    // The scheduler has not run yet: the key already follows the pre-contract rules.
    for (const eik of E.slice(0, 3)) await expectStatus(t, k.secret, eik, 200);
    await expectStatus(t, k.secret, E[3]!, 402, "EIK_LIMIT_REACHED");
    equal((await t.adminJson("GET", `/contracts/${contract.id}`)).status, "expired");
    const report = await t.service.scheduler.tick();
    equal(report.expiredContracts, 1);
    equal(
      (await t.adminJson("GET", `/keys/${k.key.id}`)).expiresAt,
      new Date(Date.parse(endsAt) + 7 * DAY).toISOString(),
    );
    t.clock.set(Date.parse(endsAt) + 7 * DAY - 1);
    await expectStatus(t, k.secret, E[0]!, 200);
    t.clock.advance(1);
    await expectStatus(t, k.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    // An application is decided once.
    equal((await t.admin("POST", `/applications/${app.id}/approve`, {})).status, 409);
  },
);

backendTest(
  "phase 1: a live key made on day 6 ends with the integrator's 7 days (402 on day 7 + 1 minute)",
  async (db) => {
    const t = await tokenEnv({ store: await db.open() });
    const newKey = await setup(t);
    const start = t.clock.now();
    await newKey("live");
    t.clock.advance(6 * DAY);
    const late = await newKey("live");
    equal(late.key.expiresAt, new Date(start + 7 * DAY).toISOString());
    await expectStatus(t, late.secret, E[0]!, 200);
    t.clock.set(start + 7 * DAY - 60_000);
    await expectStatus(t, late.secret, E[0]!, 200);
    t.clock.set(start + 7 * DAY + 60_000);
    const body = await expectStatus(t, late.secret, E[0]!, 402, "LIVE_TRIAL_OVER");
    equal(body.details.trialEndedAt, new Date(start + 7 * DAY).toISOString());
    // Its listing says so too: expired, with the integrator's end.
    const view = await t.adminJson("GET", `/keys/${late.key.id}`);
    equal(view.status, "expired");
    equal(view.expiresAt, new Date(start + 7 * DAY).toISOString());
  },
);

backendTest(
  "phase 1 race: 50 concurrent issuances for 50 EIKs on one live key over two instances give exactly 3 × 200 and 47 × 402",
  async (db) => {
    const [a, b] = [
      await tokenEnv({ store: await db.open() }),
      await tokenEnv({ store: await db.open() }),
    ];
    const k = await (await setup(a))("live");
    const eiks = Array.from({ length: 50 }, (_, i) => String(400000000 + i));
    const statuses = await Promise.all(eiks.map(async (eik, i) => {
      const res = await (i % 2 ? a : b).issue(k.secret, { typeId: "debt_payments", eik });
      await res.body?.cancel();
      return res.status;
    }));
    equal(statuses.filter((s) => s === 200).length, 3);
    equal(statuses.filter((s) => s === 402).length, 47);
    const used = (await b.adminJson("GET", `/keys/${k.key.id}`)).eiksUsed as string[];
    deepStrictEqual(
      [...used].sort(),
      eiks.filter((_, i) => statuses[i] === 200).sort(),
      "the EIKs used are those of the 200s",
    );
  },
);

backendTest("rotation: new secret at once, the old one until the grace period ends", async (db) => {
  const t = await tokenEnv({ store: await db.open() });
  const newKey = await setup(t);
  const k = await newKey("live", { allowedEiks: [E[0], E[1], E[2], E[3]] });
  await expectStatus(t, k.secret, E[0]!, 200);
  const rot = await t.adminJson("POST", `/keys/${k.key.id}/rotate`, { graceSeconds: 3600 }, 201);
  ok(rot.secret.startsWith("svc_live_") && rot.secret !== k.secret);
  equal(rot.previous.status, "revoking");
  deepStrictEqual(rot.key.allowedEiks, [E[0], E[1], E[2], E[3]]);
  deepStrictEqual(rot.key.eiksUsed, [E[0]], "the EIK set moves to the new key");
  equal(rot.key.expiresAt, k.key.expiresAt, "rotation does not extend the lifetime");
  await expectStatus(t, rot.secret, E[0]!, 200);
  t.clock.advance(3600_000 - 1);
  await expectStatus(t, k.secret, E[1]!, 200);
  t.clock.advance(1);
  await expectStatus(t, k.secret, E[1]!, 401, "API_KEY_REVOKED");
  await expectStatus(t, rot.secret, E[1]!, 200);
  const again = await t.adminJson("POST", `/keys/${rot.key.id}/rotate`, {}, 201);
  await expectStatus(t, rot.secret, E[1]!, 401, "API_KEY_REVOKED");
  await expectStatus(t, again.secret, E[1]!, 200);
  equal((await t.admin("POST", `/keys/${k.key.id}/rotate`, {})).status, 409);
});

Deno.test("[token] issuance counts usage per integrator, contract, key, typeId and EIK", async () => {
  const t = await tokenEnv();
  const newKey = await setup(t);
  const k = await newKey("test");
  await t.issue(k.secret, { typeId: "vat", eik: E[0] });
  await t.issue(k.secret, { typeId: "vat", eik: E[0] });
  await t.issue(k.secret, { typeId: "vat_batch", eiks: [E[0], E[1]] });
  await t.issue(k.secret, { typeId: "taxpayers" });
  await expectStatus(t, k.secret, "12", 400);
  equal(t.service.usage.pending(), 4);
  const u = await t.adminJson("GET", "/usage?month=2026-11");
  equal(t.service.usage.pending(), 0, "the admin read flushed the counters");
  equal(u.total, 5);
  deepStrictEqual(
    u.items.map((
      r: { typeId: string; eik: string; count: number; contractId: string },
    ) => [r.typeId, r.eik, r.count, r.contractId]),
    [["taxpayers", "", 1, ""], ["vat", E[0], 2, ""], ["vat_batch", E[0], 1, ""], [
      "vat_batch",
      E[1],
      1,
      "",
    ]],
  );
});
