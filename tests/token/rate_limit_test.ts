/**
 * Rate limits of the token service (docs/token-service.md § Rate limits): a budget per API key
 * and per integrator, `RateLimit-*` headers on every answer of a limited route, 429
 * RATE_LIMITED with `Retry-After` and `details.scope` over a budget; counted in this process on
 * SQLite and shared by the instances on PostgreSQL.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { FakeClock } from "../../src/clock.ts";
import { createApiKey } from "../../src/token/access/api_keys.ts";
import { createTokenService } from "../../src/token/service.ts";
import {
  fixedWindow,
  hitBudget,
  leasedRateCounter,
  memoryRateCounter,
  type RateLimitSettings,
  storeRateCounter,
} from "../../src/token/edge/rate_limit.ts";
import { sqliteTokenStore, type TokenStore } from "../../src/token/store/mod.ts";
import { backendTest, TEST_ISSUER } from "../_helpers/token_env.ts";

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);

/** A token service with these budgets. */
function limitedApp(
  store: TokenStore,
  clock: FakeClock,
  rateLimits: RateLimitSettings,
  shared = false,
) {
  return createTokenService({
    store,
    clock,
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
    rateLimits,
    sharedRateCounters: shared,
  });
}

/** Issue one `vat` token with a key from a service with these budgets. */
async function limitedService(
  store: TokenStore,
  clock: FakeClock,
  rateLimits: RateLimitSettings,
  shared = false,
) {
  const service = await limitedApp(store, clock, rateLimits, shared);
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

Deno.test("[token] issuance errors after the budget was counted carry RateLimit-*; a body declared too large spends none", async () => {
  const clock = new FakeClock(T0 + 3_000);
  const store = await memoryStore();
  try {
    const service = await limitedApp(store, clock, {
      windowSeconds: 10,
      perKey: 5,
      perIntegrator: 0,
    });
    const { secret } = await createApiKey(store, {
      mode: "test",
      now: clock.now(),
      allowedEiks: ["121212121"],
    });
    const send = (body: string, headers: Record<string, string> = {}) =>
      service.app.request("/api/v1/tokens/issue", {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          ...headers,
        },
        body,
      });
    const cases: [string, number, string][] = [
      ["{not json", 400, "INVALID_JSON"],
      ['{"typeId":"no_such_op","eik":"121212121"}', 400, "UNKNOWN_TYPE_ID"],
      ['{"typeId":"vat","eik":"999999999"}', 403, "EIK_NOT_ALLOWED"],
    ];
    for (const [i, [body, status, code]] of cases.entries()) {
      const r = await send(body);
      equal(r.status, status, body);
      equal((await r.json()).errorCode, code);
      equal(r.headers.get("ratelimit-limit"), "5", `${code}: the budget is shown`);
      equal(r.headers.get("ratelimit-remaining"), String(4 - i), `${code}: and it was spent`);
      ok(r.headers.get("x-request-id"));
    }
    // Declared too large: refused before the budget is counted.
    const big = await send("{}", { "content-length": String(256 * 1024 + 1) });
    equal(big.status, 413);
    equal((await big.json()).errorCode, "BODY_TOO_LARGE");
    equal(big.headers.get("ratelimit-remaining"), null);
    const next = await send('{"typeId":"vat","eik":"121212121"}');
    equal(next.status, 200);
    equal(next.headers.get("ratelimit-remaining"), "1", "the 413 spent nothing");
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
    const service = await limitedApp(store, clock, {
      windowSeconds: 10,
      perKey: 1,
      perIntegrator: 0,
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
    for (let i = 0; i < 8; i++) statuses.push((await (i % 2 ? two : one)(secret)).status);
    const ok200 = statuses.filter((s) => s === 200).length;
    // Shared (PostgreSQL): never more than 4 in all; at most one hit is left unspent in the
    // other instance's lease when the row is full. In process (SQLite, one instance per
    // database): 4 each.
    if (shared) ok(ok200 === 4 || ok200 === 3, `3 or 4 admitted in all: ${statuses}`);
    else equal(ok200, 8);
    clock.advance(10_000); // the next window: a fresh budget for both
    equal((await one(secret)).status, 200);
    equal((await two(secret)).status, 200);
  },
);

backendTest(
  "leased counters: never over the budget across instances, no round trip per hit",
  async (db) => {
    const store = await db.open();
    const a = { leases: 0, hits: 0 };
    const b = { leases: 0, hits: 0 };
    const one = leasedRateCounter(store, undefined, a);
    const two = leasedRateCounter(store, undefined, b);
    const budgets = [{ bucket: "k:key", limit: 1000 }, { bucket: "i:int", limit: 1500 }];
    // 1,200 concurrent requests on each instance: 1,000 may pass, in all.
    const results = await Promise.all(
      Array.from({ length: 2400 }, (_, i) => (i % 2 ? two : one).hit(budgets, T0, 10_000)),
    );
    const admitted = results.filter((h) => h[0]! <= 1000 && h[1]! <= 1500).length;
    ok(admitted <= 1000, `never over the key's budget: ${admitted}`);
    ok(admitted >= 900, `little left unspent in leases: ${admitted}`);
    ok(a.leases + b.leases <= 40, `a lease per many hits: ${a.leases + b.leases} round trips`);
    const [row] = await store.hitRateWindows(["k:key"], T0, [0]);
    ok(row! >= admitted, "every admitted hit is in the shared row");
    // Full: refused in memory, without another round trip.
    const before = a.leases;
    for (let i = 0; i < 50; i++) ok((await one.hit(budgets, T0, 10_000))[0]! > 1000);
    equal(a.leases, before, "a full window is refused locally");
    // A new window: counted from 0 again; the old window is pruned in the background.
    deepStrictEqual(await one.hit(budgets, T0 + 10_000, 10_000), [1, 1]);
    // Sequential hits well within the budget: leases double (1, 2, 4, …), so 500 hits cost
    // about log2(500) round trips, and the counts stay exact on one instance.
    const solo = { leases: 0, hits: 0 };
    const three = leasedRateCounter(store, undefined, solo);
    const seen = [];
    for (let i = 0; i < 500; i++) {
      seen.push((await three.hit([{ bucket: "k:solo", limit: 10_000 }], T0, 10_000))[0]);
    }
    ok(solo.leases <= 10, `${solo.leases} round trips for 500 hits`);
    ok(seen.every((n, i) => n! <= i + 1), "reports at most the hits counted so far");
  },
);

backendTest(
  "the pages' attempts count through the same limiter: each hit in the shared row at once, exact across instances",
  async (db) => {
    // Two instances' counters on one database: the rows hold every hit, none is leased ahead.
    const store = await db.open();
    const one = storeRateCounter(store), two = storeRateCounter(await db.open());
    const budget = { bucket: "w:link:a:203.0.113.7", limit: 3 };
    const windowMs = 15 * 60_000;
    const now = T0 + 61_000; // 61 s into a 15-minute window
    const seen = [];
    for (const c of [one, two, one, two]) seen.push(await hitBudget(c, budget, now, windowMs));
    deepStrictEqual(seen.map((h) => h.within), [true, true, true, false]);
    equal(seen[3]!.resetSeconds, 15 * 60 - 61, "seconds until the window ends");
    // The next window starts from 0 again.
    ok((await hitBudget(two, budget, T0 + windowMs, windowMs)).within);
    const [row] = await store.hitRateWindows([budget.bucket], T0, [0]);
    equal(row, 4, "all four hits of the first window are in the row");
  },
);

Deno.test("[token] fixed windows: the start and the seconds left, at least 1; an in-memory counter forgets past windows", async () => {
  deepStrictEqual(fixedWindow(T0 + 9_999, 10_000), { start: T0, resetSeconds: 1 });
  deepStrictEqual(fixedWindow(T0 + 200, 10_000), { start: T0, resetSeconds: 10 });
  const memory = memoryRateCounter();
  const budget = { bucket: "k:key", limit: 1 };
  ok((await hitBudget(memory, budget, T0, 10_000)).within);
  equal((await hitBudget(memory, budget, T0 + 1, 10_000)).within, false);
  ok((await hitBudget(memory, budget, T0 + 10_000, 10_000)).within);
});
