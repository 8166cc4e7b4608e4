/**
 * "What happened to my request?" (docs/token-service.md § What an integrator sees): a revoked
 * or an expired key's 401 is logged under that key, an unknown key's is not (it names no
 * integrator); each entry keeps the page origin its body named and its latency; the log is read by request id, time range, status (errors, issued, one status),
 * one key and a list of keys (a mode), on SQLite and PostgreSQL.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { backendTest, tokenEnv } from "../../_helpers/token_env.ts";
import { RequestLogRecorder } from "../../../src/token/request_log/recorder.ts";
import type { ApiKeyRecord, TokenStore } from "../../../src/token/store/mod.ts";

Deno.test("[token] a revoked or expired key's 401 is in the log under its key; an unknown key's is not", async () => {
  const env = await tokenEnv();
  const live = await env.newKey("test");
  const revoked = await env.newKey("test");
  await env.store.revokeKey(revoked.record.id, env.clock.now() - 1);
  const issued = await env.issue(live.secret, { typeId: "vat", eik: "121212121" });
  equal(issued.status, 200);
  env.clock.advance(1000);
  const refused = await env.issue(revoked.secret, { typeId: "vat", eik: "121212121" });
  equal(refused.status, 401);
  const body = await refused.json();
  equal(body.errorCode, "API_KEY_REVOKED");
  env.clock.advance(1000);
  const elsewhere = await env.issue(live.secret, {
    typeId: "vat",
    eik: "121212121",
    origin: "https://elsewhere.example",
  });
  equal(elsewhere.status, 200, "no origins registered: any page origin");
  await elsewhere.body?.cancel();
  const unknown = await env.issue(`svc_test_${"A".repeat(43)}`, { typeId: "vat" });
  equal(unknown.status, 401);
  await unknown.body?.cancel();
  await env.service.requestLog.flush();
  const rows = await env.store.listRequestLog({
    integratorId: live.record.integratorId,
    since: 0,
    limit: 10,
  });
  deepStrictEqual(
    rows.map((r) => [r.keyId, r.status, r.errorCode, r.origin]),
    [
      [live.record.id, 200, null, "https://elsewhere.example"],
      [revoked.record.id, 401, "API_KEY_REVOKED", null],
      [live.record.id, 200, null, null],
    ],
  );
  equal(rows[1]!.requestId, body.requestId, "found by the requestId of its answer");
  // The latency from the key's lookup to the answer, in ms with µs precision.
  for (const r of rows) ok(typeof r.latencyMs === "number" && r.latencyMs > 0, String(r.latencyMs));
});

const NOW = Date.UTC(2026, 10, 27, 12);
const key = (id: string) =>
  ({ id, integratorId: "int_a", mode: "test" }) as unknown as ApiKeyRecord;

async function logged(store: TokenStore) {
  const log = new RequestLogRecorder({ store, now: () => NOW, flushMs: 1000 });
  const note = (at: number, k: string, status: number, code: string | null, id: string) => {
    const req = new Request("http://x/api/v1/tokens/issue", { method: "POST" });
    log.begin(req, key(k), at);
    log.body(req, { typeId: "vat", eik: "121212121" });
    log.finish(req, status, id, code);
  };
  note(NOW - 3 * 86_400_000, "key_t", 200, null, "r-old");
  note(NOW - 2000, "key_t", 200, null, "r1");
  note(NOW - 1500, "key_l", 403, "EIK_NOT_ALLOWED", "r2");
  note(NOW - 1000, "key_l", 200, null, "r3");
  note(NOW - 500, "key_t", 401, "API_KEY_REVOKED", "r4");
  await log.flush();
}

backendTest("request log: by request id, time range, status, key and keys", async (db) => {
  const store = await db.open();
  await logged(store);
  const ids = async (f: Record<string, unknown>) =>
    (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 50, ...f }))
      .map((r) => r.requestId);
  deepStrictEqual(await ids({}), ["r4", "r3", "r2", "r1", "r-old"]);
  deepStrictEqual(await ids({ requestId: "r2" }), ["r2"]);
  deepStrictEqual(await ids({ requestId: "r2", limit: 1 }), ["r2"]);
  deepStrictEqual(await ids({ requestId: "nope" }), []);
  deepStrictEqual(await ids({ since: NOW - 86_400_000 }), ["r4", "r3", "r2", "r1"]);
  deepStrictEqual(await ids({ until: NOW - 86_400_000 }), ["r-old"]);
  deepStrictEqual(await ids({ since: NOW - 1600, until: NOW - 900 }), ["r3", "r2"]);
  deepStrictEqual(await ids({ status: "errors" }), ["r4", "r2"]);
  deepStrictEqual(await ids({ status: "ok" }), ["r3", "r1", "r-old"]);
  deepStrictEqual(await ids({ status: 401 }), ["r4"]);
  deepStrictEqual(await ids({ keyId: "key_l" }), ["r3", "r2"]);
  deepStrictEqual(await ids({ keyIds: ["key_t"] }), ["r4", "r1", "r-old"]);
  deepStrictEqual(await ids({ keyIds: [] }), []);
  deepStrictEqual(
    (await store.listRequestLog({ integratorId: "int_b", since: 0, limit: 50, requestId: "r2" }))
      .length,
    0,
    "another integrator's request is never found",
  );
});
