/**
 * The request log's writer and bounds (src/token/request_log/recorder.ts; docs/token-service.md § The
 * request log), on SQLite and PostgreSQL: a noted request becomes one row once the edge gives
 * its status, error code and request id (a request never noted, none); only a 200 counts in the
 * daily usage; a folder-wide request's EIKs are cut after 20; rows older than 7 days and beyond
 * the row cap are pruned; a failed write is retried; the pages' rate-limit windows survive the
 * issuance budgets' prune and go with the sessions' prune.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { RequestLogRecorder } from "../../../src/token/request_log/recorder.ts";
import type { ApiKeyRecord, TokenStore } from "../../../src/token/store/mod.ts";
import { backendTest } from "../../_helpers/token_env.ts";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);

const key = (id: string, integratorId: string) =>
  ({ id, integratorId, mode: "test" }) as unknown as ApiKeyRecord;

function note(
  log: RequestLogRecorder,
  at: number,
  k: ApiKeyRecord,
  body: unknown,
  status: number,
  code: string | null,
  id: string,
) {
  const req = new Request("http://x/api/v1/tokens/issue", { method: "POST" });
  log.begin(req, k, at);
  log.body(req, body);
  log.finish(req, status, id, code);
}

/** The store, whose next `addRequestLog` fails once `failNext()` was called. */
function flakyStore(store: TokenStore): { flaky: TokenStore; failNext: () => void } {
  let fail = false;
  const flaky = new Proxy(store, {
    get(t, p) {
      if (p === "addRequestLog" && fail) {
        fail = false;
        return () => Promise.reject(new Error("database down"));
      }
      const v = Reflect.get(t, p);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
  return { flaky, failNext: () => fail = true };
}

backendTest("request log: rows, daily usage, EIK cut, prune by age and cap, retry", async (db) => {
  const store: TokenStore = await db.open();
  let now = NOW;
  const { flaky, failNext } = flakyStore(store);
  const errors: unknown[] = [];
  const log = new RequestLogRecorder({
    store: flaky,
    now: () => now,
    flushMs: 1000,
    onError: (e) => errors.push(e),
  });
  const a = key("key_a", "int_a"), b = key("key_b", "int_b");
  note(log, NOW - 8 * DAY, a, { typeId: "vat", eik: "111111111" }, 200, null, "r-old");
  note(log, NOW - 1000, a, { typeId: "vat", eik: "121212121" }, 200, null, "r1");
  note(log, NOW - 900, a, { typeId: "nope", eik: "121212121" }, 400, "UNKNOWN_TYPE_ID", "r2");
  const eiks = Array.from({ length: 25 }, (_, i) => String(100000000 + i));
  note(log, NOW - 800, b, { typeId: "vat_batch", eiks }, 200, null, "r3");
  // Not noted (the edge tells every answer): nothing.
  log.finish(new Request("http://x/health"), 200, "r4", null);

  failNext();
  await log.flush();
  equal(errors.length, 1, "a failed write is reported");
  now = NOW + 1;
  await log.flush(); // retried, then pruned (first prune of this recorder)

  const rowsA = await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 10 });
  deepStrictEqual(rowsA.map((r) => [r.requestId, r.status, r.errorCode, r.typeId]), [
    ["r2", 400, "UNKNOWN_TYPE_ID", "nope"],
    ["r1", 200, null, "vat"],
  ], "newest first; the row older than 7 days is pruned");
  const [rowB] = await store.listRequestLog({ integratorId: "int_b", since: 0, limit: 10 });
  equal(rowB!.eiks, `${eiks.slice(0, 20).join(",")},…+5`);
  deepStrictEqual(
    (await store.listRequestLog({ integratorId: "int_a", since: 0, status: "errors", limit: 9 }))
      .map((r) => r.requestId),
    ["r2"],
  );
  deepStrictEqual(
    (await store.listDailyUsage("int_a", "2026-11-01")).map((d) => [d.day, d.typeId, d.count]),
    [["2026-11-19", "vat", 1], ["2026-11-27", "vat", 1]],
    "only 200s are counted; the daily usage keeps 90 days",
  );

  // The cap: beyond maxRows the oldest go.
  equal(await store.pruneRequestLog(0, 1, "2000-01-01"), 2);
  deepStrictEqual(
    [
      ...(await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 })),
      ...(await store.listRequestLog({ integratorId: "int_b", since: 0, limit: 9 })),
    ].map((r) => r.requestId),
    ["r3"],
  );
});

backendTest("the pages' rate-limit windows outlive the issuance budgets' prune", async (db) => {
  const store = await db.open();
  await store.hitRateWindows(["w:link:e:a@b.test", "k:key_1"], NOW - 60_000);
  await store.pruneRateWindows(NOW);
  deepStrictEqual(await store.hitRateWindows(["w:link:e:a@b.test", "k:key_1"], NOW - 60_000), [
    2,
    1,
  ]);
  await store.pruneWeb(NOW, NOW);
  deepStrictEqual(await store.hitRateWindows(["w:link:e:a@b.test"], NOW - 60_000), [1]);
});

backendTest(
  "SVC_REQUEST_LOG=errors keeps the refused requests only, and still counts the rest",
  async (db) => {
    const store = await db.open();
    const log = new RequestLogRecorder({ store, now: () => NOW, flushMs: 1000, keep: "errors" });
    const a = key("key_a", "int_a");
    note(log, NOW - 100, a, { typeId: "vat", eik: "121212121" }, 200, null, "ok-1");
    note(log, NOW - 50, a, { typeId: "vat", eik: "999999999" }, 403, "EIK_NOT_ALLOWED", "no-1");
    await log.flush();
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 })).map((r) =>
        r.requestId
      ),
      ["no-1"],
    );
    equal((await store.listDailyUsage("int_a", "2026-11-01"))[0]?.count, 1);
  },
);

backendTest(
  "daily usage: a failed write, a key under a fresh record and a day change add up to one row a day",
  async (db) => {
    const store = await db.open();
    const { flaky, failNext } = flakyStore(store);
    const errors: unknown[] = [];
    const log = new RequestLogRecorder({
      store: flaky,
      now: () => NOW,
      flushMs: 1000,
      onError: (e) => errors.push(e),
    });
    const vat = { typeId: "vat", eik: "121212121" };
    const first = key("key_a", "int_a");
    note(log, NOW - 300, first, vat, 200, null, "d1");
    note(log, NOW - 200, first, vat, 200, null, "d2");
    failNext();
    await log.flush();
    equal(errors.length, 1);
    // The issuance cache reloaded the key: the same key, another record of it.
    const again = key("key_a", "int_a");
    note(log, NOW - 100, again, vat, 200, null, "d3");
    note(log, NOW + DAY, again, vat, 200, null, "next-day");
    note(log, NOW - 50, first, vat, 200, null, "d4"); // answered late: the day before again
    note(log, NOW - 40, first, { typeId: "vies", eik: "121212121" }, 200, null, "d5");
    await log.flush(); // one UPSERT a day, key and typeId (PostgreSQL refuses a row twice)
    deepStrictEqual(errors.length, 1, "the second write succeeds");
    deepStrictEqual(
      (await store.listDailyUsage("int_a", "2026-11-01")).map((d) => [d.day, d.typeId, d.count]),
      [["2026-11-27", "vat", 4], ["2026-11-27", "vies", 1], ["2026-11-28", "vat", 1]],
    );
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 })).map((r) =>
        r.requestId
      ),
      ["next-day", "d5", "d4", "d3", "d2", "d1"],
      "every entry once, newest first",
    );
  },
);
