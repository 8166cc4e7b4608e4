/**
 * How the request log is stored (docs/token-service.md § The request log): in blocks, one row of
 * `request_log_blocks` per API key and flush, each holding the entries of at most
 * {@link BLOCK_SPAN_MS} as packed columns (request_log_block_body.ts). A block costs one row and
 * two index entries in the database for up to 5,000 requests, where a row per request cost its two
 * index entries each (about 2 µs of the three to four a request took on SQLite; BENCHMARKS.md § The
 * profile). The reader (request_log_queries.ts) decodes the blocks of one integrator, newest first,
 * and filters their entries.
 *
 * While requests are answered, a block is held as columns ({@link BlockBuilder}, in the request
 * log's recorder): an entry costs a few array appends and leaves no object of its own behind, so
 * the thread answering token requests neither encodes it nor carries it through the engine's
 * young-generation collections. The stored body is written from these columns where the block is
 * stored: in the writer thread on a SQLite file (request_log_thread.ts, which imports
 * {@link blockValues}), else by the store.
 * @module
 */
import { blockBody } from "./request_log_block_body.ts";
import type { LogBlock, RequestLogEntry } from "./web_store.ts";

/** The time one block covers at most, ms: the age prune then rewrites at most the blocks of the
 * last minute before its bound. */
export const BLOCK_SPAN_MS = 60_000;

/** A block being filled: its columns, with room for `at.length` entries. */
interface OpenBlock {
  readonly integratorId: string;
  readonly keyId: string;
  firstAt: number;
  lastAt: number;
  entries: number;
  errors: number;
  at: Float64Array;
  status: Int32Array;
  typeId: Int32Array;
  eiks: Int32Array;
  errorCode: Int32Array;
  origin: Int32Array;
  latencyUs: Uint32Array;
  requestIds: Uint8Array;
  requestIdEnds: Uint32Array;
  /** Bytes of `requestIds` used. */
  bytes: number;
  readonly strings: string[];
  /** Each of `strings`' index. */
  readonly index: Map<string, number>;
}

/** The latency of an entry that has none recorded (uint32's all bits). */
export const NO_LATENCY = 0xffffffff;

/** Entries a new block has room for (it doubles as it fills). */
const FIRST_ROOM = 32;
const utf8 = new TextEncoder();

/**
 * Entries grouped into blocks as they come: one open block per API key, closed when an entry
 * would make it cover more than `spanMs`. Each entry is copied into its block's columns at once
 * (numbers, indexes of texts, the request id's bytes), so it leaves no object behind for the
 * engine's young-generation collections to carry, and a batch reaches the writer thread as a
 * few contiguous arrays (BENCHMARKS.md § The profile).
 * @example
 * ```ts
 * import { BlockBuilder } from "./request_log_blocks.ts";
 * const b = new BlockBuilder(60_000);
 * b.add("int_a", "key_a", 1000, "vat", "121212121", 200, null, "r1");
 * b.add("int_a", "key_a", 1500, "vat", "121212121", 403, "EIK_NOT_ALLOWED", "r2");
 * const block = b.take()[0]!;
 * if (block.entries !== 2 || block.errors !== 1 || b.size !== 0) throw new Error("one block");
 * if (block.strings.length !== 3) throw new Error("each text once");
 * if (block.strings[block.errorCode[1]!] !== "EIK_NOT_ALLOWED") throw new Error("by index");
 * ```
 */
export class BlockBuilder {
  readonly #spanMs: number;
  readonly #open = new Map<string, OpenBlock>();
  #closed: OpenBlock[] = [];
  /** Entries held (open and closed blocks). */
  size = 0;

  /** @param spanMs the most time one block covers, ms ({@link BLOCK_SPAN_MS}) */
  constructor(spanMs: number = BLOCK_SPAN_MS) {
    this.#spanMs = spanMs;
  }

  /**
   * Add one entry (the fields of a {@link RequestLogEntry}; `at` in epoch ms; the latency in
   * whole µs, {@link NO_LATENCY} when not recorded).
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
    origin: string | null = null,
    latencyUs: number = NO_LATENCY,
  ): void {
    this.size++;
    let b = this.#open.get(keyId);
    if (b !== undefined && b.integratorId === integratorId) {
      const first = at < b.firstAt ? at : b.firstAt, last = at > b.lastAt ? at : b.lastAt;
      if (last - first > this.#spanMs) {
        this.#closed.push(b);
        b = undefined;
      } else {
        b.firstAt = first;
        b.lastAt = last;
      }
    } else if (b !== undefined) {
      this.#closed.push(b);
      b = undefined;
    }
    if (b === undefined) {
      b = openBlock(integratorId, keyId, at);
      this.#open.set(keyId, b);
    }
    const n = b.entries++;
    if (n === b.at.length) grow(b);
    if (status >= 400) b.errors++;
    b.at[n] = at;
    b.status[n] = status;
    b.typeId[n] = indexOf(b, typeId);
    b.eiks[n] = indexOf(b, eiks);
    b.errorCode[n] = errorCode === null ? -1 : indexOf(b, errorCode);
    b.origin[n] = origin === null ? -1 : indexOf(b, origin);
    b.latencyUs[n] = latencyUs >= 0 && latencyUs < NO_LATENCY ? latencyUs : NO_LATENCY;
    b.bytes = putText(b, requestId);
    b.requestIdEnds[n] = b.bytes;
  }

  /** @returns every block held, closed ones first, then the open ones (now closed); the
   *   builder is then empty */
  take(): LogBlock[] {
    const out = this.#closed;
    for (const b of this.#open.values()) out.push(b);
    this.#closed = [];
    this.#open.clear();
    this.size = 0;
    return out.map((b) => ({
      integratorId: b.integratorId,
      keyId: b.keyId,
      firstAt: b.firstAt,
      lastAt: b.lastAt,
      entries: b.entries,
      errors: b.errors,
      at: b.at.slice(0, b.entries),
      status: b.status.slice(0, b.entries),
      typeId: b.typeId.slice(0, b.entries),
      eiks: b.eiks.slice(0, b.entries),
      errorCode: b.errorCode.slice(0, b.entries),
      origin: b.origin.slice(0, b.entries),
      latencyUs: b.latencyUs.slice(0, b.entries),
      requestIds: b.requestIds.slice(0, b.bytes),
      requestIdEnds: b.requestIdEnds.slice(0, b.entries),
      strings: b.strings,
    }));
  }
}

function openBlock(integratorId: string, keyId: string, at: number): OpenBlock {
  return {
    integratorId,
    keyId,
    firstAt: at,
    lastAt: at,
    entries: 0,
    errors: 0,
    at: new Float64Array(FIRST_ROOM),
    status: new Int32Array(FIRST_ROOM),
    typeId: new Int32Array(FIRST_ROOM),
    eiks: new Int32Array(FIRST_ROOM),
    errorCode: new Int32Array(FIRST_ROOM),
    origin: new Int32Array(FIRST_ROOM),
    latencyUs: new Uint32Array(FIRST_ROOM),
    requestIds: new Uint8Array(FIRST_ROOM * 40),
    requestIdEnds: new Uint32Array(FIRST_ROOM),
    bytes: 0,
    strings: [],
    index: new Map(),
  };
}

/** Twice the room for entries. */
function grow(b: OpenBlock): void {
  const twice = <T extends Float64Array | Int32Array | Uint32Array>(a: T): T => {
    const c = new (a.constructor as new (n: number) => T)(a.length * 2);
    c.set(a);
    return c;
  };
  b.at = twice(b.at);
  b.status = twice(b.status);
  b.typeId = twice(b.typeId);
  b.eiks = twice(b.eiks);
  b.errorCode = twice(b.errorCode);
  b.origin = twice(b.origin);
  b.latencyUs = twice(b.latencyUs);
  b.requestIdEnds = twice(b.requestIdEnds);
}

/** Append a text's UTF-8 to the block's request id bytes. @returns the bytes used then */
function putText(b: OpenBlock, text: string): number {
  let pos = b.bytes;
  if (pos + text.length * 3 > b.requestIds.length) {
    const c = new Uint8Array(Math.max(b.requestIds.length * 2, pos + text.length * 3));
    c.set(b.requestIds.subarray(0, pos));
    b.requestIds = c;
  }
  const bytes = b.requestIds;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) { // not ASCII (never a request id the edge gives): the encoder, from here
      return pos + utf8.encodeInto(text.slice(i), bytes.subarray(pos)).written;
    }
    bytes[pos++] = c;
  }
  return pos;
}

/** A text's index in a block's `strings`, added when new. */
function indexOf(b: OpenBlock, text: string): number {
  let i = b.index.get(text);
  if (i === undefined) {
    i = b.strings.push(text) - 1;
    b.index.set(text, i);
  }
  return i;
}

/**
 * Entries as blocks (see {@link BlockBuilder}), in the entries' order.
 * @param entries the entries
 * @param spanMs the most time one block covers, ms ({@link BLOCK_SPAN_MS})
 * @returns the blocks
 * @example
 * ```ts
 * import { requestLogBlocks } from "./request_log_blocks.ts";
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
    const us = e.latencyMs == null ? NO_LATENCY : Math.round(e.latencyMs * 1000);
    b.add(
      e.integratorId,
      e.keyId,
      e.at,
      e.typeId,
      e.eiks,
      e.status,
      e.errorCode,
      e.requestId,
      e.origin ?? null,
      us,
    );
  }
  return b.take();
}

/**
 * A block's values in the order of `request_log_blocks`' columns as written: integrator_id,
 * key_id, first_at, last_at, entries, errors, body ('': the JSON of blocks written before schema
 * version 9), packed ({@link blockBody}); the writer thread (request_log_thread.ts) calls it.
 * @param b the block
 * @returns its 8 values
 */
export const blockValues = (b: LogBlock): (string | number | Uint8Array)[] => [
  b.integratorId,
  b.keyId,
  b.firstAt,
  b.lastAt,
  b.entries,
  b.errors,
  "",
  blockBody(b),
];
