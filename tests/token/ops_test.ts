/**
 * Operations of the token service (docs/token-service.md § Operations): `/health`, `/ready`
 * (database reachable, migrations current, not shutting down), the access log (one entry per
 * request, never a credential), 503 DATABASE_UNAVAILABLE for an outage instead of 500.
 */
import { equal, ok } from "node:assert/strict";
import { FakeClock } from "../../src/clock.ts";
import { createApiKey } from "../../src/token/access/api_keys.ts";
import type { AccessLogEntry } from "../../src/token/edge/request_edge.ts";
import { createTokenService } from "../../src/token/service.ts";
import { isDatabaseUnavailable } from "../../src/token/store/db_errors.ts";
import { sqliteTokenStore, type TokenStore } from "../../src/token/store/mod.ts";
import { backendTest, TEST_ISSUER } from "../_helpers/token_env.ts";

async function service(store: TokenStore, lines?: unknown[]) {
  return await createTokenService({
    store,
    clock: new FakeClock(),
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
    accessLog: lines !== undefined,
    log: (level, msg, fields) => lines?.push({ level, msg, ...fields }),
  });
}

backendTest(
  "/ready answers 200 with the schema version, 503 SERVICE_NOT_READY when migrations are pending or the instance drains",
  async (db) => {
    const store = await db.open();
    const s = await service(store);
    equal((await s.app.request("/health")).status, 200);
    const ready = await s.app.request("/ready");
    equal(ready.status, 200);
    const body = await ready.json();
    equal(body.status, "ready");
    ok(body.schemaVersion >= 5);
    const status = await store.schemaStatus();
    equal(status.pending.length, 0);

    s.drain.draining = true;
    const draining = await s.app.request("/ready");
    equal(draining.status, 503);
    equal((await draining.json()).details.reason, "shutting_down");
    const health = await s.app.request("/health");
    equal(health.status, 200, "alive while draining");
    equal(
      health.headers.get("connection"),
      "close",
      "answers close their connection while draining",
    );
    s.drain.draining = false;

    // A schema behind this build (a migration row removed) is not ready.
    const other = await db.open();
    const cut = {
      ...other,
      schemaStatus: async () => ({ ...(await other.schemaStatus()), pending: [5] }),
    };
    const behind = await (await service(cut)).app.request("/ready");
    equal(behind.status, 503);
    const b = await behind.json();
    equal(b.errorCode, "SERVICE_NOT_READY");
    equal(b.details.reason, "migrations_pending");
  },
);

Deno.test("[token] /ready is 503 database_unreachable when the database does not answer", async () => {
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const s = await service(store);
  await store.close();
  const r = await s.app.request("/ready");
  equal(r.status, 503);
  const body = await r.json();
  equal(body.errorCode, "SERVICE_NOT_READY");
  equal(body.details.reason, "database_unreachable");
  equal(r.headers.get("retry-after"), "5");
});

Deno.test("[token] an unreachable database answers 503 DATABASE_UNAVAILABLE, not 500", async () => {
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const { secret } = await createApiKey(store, { mode: "test", now: Date.UTC(2026, 10, 1, 8) });
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
    code: "ECONNREFUSED",
  });
  const down = { ...store, findKeyForIssue: () => Promise.reject(refused) };
  const s = await service(down);
  const r = await s.app.request("/api/v1/tokens/issue", {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
  });
  equal(r.status, 503);
  equal(r.headers.get("retry-after"), "5");
  const body = await r.json();
  equal(body.errorCode, "DATABASE_UNAVAILABLE");
  ok(!JSON.stringify(body).includes("ECONNREFUSED"), "no driver detail on the wire");
  await store.close();
});

Deno.test("[token] isDatabaseUnavailable: connection and server-shutdown errors, not bugs or bad queries", () => {
  const e = (code: string) => Object.assign(new Error(code), { code });
  for (const code of ["ECONNREFUSED", "CONNECTION_CLOSED", "CONNECT_TIMEOUT", "57P01", "57P03"]) {
    ok(isDatabaseUnavailable(e(code)), code);
  }
  ok(isDatabaseUnavailable(new Error("wrapped", { cause: e("ECONNRESET") })));
  for (const code of ["23505", "42P01", "ERR_SQLITE_ERROR"]) {
    ok(!isDatabaseUnavailable(e(code)), code);
  }
  ok(!isDatabaseUnavailable(new TypeError("x is undefined")));
});

Deno.test("[token] the access log: one line per request with method, path, status, ms and requestId, never the key", async () => {
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const lines: Record<string, unknown>[] = [];
  const s = await service(store, lines);
  const { secret } = await createApiKey(store, { mode: "test", now: Date.UTC(2026, 10, 1, 8) });
  const first = await s.app.request("/api/v1/tokens/issue?x=1", {
    method: "POST",
    headers: {
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
      "x-request-id": "req-42",
    },
    body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
  });
  const second = await s.app.request("/nowhere");
  const access = lines.filter((l) => l.msg === "request") as unknown as (
    & AccessLogEntry
    & { level: string }
  )[];
  equal(access.length, 2);
  equal(access[0]!.level, "info");
  equal(access[0]!.method, "POST");
  equal(access[0]!.path, "/api/v1/tokens/issue");
  equal(access[0]!.status, 200);
  ok(typeof access[0]!.ms === "number" && access[0]!.ms >= 0);
  // The id the answer carries (X-Request-Id, src/token/edge/request_edge.ts): the caller's own, well formed.
  equal(first.headers.get("x-request-id"), "req-42");
  equal(access[0]!.requestId, first.headers.get("x-request-id"));
  equal(access[1]!.status, 404);
  equal(access[1]!.requestId, second.headers.get("x-request-id"));
  const text = JSON.stringify(lines);
  ok(!text.includes(secret) && !text.includes("svc_test_") && !text.includes("eyJ"), text);
  await store.close();
});

Deno.test("[token] a well-formed X-Request-Id of the caller (a proxy's) is kept; any other is replaced", async () => {
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const s = await service(store, []);
  const idOf = async (given: string) =>
    (await s.app.request("/health", { headers: { "x-request-id": given } })).headers.get(
      "x-request-id",
    );
  const nginx = "6f1c0b8e2a7d4c3b9e5f1a2b3c4d5e6f";
  equal(await idOf(nginx), nginx);
  for (const bad of ["", "a b", "x\u0001y", "-lead", "a".repeat(129), "é-accent"]) {
    const id = await idOf(bad);
    ok(id && id !== bad && /^[0-9a-f-]{36}$/.test(id), `"${bad}" replaced by ${id}`);
  }
});

Deno.test("[token] the edge counts every request in flight and back, even when an answer fails", async () => {
  const { Hono } = await import("hono");
  const { withEdge } = await import("../../src/token/edge/request_edge.ts");
  const drain = { draining: false, inFlight: 0 };
  const app = new Hono();
  app.get("/ok", (c) => c.text("ok"));
  let ids = 0;
  withEdge(app, {
    drain,
    randomId: () => {
      if (++ids === 2) throw new Error("no id source");
      return `id-${ids}`;
    },
  });
  equal((await app.request("/ok")).headers.get("x-request-id"), "id-1");
  equal(drain.inFlight, 0);
  await Promise.resolve(app.request("/ok")).then(
    () => ok(false, "the id source failed"),
    () => {},
  );
  equal(drain.inFlight, 0, "a failure before the answer leaves no request counted");
  drain.draining = true;
  const closing = await app.request("/ok");
  equal(closing.headers.get("connection"), "close");
  equal(drain.inFlight, 0);
});
