/**
 * Where a running request log recorder writes (src/token/store/request_log_writer.ts; docs/token-service.md
 * § The request log): on a SQLite file a worker thread with its own connection, on PostgreSQL the
 * store in this thread. Every row noted reaches the database: a flush resolves once its batch is
 * committed, a full batch starts a flush before the interval, `stop()` writes the rest and ends
 * the thread (a clean shutdown); a batch the worker rolled back is reported and nothing of it is
 * written; a worker that cannot open the file hands over to the main thread without losing rows.
 */
import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { BATCH_ROWS, RequestLogRecorder } from "../../../src/token/request_log/recorder.ts";
import { threadRequestLogWriter } from "../../../src/token/store/request_log_writer.ts";
import { requestLogBlocks } from "../../../src/token/store/request_log_blocks.ts";
import type {
  ApiKeyRecord,
  RequestLogEntry,
  RequestLogWriter,
  TokenStore,
} from "../../../src/token/store/mod.ts";
import { backendTest, testDb } from "../../_helpers/token_env.ts";

const NOW = Date.UTC(2026, 10, 27, 12);
const KEY = { id: "key_a", integratorId: "int_a", mode: "test" } as unknown as ApiKeyRecord;

function note(log: RequestLogRecorder, i: number, status = 200) {
  const req = new Request("http://x/api/v1/tokens/issue", { method: "POST" });
  log.begin(req, KEY, NOW - 10_000 + i);
  log.body(req, { typeId: "vat", eik: "121212121" });
  log.finish(req, status, `r${i}`, status === 200 ? null : "EIK_NOT_ALLOWED");
}

const entry = (requestId: string, status: number): RequestLogEntry => ({
  at: NOW,
  integratorId: "int_a",
  keyId: "key_a",
  typeId: "vat",
  eiks: "121212121",
  status,
  errorCode: null,
  requestId,
});

backendTest(
  "a started request log writes every row (off the request thread on SQLite); stop writes the rest",
  async (db) => {
    const real = await db.open();
    const batches: number[] = [];
    // The store's own writer, its batch sizes noted.
    const store = new Proxy(real, {
      get(t, p) {
        if (p !== "requestLogWriter") return Reflect.get(t, p);
        return (onFallback: (e: Error) => void): RequestLogWriter => {
          const w = t.requestLogWriter(onFallback);
          return {
            offThread: () => w.offThread(),
            write: (blocks, daily) => (
              batches.push(blocks.reduce((n, b) => n + b.entries, 0)), w.write(blocks, daily)
            ),
            close: () => w.close(),
          };
        };
      },
    }) as TokenStore;
    const errors: unknown[] = [];
    const log = new RequestLogRecorder({
      store,
      now: () => NOW,
      flushMs: 60_000,
      onError: (e) => errors.push(e),
    });
    log.start();
    equal(log.offThread, db.backend === "sqlite", "a worker thread on SQLite only");
    note(log, 0);
    note(log, 1, 403);
    note(log, 2);
    await log.flush();
    const first = await real.listRequestLog({ integratorId: "int_a", since: 0, limit: 10 });
    deepStrictEqual(
      first.map((r) => [r.requestId, r.status, r.errorCode, r.typeId, r.eiks]),
      [
        ["r2", 200, null, "vat", "121212121"],
        ["r1", 403, "EIK_NOT_ALLOWED", "vat", "121212121"],
        ["r0", 200, null, "vat", "121212121"],
      ],
      "flush() resolves once the rows are committed",
    );
    // A full batch is written before the interval (60 s here) is over.
    for (let i = 3; i < 3 + BATCH_ROWS; i++) note(log, i);
    await new Promise((r) => setTimeout(r, 0)); // the batch's flush has taken the buffer
    note(log, 3 + BATCH_ROWS);
    note(log, 4 + BATCH_ROWS);
    await log.stop();
    equal(log.offThread, false, "the thread is ended");
    deepStrictEqual(batches, [3, BATCH_ROWS, 2]);
    const all = await real.listRequestLog({
      integratorId: "int_a",
      since: 0,
      limit: 2 * BATCH_ROWS,
    });
    equal(all.length, 3 + BATCH_ROWS + 2, "no row lost, none twice");
    equal(new Set(all.map((r) => r.requestId)).size, all.length);
    equal((await real.listDailyUsage("int_a", "2026-11-01"))[0]?.count, 2 + BATCH_ROWS + 2);
    deepStrictEqual(errors, []);
  },
);

Deno.test("[token/sqlite] the writer thread rolls back a batch it cannot write, and goes on", async () => {
  const db = await testDb("sqlite");
  try {
    const store = await db.open();
    const fallbacks: Error[] = [];
    const w = store.requestLogWriter((e) => fallbacks.push(e));
    ok(w.offThread());
    // A block's integrator_id is NOT NULL: the second entry's block fails, so the first is not
    // written either.
    const bad = [
      entry("ok-1", 200),
      { ...entry("bad", 200), integratorId: null as unknown as string },
    ];
    await rejects(w.write(requestLogBlocks(bad), []), /NOT NULL/);
    await w.write(requestLogBlocks([entry("ok-2", 200)]), [{
      day: "2026-11-27",
      integratorId: "int_a",
      keyId: "key_a",
      typeId: "vat",
      count: 3,
    }]);
    await w.close();
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 })).map((r) =>
        r.requestId
      ),
      ["ok-2"],
    );
    equal((await store.listDailyUsage("int_a", "2026-11-01"))[0]?.count, 3);
    deepStrictEqual(fallbacks, [], "a failed batch is not a failed thread");
  } finally {
    await db.cleanup();
  }
});

Deno.test("[token/sqlite] a writer thread that cannot open its file hands over to this thread", async () => {
  const db = await testDb("sqlite");
  try {
    const store = await db.open();
    const fallbacks: Error[] = [];
    const dir = await Deno.makeTempDir({ prefix: "svc-log-writer-" });
    const w = threadRequestLogWriter(
      join(dir, "missing", "x.sqlite"),
      store,
      (e) => fallbacks.push(e),
    );
    await w.write(requestLogBlocks([entry("kept", 403)]), []);
    equal(w.offThread(), false);
    equal(fallbacks.length, 1);
    match(fallbacks[0]!.message, /request log writer thread: .*writing in the main thread/);
    await w.close();
    await Deno.remove(dir, { recursive: true });
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 })).map((r) =>
        r.requestId
      ),
      ["kept"],
      "the row went to the store",
    );
  } finally {
    await db.cleanup();
  }
});

Deno.test("the writer thread's module serves only in a worker: imported here it takes no messages", async () => {
  const scope = globalThis as unknown as { onmessage?: unknown };
  const before = scope.onmessage;
  const thread = await import("../../../src/token/store/request_log_thread.ts");
  equal(typeof thread.serveRequestLog, "function");
  equal(scope.onmessage, before, "this thread's onmessage is left alone");
});
