/**
 * How the request log is stored (docs/token-service.md § The request log): in blocks, one row of
 * `request_log_blocks` per API key and flush, each holding the entries of at most
 * {@link BLOCK_SPAN_MS} as one JSON array. A block costs one row and two index entries in the
 * database for up to a thousand requests, where a row per request cost its two index entries
 * each (about 2 µs of the three to four a request took on SQLite; BENCHMARKS.md § The profile).
 * The reader (request_log_queries.ts) decodes the blocks of one integrator, newest first, and
 * filters their entries.
 *
 * Blocks are built as the requests are answered ({@link BlockBuilder}, in the request log's
 * recorder), so the writer thread (log_writer_worker.ts) only inserts ready rows.
 * @module
 */
import type { LogBlock, RequestLogEntry } from "./web_store.ts";

/** The time one block covers at most, ms: the age prune then rewrites at most the blocks of the
 * last minute before its bound. */
export const BLOCK_SPAN_MS = 60_000;

interface OpenBlock {
  integratorId: string;
  keyId: string;
  firstAt: number;
  lastAt: number;
  entries: number;
  errors: number;
  /** The entries as the body lists them (encoded once, when the block is taken). */
  rows: unknown[][];
}

/**
 * Entries grouped into blocks as they come (the one encoder of a block's body): one open block
 * per API key, closed when an entry would make it cover more than `spanMs`; each block's body is
 * encoded once, when taken. The request log's recorder adds each answered request here, so a
 * batch reaches the database (or the writer thread) as a few ready rows (BENCHMARKS.md § The
 * profile).
 * @example
 * ```ts
 * import { BlockBuilder } from "./log_blocks.ts";
 * const b = new BlockBuilder(60_000);
 * b.add("int_a", "key_a", 1000, "vat", "121212121", 200, null, "r1");
 * b.add("int_a", "key_a", 1500, "vat", "121212121", 403, "EIK_NOT_ALLOWED", "r2");
 * const block = b.take()[0]!;
 * if (block.entries !== 2 || block.errors !== 1 || b.size !== 0) throw new Error("one block");
 * if (JSON.parse(block.body)[1][4] !== "EIK_NOT_ALLOWED") throw new Error("as JSON");
 * ```
 */
export class BlockBuilder {
  readonly #spanMs: number;
  readonly #open = new Map<string, OpenBlock>();
  #closed: LogBlock[] = [];
  /** Entries held (open and closed blocks). */
  size = 0;

  /** @param spanMs the most time one block covers, ms ({@link BLOCK_SPAN_MS}) */
  constructor(spanMs: number = BLOCK_SPAN_MS) {
    this.#spanMs = spanMs;
  }

  /**
   * Add one entry (the fields of a {@link RequestLogEntry}; `at` in epoch ms).
   */
  add(
    integratorId: string,
    keyId: string,
    at: number,
    typeId: string,
    eiks: string,
    status: number,
    errorCode: string | null,
    requestId: string,
  ): void {
    const row = [at, typeId, eiks, status, errorCode, requestId];
    this.size++;
    let b = this.#open.get(keyId);
    if (b !== undefined && b.integratorId === integratorId) {
      const first = at < b.firstAt ? at : b.firstAt, last = at > b.lastAt ? at : b.lastAt;
      if (last - first <= this.#spanMs) {
        b.firstAt = first;
        b.lastAt = last;
        b.entries++;
        if (status >= 400) b.errors++;
        b.rows.push(row);
        return;
      }
    }
    if (b !== undefined) this.#closed.push(closed(b));
    b = {
      integratorId,
      keyId,
      firstAt: at,
      lastAt: at,
      entries: 1,
      errors: status >= 400 ? 1 : 0,
      rows: [row],
    };
    this.#open.set(keyId, b);
  }

  /** @returns every block held, closed ones first, then the open ones (now closed); the
   *   builder is then empty */
  take(): LogBlock[] {
    const out = this.#closed;
    for (const b of this.#open.values()) out.push(closed(b));
    this.#closed = [];
    this.#open.clear();
    this.size = 0;
    return out;
  }
}

const closed = (b: OpenBlock): LogBlock => ({
  integratorId: b.integratorId,
  keyId: b.keyId,
  firstAt: b.firstAt,
  lastAt: b.lastAt,
  entries: b.entries,
  errors: b.errors,
  body: JSON.stringify(b.rows),
});

/**
 * Entries as blocks (see {@link BlockBuilder}), in the entries' order.
 * @param entries the entries
 * @param spanMs the most time one block covers, ms ({@link BLOCK_SPAN_MS})
 * @returns the blocks
 * @example
 * ```ts
 * import { requestLogBlocks } from "./log_blocks.ts";
 * const e = { at: 1000, integratorId: "int_a", keyId: "key_a", typeId: "vat",
 *   eiks: "121212121", status: 200, errorCode: null, requestId: "r1" };
 * const two = [e, { ...e, at: 1500, status: 403, errorCode: "EIK_NOT_ALLOWED", requestId: "r2" }];
 * if (requestLogBlocks(two).length !== 1) throw new Error("one block");
 * if (requestLogBlocks(two, 100).length !== 2) throw new Error("two blocks");
 * ```
 */
export function requestLogBlocks(
  entries: readonly RequestLogEntry[],
  spanMs: number = BLOCK_SPAN_MS,
): LogBlock[] {
  const b = new BlockBuilder(spanMs);
  for (const e of entries) {
    b.add(e.integratorId, e.keyId, e.at, e.typeId, e.eiks, e.status, e.errorCode, e.requestId);
  }
  return b.take();
}

/**
 * A block's values in the order of `request_log_blocks`' columns as written: integrator_id,
 * key_id, first_at, last_at, entries, errors, body.
 * @param b the block
 * @returns its 7 values
 */
export const blockValues = (b: LogBlock): (string | number)[] => [
  b.integratorId,
  b.keyId,
  b.firstAt,
  b.lastAt,
  b.entries,
  b.errors,
  b.body,
];

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
