/**
 * Rate limits of the token service (docs/token-service.md § Rate limits): a budget per API key
 * and per integrator, `RateLimit-*` headers on every answer of a limited route, 429
 * RATE_LIMITED with `Retry-After` and `details.scope` over a budget; counted in this process on
 * SQLite and shared by the instances on PostgreSQL.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { FakeClock } from "../../src/clock.ts";
import { createApiKey } from "../../src/token/api_keys.ts";
import { createTokenService } from "../../src/token/service.ts";
import type { RateLimitSettings } from "../../src/token/rate_limit.ts";
import { sqliteTokenStore, type TokenStore } from "../../src/token/store/mod.ts";
import { backendTest, TEST_ISSUER } from "../_helpers/token_env.ts";

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);

async function limitedService(
  store: TokenStore,
  clock: FakeClock,
  rateLimits: RateLimitSettings,
  shared = false,
) {
  const service = await createTokenService({
    store,
    clock,
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
    rateLimits,
    sharedRateCounters: shared,
  });
  return (key: string) =>
    service.app.request("/api/v1/tokens/issue", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
    });
}

async function memoryStore() {
  const s = sqliteTokenStore(":memory:");
  await s.migrate();
  return s;
}

Deno.test("[token] a key's budget: RateLimit-* headers, then 429 RATE_LIMITED with Retry-After until the window ends", async () => {
  const clock = new FakeClock(T0 + 3_000);
  const store = await memoryStore();
  try {
    const issue = await limitedService(store, clock, {
      windowSeconds: 10,
      perKey: 3,
      perIntegrator: 0,
    });
    const { secret } = await createApiKey(store, { mode: "test", now: clock.now() });
    const { secret: other } = await createApiKey(store, { mode: "test", now: clock.now() });
    for (const remaining of [2, 1, 0]) {
      const r = await issue(secret);
      equal(r.status, 200);
      await r.body?.cancel();
      equal(r.headers.get("ratelimit-limit"), "3");
      equal(r.headers.get("ratelimit-remaining"), String(remaining));
      equal(r.headers.get("ratelimit-reset"), "7");
      equal(r.headers.get("ratelimit-policy"), "3;w=10");
    }
    const refused = await issue(secret);
    equal(refused.status, 429);
    equal(refused.headers.get("retry-after"), "7");
    equal(refused.headers.get("ratelimit-remaining"), "0");
    const body = await refused.json();
    equal(body.errorCode, "RATE_LIMITED");
    equal(body.errorKind, "PARAMETER");
    equal(body.details.scope, "key");
    equal(body.details.retryAfter, 7);
    ok(!JSON.stringify(body).includes(secret), "the secret is not echoed");
    // Another key of the same integrator has its own budget (no integrator budget here).
    equal((await issue(other)).status, 200);
    // An unknown key is refused before any budget is counted.
    equal((await issue("svc_test_" + "A".repeat(43))).status, 401);
    clock.advance(7_000); // the next window
    const again = await issue(secret);
    equal(again.status, 200);
    equal(again.headers.get("ratelimit-remaining"), "2");
  } finally {
    await store.close();
  }
});

Deno.test("[token] an integrator's budget covers all of its keys; the tighter budget is the one shown", async () => {
  const clock = new FakeClock(T0);
  const store = await memoryStore();
  try {
    const issue = await limitedService(store, clock, {
      windowSeconds: 60,
      perKey: 10,
      perIntegrator: 4,
    });
    const a = await createApiKey(store, { mode: "test", now: T0 });
    const b = await createApiKey(store, { mode: "test", now: T0 });
    await store.createIntegrator({
      id: "other",
      name: "Other Ltd",
      email: null,
      allowedOrigins: [],
      createdAt: T0,
    });
    const c = await createApiKey(store, { mode: "test", now: T0, integratorId: "other" });
    const statuses = [];
    for (const k of [a, b, a, b]) {
      const r = await issue(k.secret);
      statuses.push(r.status);
      equal(r.headers.get("ratelimit-limit"), "4", "the integrator's budget is the tighter one");
    }
    deepStrictEqual(statuses, [200, 200, 200, 200]);
    const refused = await issue(b.secret);
    equal(refused.status, 429);
    equal((await refused.json()).details.scope, "integrator");
    equal((await issue(c.secret)).status, 200, "another integrator is not affected");
  } finally {
    await store.close();
  }
});

Deno.test("[token] the contract application routes spend the same budget", async () => {
  const clock = new FakeClock(T0);
  const store = await memoryStore();
  try {
    const service = await createTokenService({
      store,
      clock,
      config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
      rateLimits: { windowSeconds: 10, perKey: 1, perIntegrator: 0 },
    });
    const { secret } = await createApiKey(store, { mode: "test", now: T0 });
    const get = () =>
      service.app.request("/api/v1/applications", {
        headers: { authorization: `Bearer ${secret}` },
      });
    equal((await get()).status, 200);
    equal((await get()).status, 429);
  } finally {
    await store.close();
  }
});

backendTest(
  "the shared counters count every hit once under concurrency and prune old windows",
  async (db) => {
    const store = await db.open();
    const counts = await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => store.hitRateWindows(i % 2 ? ["k:a", "i:x"] : ["i:x", "k:b"], T0),
      ),
    );
    const forX = counts.map((c, i) => (i % 2 ? c[1] : c[0])!).sort((p, q) => p - q);
    deepStrictEqual(
      forX,
      Array.from({ length: 40 }, (_, i) => i + 1),
      "i:x counted 1..40, once each",
    );
    deepStrictEqual(await store.hitRateWindows(["k:a"], T0), [21]);
    deepStrictEqual(await store.hitRateWindows(["k:a"], T0 + 10_000), [1], "a new window");
    equal(await store.pruneRateWindows(T0 + 10_000), 3, "the old window's three rows");
    deepStrictEqual(await store.hitRateWindows(["k:a"], T0 + 10_000), [2]);
  },
);

backendTest(
  "two instances on one database share the budgets when the counters are shared",
  async (db) => {
    const clock = new FakeClock(T0);
    const shared = db.backend === "postgres";
    const [s1, s2] = [await db.open(), await db.open()];
    const limits = { windowSeconds: 10, perKey: 4, perIntegrator: 0 };
    const one = await limitedService(s1, clock, limits, shared);
    const two = await limitedService(s2, clock, limits, shared);
    const { secret } = await createApiKey(s1, { mode: "test", now: T0 });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? two : one)(secret)).status);
    // Shared (PostgreSQL): 4 in all. In process (SQLite, one instance per database): 4 each.
    deepStrictEqual(
      statuses,
      shared ? [200, 200, 200, 200, 429, 429] : [200, 200, 200, 200, 200, 200],
    );
  },
);
