/**
 * How the request log is stored (docs/token-service.md § The request log): in blocks, one row of
 * `request_log_blocks` per API key and flush, each holding the entries of at most
 * {@link BLOCK_SPAN_MS} as one JSON array. A block costs one row and two index entries in the
 * database for up to a thousand requests, where a row per request cost its two index entries
 * each (about 2 µs of the three to four a request took on SQLite; BENCHMARKS.md § The profile).
 * The reader (request_log_queries.ts) decodes the blocks of one integrator, newest first, and
 * filters their entries.
 *
 * {@link requestLogBlocks} also runs inside the request log's writer thread, which receives its
 * source as text (log_writer_worker.ts): it names nothing outside itself.
 * @module
 */
import type { RequestLogEntry } from "./web_store.ts";

/** The time one block covers at most, ms: the age prune then rewrites at most the blocks of the
 * last minute before its bound. */
export const BLOCK_SPAN_MS = 60_000;
/** Values per entry in a flat batch: at, integratorId, keyId, typeId, eiks, status, errorCode,
 * requestId. */
export const ENTRY_FIELDS = 8;
/** Values per block in a flat list of blocks: integrator_id, key_id, first_at, last_at,
 * entries, errors, body. */
export const BLOCK_FIELDS = 7;

/**
 * A batch of entries as one flat array, {@link ENTRY_FIELDS} values an entry (cheaper to copy to
 * a thread than objects).
 * @param entries the entries
 * @returns their values, one after another
 * @example
 * ```ts
 * import { packEntries } from "./log_blocks.ts";
 * const flat = packEntries([{ at: 1, integratorId: "int_a", keyId: "key_a", typeId: "vat",
 *   eiks: "121212121", status: 200, errorCode: null, requestId: "r1" }]);
 * if (flat.length !== 8 || flat[7] !== "r1") throw new Error("not packed");
 * ```
 */
export function packEntries(entries: readonly RequestLogEntry[]): unknown[] {
  const rows = new Array<unknown>(entries.length * ENTRY_FIELDS);
  let i = 0;
  for (const e of entries) {
    rows[i++] = e.at;
    rows[i++] = e.integratorId;
    rows[i++] = e.keyId;
    rows[i++] = e.typeId;
    rows[i++] = e.eiks;
    rows[i++] = e.status;
    rows[i++] = e.errorCode;
    rows[i++] = e.requestId;
  }
  return rows;
}

/**
 * Group a flat batch (see {@link packEntries}) into blocks: one per API key, a new one when an
 * entry would make a block cover more than `spanMs`. Self-contained (it runs in the writer
 * thread from its source text).
 * @param rows the batch, 8 values an entry
 * @param spanMs the most time one block covers, ms ({@link BLOCK_SPAN_MS})
 * @returns the blocks, 7 values each: integrator_id, key_id, first_at, last_at (epoch ms),
 *   entries, errors (entries with status ≥ 400), body (JSON array of `[at, typeId, eiks,
 *   status, errorCode, requestId]`, in the batch's order)
 * @example
 * ```ts
 * import { requestLogBlocks } from "./log_blocks.ts";
 * const rows = [1000, "int_a", "key_a", "vat", "121212121", 200, null, "r1",
 *   1500, "int_a", "key_a", "vat", "121212121", 403, "EIK_NOT_ALLOWED", "r2"];
 * const blocks = requestLogBlocks(rows, 60_000);
 * if (blocks.length !== 7 || blocks[4] !== 2 || blocks[5] !== 1) throw new Error("one block");
 * if (requestLogBlocks(rows, 100).length !== 14) throw new Error("two blocks");
 * ```
 */
export function requestLogBlocks(rows: readonly unknown[], spanMs: number): unknown[] {
  interface Open {
    integratorId: unknown;
    keyId: unknown;
    first: number;
    last: number;
    errors: number;
    body: unknown[][];
  }
  const open = new Map<string, Open>();
  const out: unknown[] = [];
  const close = (b: Open) =>
    out.push(
      b.integratorId,
      b.keyId,
      b.first,
      b.last,
      b.body.length,
      b.errors,
      JSON.stringify(b.body),
    );
  for (let i = 0; i + 7 < rows.length; i += 8) {
    const at = rows[i] as number, status = rows[i + 5] as number;
    const id = `${rows[i + 1]}\u0000${rows[i + 2]}`;
    let b = open.get(id);
    if (b && (Math.max(b.last, at) - Math.min(b.first, at) > spanMs)) {
      close(b);
      b = undefined;
    }
    if (!b) {
      b = {
        integratorId: rows[i + 1],
        keyId: rows[i + 2],
        first: at,
        last: at,
        errors: 0,
        body: [],
      };
      open.set(id, b);
    }
    if (at < b.first) b.first = at;
    if (at > b.last) b.last = at;
    if (status >= 400) b.errors++;
    b.body.push([at, rows[i + 3], rows[i + 4], status, rows[i + 6], rows[i + 7]]);
  }
  for (const b of open.values()) close(b);
  return out;
}

/**
 * The entries of a stored block.
 * @param integratorId its `integrator_id`
 * @param keyId its `key_id`
 * @param body its `body` (see {@link requestLogBlocks})
 * @returns its entries, newest last as written; none when the body is not a JSON array of
 *   arrays (a row damaged by hand reads as empty rather than failing the page)
 */
export function blockEntries(integratorId: string, keyId: string, body: string): RequestLogEntry[] {
  let list: unknown;
  try {
    list = JSON.parse(body);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return list.filter(Array.isArray).map((e: unknown[]) => ({
    at: Number(e[0]),
    integratorId,
    keyId,
    typeId: String(e[1] ?? ""),
    eiks: String(e[2] ?? ""),
    status: Number(e[3]),
    errorCode: e[4] == null ? null : String(e[4]),
    requestId: String(e[5] ?? ""),
  }));
}
