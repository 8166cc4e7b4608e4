/**
 * Where the request log recorder (request_log/recorder.ts) writes its rows while the service runs
 * (docs/token-service.md § The request log). On a SQLite file the blocks (request_log_blocks.ts,
 * held as columns by the recorder as requests are answered) are written by a worker thread with its
 * own connection (request_log_thread.ts, started from its bundle request_log_thread_js.ts, which
 * `deno task gen` makes), so that packing their bodies, the inserts and their commit do not hold
 * the event loop that answers token requests (BENCHMARKS.md § The profile); the main thread only
 * copies each batch's blocks to the worker. On PostgreSQL, and on an in-memory SQLite database (one
 * connection only), {@link RequestLogStore.addRequestLog} writes them, as before: PostgreSQL's
 * writes are asynchronous already.
 *
 * A worker that cannot start or open the file (or dies) is replaced by the in-thread writer,
 * reported once through `onFallback`; a batch it had not committed is rejected (the recorder
 * keeps it for the next flush), so no row is lost.
 * @module
 */
import { REQUEST_LOG_THREAD_JS } from "./request_log_thread_js.ts";
import type { DailyUsageRow, LogBlock, RequestLogWriter } from "./web_store.ts";

/** The SQLite statements of the worker, one block each (the same columns as
 * request_log_queries.ts). */
export const SQLITE_BLOCK_INSERT = "INSERT INTO request_log_blocks (integrator_id, key_id, " +
  "first_at, last_at, entries, errors, body, packed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
/** The daily usage upsert of the worker, one row each. */
export const SQLITE_DAILY_UPSERT = "INSERT INTO usage_daily (day, integrator_id, key_id, " +
  "type_id, count) VALUES (?, ?, ?, ?, ?) ON CONFLICT (integrator_id, day, key_id, type_id) " +
  "DO UPDATE SET count = usage_daily.count + excluded.count";

/** What a request log writer falls back on: the store's own in-thread write. */
export interface RequestLogStore {
  addRequestLog(
    blocks: readonly LogBlock[],
    daily: readonly DailyUsageRow[],
  ): Promise<void>;
}

/**
 * The in-thread writer: `store.addRequestLog`.
 * @param store the token store
 * @returns a writer whose `close()` does nothing
 */
export function inlineRequestLogWriter(store: RequestLogStore): RequestLogWriter {
  return {
    offThread: () => false,
    write: (blocks, daily) => store.addRequestLog(blocks, daily),
    close: () => Promise.resolve(),
  };
}

interface Waiting {
  resolve(): void;
  reject(e: Error): void;
}

/**
 * A writer on a worker thread with its own connection to the SQLite file at `path` (already
 * migrated by the main connection). The worker starts at once; writes made before it has
 * opened the file wait for it.
 * @param path the SQLite database file
 * @param store the in-thread fallback
 * @param onFallback told once, with the reason, when the worker is given up for the fallback
 * @returns the writer; `write()` resolves once the batch is committed (one transaction) and
 *   rejects with the database's error when it was rolled back; `close()` closes the worker's
 *   connection and ends the thread
 */
export function threadRequestLogWriter(
  path: string,
  store: RequestLogStore,
  onFallback: (e: Error) => void,
): RequestLogWriter {
  const inline = inlineRequestLogWriter(store);
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let worker: Worker | null = null;
  let failed = false;
  let open: boolean | null = null; // null until the worker has answered
  let opened: (ok: boolean) => void = () => {};
  const ready = new Promise<boolean>((r) => opened = (ok) => r(open = ok));
  let closed: () => void = () => {};
  // The worker's module (request_log_thread.ts), bundled into one text by `deno task gen`: a
  // module URL would be left out of the packages' one-file bundle (docs/architecture.md § Layout).
  const url = URL.createObjectURL(
    new Blob([REQUEST_LOG_THREAD_JS], { type: "text/javascript" }),
  );

  const giveUp = (why: string) => {
    if (failed) return;
    failed = true;
    const e = new Error(`request log writer thread: ${why}; writing in the main thread`);
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
    worker?.terminate();
    worker = null;
    URL.revokeObjectURL(url);
    opened(false);
    closed();
    onFallback(e);
  };

  try {
    worker = new Worker(url, { type: "module", name: "request-log-writer" });
    worker.onmessage = (e: MessageEvent) => {
      const m = e.data as { kind: string; id?: number; error?: string };
      if (m.kind === "open") {
        URL.revokeObjectURL(url);
        if (m.error) giveUp(m.error);
        else opened(true);
      } else if (m.kind === "write") {
        // non-null: the worker answers every write with the id it was sent
        const w = waiting.get(m.id!);
        // non-null: the worker answers every write with the id it was sent
        waiting.delete(m.id!);
        if (m.error) w?.reject(new Error(m.error));
        else w?.resolve();
      } else if (m.kind === "close") closed();
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault(); // handled here: the process goes on with the fallback
      giveUp(e.message);
    };
    worker.postMessage({
      kind: "open",
      path,
      blockInsert: SQLITE_BLOCK_INSERT,
      dailyUpsert: SQLITE_DAILY_UPSERT,
    });
  } catch (e) {
    giveUp(String(e));
  }

  const post = (blocks: readonly LogBlock[], daily: readonly DailyUsageRow[]) => {
    if (!worker) return inline.write(blocks, daily);
    // The blocks as they are (a few a batch): their columns are copied to the thread, which
    // packs their bodies.
    const days = daily.flatMap((d) => [d.day, d.integratorId, d.keyId, d.typeId, d.count]);
    const id = nextId++;
    const w = worker;
    return new Promise<void>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      w.postMessage({ kind: "write", id, blocks, daily: days });
    });
  };

  return {
    offThread: () => !failed,
    // Once the worker is open, the batch is copied to it before write() returns.
    write: (blocks, daily) =>
      open === null ? ready.then(() => post(blocks, daily)) : post(blocks, daily),
    async close() {
      if (!(await ready) || !worker) return;
      const w = worker;
      const done = new Promise<void>((r) => closed = r);
      w.postMessage({ kind: "close" });
      await done;
      w.terminate();
      worker = null;
    },
  };
}
