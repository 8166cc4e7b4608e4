/**
 * The issuance cache (docs/token-service.md, src/token/store/issue_cache.ts), on SQLite and
 * PostgreSQL with two service instances on one database: the steady state reads nothing from the
 * database per token, and a revocation, an allowed-list change or a contract change made through
 * instance A is refused by instance B within one second (polled; the measured delay is asserted ≤ 1
 * s, the one timed assertion the issue asks for), on PostgreSQL by the push of a notification
 * alone.
 */
import { equal, ok } from "node:assert/strict";
import { backendTest, type TokenEnv, tokenEnv } from "../_helpers/token_env.ts";
import {
  createSqlTokenStore,
  type SqlTokenStore,
  type TokenStore,
} from "../../src/token/store/mod.ts";
import { openPgDb } from "../../src/token/store/pg_db.ts";
import { systemClock } from "../../src/clock.ts";
import { freshPgSchema, pgIgnored } from "../_helpers/postgres.ts";
import type { KeyMode } from "../../src/contract/mod.ts";

const BODY = { typeId: "debt_payments", eik: "121212121" };

const stats = (t: TokenEnv) => (t.store as SqlTokenStore).issueCacheStats();

async function status(t: TokenEnv, key: string, body: unknown = BODY): Promise<number> {
  const res = await t.issue(key, body);
  await res.body?.cancel();
  return res.status;
}

/**
 * Poll `t` until `want` answers, every 10 ms for at most 5 s.
 * @returns ms from the call to the moment the first request answered `want` was sent: the
 * promise is about requests that *arrive* after the change, so the time that request itself
 * took (which a loaded test machine stretches) is not counted
 */
async function delayUntil(t: TokenEnv, key: string, want: number, body: unknown = BODY) {
  const t0 = performance.now();
  while (performance.now() - t0 < 5000) {
    const sent = performance.now() - t0;
    if (await status(t, key, body) === want) return sent;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no ${want} within 5 s`);
}

async function twoInstances(db: { open(): Promise<TokenStore> }, storeOfB?: TokenStore) {
  const a = await tokenEnv({ store: await db.open() });
  const b = await tokenEnv({ store: storeOfB ?? await db.open(), clock: a.clock });
  await a.adminJson("POST", "/integrators", { id: "acme", name: "ACME Ltd", email: null }, 201);
  const newKey = async (mode: KeyMode) =>
    (await a.adminJson("POST", "/keys", { integratorId: "acme", mode }, 201)) as {
      secret: string;
      key: { id: string };
    };
  return { a, b, newKey };
}

backendTest("steady state: tokens come from the cache, with no database read each", async (db) => {
  const { b, newKey } = await twoInstances(db);
  const k = await newKey("live"); // no contract: the EIK claim path too
  equal(await status(b, k.secret), 200);
  const before = stats(b);
  for (let i = 0; i < 50; i++) equal(await status(b, k.secret), 200);
  const after = stats(b);
  equal(after.misses - before.misses, 0, "no key lookup in the database");
  equal(after.hits - before.hits, 50);
  equal(after.eikHits - before.eikHits, 50, "an EIK already used needs no claim transaction");
  ok(after.versionChecks - before.versionChecks <= 50, "at most one version check per token");
});

backendTest(
  "a revocation through instance A is refused by instance B within one second",
  async (db) => {
    const { a, b, newKey } = await twoInstances(db);
    const k = await newKey("test");
    for (let i = 0; i < 5; i++) equal(await status(b, k.secret), 200, "B has the key cached");
    await a.adminJson("POST", `/keys/${k.key.id}/revoke`);
    equal(await status(a, k.secret), 401, "A at once: its own write dropped its cache");
    const delay = await delayUntil(b, k.secret, 401);
    ok(delay <= 1000, `B refused after ${delay.toFixed(0)} ms`);
    equal(await status(b, k.secret), 401, "and keeps refusing");
  },
);

backendTest(
  "an allowed-list change and a contract's approval and termination through A reach B within one second",
  async (db) => {
    const { a, b, newKey } = await twoInstances(db);
    const k = await newKey("live");
    for (const eik of ["111111111", "222222222", "333333333"]) {
      equal(await status(b, k.secret, { typeId: "debt_payments", eik }), 200);
    }
    const fourth = { typeId: "debt_payments", eik: "444444444" };
    equal(await status(b, k.secret, fourth), 402);

    // Allowed list.
    await a.adminJson("PUT", `/keys/${k.key.id}/allowed-eiks`, { allowedEiks: ["222222222"] });
    const used = { typeId: "debt_payments", eik: "111111111" };
    let delay = await delayUntil(b, k.secret, 403, used);
    ok(delay <= 1000, `allowed list: ${delay.toFixed(0)} ms`);
    await a.adminJson("PUT", `/keys/${k.key.id}/allowed-eiks`, { allowedEiks: null });
    await delayUntil(b, k.secret, 200, used);

    // A contract lifts the limit on B.
    const app = await (await a.app.request("/api/v1/applications", {
      method: "POST",
      headers: { authorization: `Bearer ${k.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ company: "ACME", contactEmail: "b@acme.test", intendedUse: "x" }),
    })).json();
    const { contract } = await a.adminJson("POST", `/applications/${app.id}/approve`, {}, 201);
    delay = await delayUntil(b, k.secret, 200, fourth);
    ok(delay <= 1000, `approval: ${delay.toFixed(0)} ms`);

    // Its termination brings the limit back on B.
    const fifth = { typeId: "debt_payments", eik: "555555555" };
    equal(await status(b, k.secret, fifth), 200, "under the contract, any EIK");
    await a.adminJson("POST", `/contracts/${contract.id}/terminate`, { reason: "test" });
    delay = await delayUntil(b, k.secret, 402, { typeId: "debt_payments", eik: "666666666" });
    ok(delay <= 1000, `termination: ${delay.toFixed(0)} ms`);
    equal(await status(b, k.secret, used), 200, "an EIK of the pre-contract set stays free");
  },
);

backendTest("misses of many keys at once are all answered (loads wait in line)", async (db) => {
  const { b, newKey } = await twoInstances(db);
  const keys = [];
  for (let i = 0; i < 20; i++) keys.push((await newKey("test")).secret);
  const unknown = Array.from({ length: 20 }, (_, i) => `svc_test_${String(i).padStart(43, "x")}`);
  const all = await Promise.all([...keys, ...unknown].map((k) => status(b, k)));
  equal(all.filter((s) => s === 200).length, 20);
  equal(all.filter((s) => s === 401).length, 20);
  equal(stats(b).misses, 40);
});

Deno.test({
  name:
    "[token/postgres] a revocation is pushed to the other instance (NOTIFY) without waiting for a version check; other schemas' notifications are ignored",
  ignore: pgIgnored(),
  async fn() {
    const [pg, other] = [await freshPgSchema(), await freshPgSchema()];
    // Version checks every minute: only the push can bring the revocation within a second.
    const open = async (url: string) => {
      const s = createSqlTokenStore(openPgDb(url), systemClock, {
        refreshMs: 60_000,
        maxStaleMs: 60_000,
      });
      await s.migrate();
      return s;
    };
    const stores = [await open(pg.url), await open(pg.url), await open(other.url)];
    const [sa, sb, sc] = stores as [SqlTokenStore, SqlTokenStore, SqlTokenStore];
    try {
      const { a, b, newKey } = await twoInstances({ open: () => Promise.resolve(sa) }, sb);
      const k = await newKey("test");
      equal(await status(b, k.secret), 200, "B has the key cached (and listens from now on)");
      await sc.findKeyForIssue("none", Date.now()); // the other schema's store listens too
      await until(() => sb.issueCacheStats().listening && sc.issueCacheStats().listening);
      const checks = sb.issueCacheStats().versionChecks;
      const otherDrops = sc.issueCacheStats().drops;
      await a.adminJson("POST", `/keys/${k.key.id}/revoke`);
      const delay = await delayUntil(b, k.secret, 401);
      ok(delay <= 1000, `B refused after ${delay.toFixed(0)} ms`);
      equal(sb.issueCacheStats().versionChecks, checks, "no version check was needed");
      ok(sb.issueCacheStats().notifications >= 1, "B was notified");
      equal(sc.issueCacheStats().notifications, 0, "another schema's store ignores it");
      equal(sc.issueCacheStats().drops, otherDrops);
    } finally {
      for (const s of stores) await s.close();
      await pg.drop();
      await other.drop();
    }
  },
});

/** Wait until `cond` holds, every 10 ms for at most 5 s. */
async function until(cond: () => boolean) {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > 5000) throw new Error("not within 5 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}

backendTest(
  "an integrator's page origins changed through A are applied by B's token checks within one second",
  async (db) => {
    const { a, b, newKey } = await twoInstances(db);
    const origins = (list: string[]) =>
      a.adminJson("PATCH", "/integrators/acme", { allowedOrigins: list });
    await origins(["https://old.acme.test"]);
    const k = await newKey("test");
    const from = (origin: string) => ({ ...BODY, origin });
    equal(await status(b, k.secret, from("https://old.acme.test")), 200, "B has the key cached");
    await origins(["https://new.acme.test"]);
    const delay = await delayUntil(b, k.secret, 403, from("https://old.acme.test"));
    ok(delay <= 1000, `the old origin refused by B after ${delay.toFixed(0)} ms`);
    equal(await status(b, k.secret, from("https://new.acme.test")), 200, "the new one accepted");
  },
);
