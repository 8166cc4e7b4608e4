/**
 * The body of the request log's writer thread (request_log_writer.ts): a Web Worker with its own
 * SQLite connection that packs request log blocks' bodies (request_log_block_body.ts), appends them and adds daily
 * usage counts, so that this work does not run on the thread answering token requests
 * (BENCHMARKS.md § The profile). The worker is started from a `blob:` URL holding this
 * function's source called with request_log_blocks.ts `blockValues` (after request_log_block_body.ts `blockBody`, which it names),
 * which exist in the source tree, in `dist/svc-filing.bundle.js` and in a compiled binary alike;
 * so the function imports nothing (only `node:sqlite`, a runtime built-in, dynamically), names
 * nothing outside itself and its argument, and receives its SQL from the main thread.
 *
 * Protocol (structured-cloned messages):
 * - main → worker `{ kind: "open", path, blockInsert, dailyUpsert }`; answer
 *   `{ kind: "open" }` or `{ kind: "open", error }` (the database cannot be opened, a statement
 *   does not prepare).
 * - main → worker `{ kind: "write", id, blocks, daily }`: `blocks` are `LogBlock`s (web_store.ts:
 *   a key's entries as columns), each written as one row with its packed body; `daily` holds 5
 *   values per daily usage row (day, integratorId, keyId, typeId, count); both written in one
 *   `BEGIN IMMEDIATE`
 *   transaction; answer `{ kind: "write", id }` once committed, or `{ kind: "write", id, error }`
 *   after a rollback (nothing of it written).
 * - main → worker `{ kind: "close" }`: the connection is closed; answer `{ kind: "close" }`.
 * @module
 */
import type { LogBlock } from "./web_store.ts";

/**
 * The worker's entry point; run as `(${requestLogThread})(${blockValues})` inside the worker.
 * @param valuesOf request_log_blocks.ts `blockValues`: a block's row, its body packed
 */
export function requestLogThread(valuesOf: (b: LogBlock) => unknown[]): void {
  const scope = globalThis as unknown as {
    onmessage: ((e: MessageEvent) => void) | null;
    postMessage(m: unknown): void;
  };
  // Types from node:sqlite, written out: this body may import nothing statically.
  type Stmt = { run(...v: unknown[]): unknown };
  type Conn = {
    exec(q: string): void;
    prepare(q: string): Stmt;
    close(): void;
    readonly isTransaction: boolean;
  };
  let db: Conn | null = null;
  let blockInsert: Stmt | null = null;
  let dailyUpsert: Stmt | null = null;
  // Messages are handled one at a time, in order (opening is asynchronous: the import).
  let queue: Promise<void> = Promise.resolve();
  scope.onmessage = (e: MessageEvent) => {
    queue = queue.then(() => handle(e.data));
  };

  async function handle(m: Record<string, unknown>): Promise<void> {
    if (m.kind === "open") {
      try {
        const sqlite = await import("node:sqlite");
        const conn = new sqlite.DatabaseSync(String(m.path)) as unknown as Conn;
        // The main connection set WAL mode on the file; this one waits up to 5 s for its lock,
        // and commits without an fsync each (synchronous NORMAL: in WAL mode the file stays
        // consistent; an OS crash or a power cut may lose the last commits, as a crash of the
        // service loses its last second of entries; docs/token-service.md § The request log).
        conn.exec("PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;");
        blockInsert = conn.prepare(String(m.blockInsert));
        dailyUpsert = conn.prepare(String(m.dailyUpsert));
        db = conn;
        scope.postMessage({ kind: "open" });
      } catch (err) {
        scope.postMessage({ kind: "open", error: String(err) });
      }
      return;
    }
    if (m.kind === "close") {
      db?.close();
      db = null;
      scope.postMessage({ kind: "close" });
      return;
    }
    const id = m.id;
    if (!db || !blockInsert || !dailyUpsert) {
      scope.postMessage({ kind: "write", id, error: "the request log database is not open" });
      return;
    }
    const blocks = m.blocks as LogBlock[], daily = m.daily as unknown[];
    try {
      const rows = blocks.map(valuesOf); // before the transaction: the lock is held less long
      db.exec("BEGIN IMMEDIATE");
      for (const row of rows) blockInsert.run(...row);
      for (let i = 0; i < daily.length; i += 5) {
        dailyUpsert.run(daily[i], daily[i + 1], daily[i + 2], daily[i + 3], daily[i + 4]);
      }
      db.exec("COMMIT");
      scope.postMessage({ kind: "write", id });
    } catch (err) {
      if (db.isTransaction) db.exec("ROLLBACK");
      scope.postMessage({ kind: "write", id, error: String(err) });
    }
  }
}
