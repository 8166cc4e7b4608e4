/**
 * The request log's writer thread (request_log_writer.ts): a Web Worker with its own SQLite
 * connection that packs request log blocks' bodies (request_log_blocks.ts `blockValues`, over
 * request_log_block_body.ts), appends them and adds daily usage counts, so that this work does
 * not run on the thread answering token requests (BENCHMARKS.md § The profile).
 *
 * This file is the worker's module. `deno task gen` bundles it with what it imports into one
 * JavaScript text, request_log_thread_js.ts (generated: `deno task gen --check` fails when it
 * is stale), which the writer starts from a `blob:` URL; so the thread is the same code in the
 * source tree, in the packages' one-file bundle and in a compiled binary, where `deno bundle`
 * would leave a `new Worker(new URL("./request_log_thread.ts", import.meta.url))` out
 * (docs/architecture.md § Layout). Imported on the main thread, it only defines
 * {@link serveRequestLog}; in a worker it serves the protocol at once.
 *
 * Protocol (structured-cloned messages):
 * - main → worker `{ kind: "open", path, blockInsert, dailyUpsert }`; answer
 *   `{ kind: "open" }` or `{ kind: "open", error }` (the database cannot be opened, a statement
 *   does not prepare).
 * - main → worker `{ kind: "write", id, blocks, daily }`: `blocks` are `LogBlock`s (web_store.ts:
 *   a key's entries as columns), each written as one row with its packed body; `daily` holds 5
 *   values per daily usage row (day, integratorId, keyId, typeId, count); both written in one
 *   `BEGIN IMMEDIATE` transaction; answer `{ kind: "write", id }` once committed, or
 *   `{ kind: "write", id, error }` after a rollback (nothing of it written).
 * - main → worker `{ kind: "close" }`: the connection is closed; answer `{ kind: "close" }`.
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { blockValues } from "./request_log_blocks.ts";
import type { LogBlock } from "./web_store.ts";

/** What the thread uses of its global scope (a worker's `self`). */
export interface ThreadScope {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(m: unknown): void;
}

/**
 * Serve the protocol above on `scope`: messages are handled one at a time, in order.
 * @param scope the worker's global scope
 * @throws never: every failure is answered as a message's `error`
 */
export function serveRequestLog(scope: ThreadScope): void {
  let db: DatabaseSync | null = null;
  let blockInsert: StatementSync | null = null;
  let dailyUpsert: StatementSync | null = null;
  scope.onmessage = (e: MessageEvent) => {
    const m = e.data as Record<string, unknown>;
    if (m.kind === "open") {
      try {
        const conn = new DatabaseSync(String(m.path));
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
    const blocks = m.blocks as LogBlock[], daily = m.daily as (string | number)[];
    try {
      const rows = blocks.map(blockValues); // before the transaction: the lock is held less long
      db.exec("BEGIN IMMEDIATE");
      for (const row of rows) blockInsert.run(...row);
      for (let i = 0; i < daily.length; i += 5) dailyUpsert.run(...daily.slice(i, i + 5));
      db.exec("COMMIT");
      scope.postMessage({ kind: "write", id });
    } catch (err) {
      if (db.isTransaction) db.exec("ROLLBACK");
      scope.postMessage({ kind: "write", id, error: String(err) });
    }
  };
}

// In a worker (the global scope is a WorkerGlobalScope), serve at once.
if ("WorkerGlobalScope" in globalThis) serveRequestLog(globalThis as unknown as ThreadScope);
