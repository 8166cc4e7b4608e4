/**
 * The stored body of a request log block (`request_log_blocks.packed`, docs/token-service.md §
 * The request log): its entries as packed columns, about 25 bytes an entry where the entries' JSON
 * took about 83, so that the writer thread has a third of the bytes to insert and commit and no
 * JSON to write (BENCHMARKS.md § The profile). {@link blockBody} writes it, {@link blockEntries}
 * reads it and the JSON arrays stored before it (in `body`, which a packed block leaves '').
 *
 * Layout (little-endian; `n` entries, `w` the width of a text index):
 *
 * | bytes | field |
 * |---|---|
 * | 1 | format: 2 (1: a body written before the origins and latencies, read as well) |
 * | 1 | flags: 1 = times as float64 (else uint32 ms after the base), 2 = request ids as 16-byte UUIDs (else uint32 byte lengths, then the UTF-8 bytes) |
 * | 1 | `w`: 1, 2 or 4 bytes |
 * | 1 | 0 |
 * | 4 | `n` |
 * | 8 | the base time, float64 epoch ms (the block's first) |
 * | 4 | byte length of the texts |
 * | … | the texts: a JSON array of strings, UTF-8 (typeIds, EIKs and error codes, each once) |
 * | 4n or 8n | the times |
 * | 2n | the HTTP statuses, uint16 |
 * | 3·w·n | the typeIds', then the EIKs', then the error codes' indexes into the texts (all bits set: no error code) |
 * | w·n | format 2: the page origins' indexes into the texts (all bits set: none) |
 * | 4n | format 2: the latencies, uint32 µs (all bits set: not recorded) |
 * | … | the request ids |
 *
 * Format 2 added the origin and latency columns (docs/token-service.md § The request log); a
 * format-1 body reads with both null. An instance of an earlier release reads a format-2 body as
 * no entries (it shows the blocks of the newer instances only after its own upgrade).
 * @module
 */
import type { LogBlock, RequestLogEntry } from "./web_store.ts";

/** The first byte of a packed body as written now. */
export const PACKED_BODY = 2;
/** The first byte of a packed body written before the origins and latencies (still read). */
export const PACKED_BODY_V1 = 1;

/** Each ASCII code's value as a lowercase hex digit (0–15), -1 for any other byte: once per
 * module, not once per block. */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let c = 0; c < 16; c++) HEX_VALUE[c.toString(16).charCodeAt(0)] = c;

/**
 * A block's body as stored (the layout above). The one encoder of a body (the writer thread,
 * request_log_thread.ts, runs it through request_log_blocks.ts `blockValues`).
 * @param b the block's columns (request_log_blocks.ts `BlockBuilder`)
 * @returns the body's bytes
 * @example
 * ```ts
 * import { blockBody, blockEntries } from "./request_log_block_body.ts";
 * import { requestLogBlocks } from "./request_log_blocks.ts";
 * const requestId = "0f8e2a4c-1b3d-4e5f-8a9b-0c1d2e3f4a5b";
 * const [b] = requestLogBlocks([{ at: 1000, integratorId: "int_a", keyId: "key_a",
 *   typeId: "vat", eiks: "121212121", status: 200, errorCode: null, requestId }]);
 * const body = blockBody(b!);
 * if (body.length !== 20 + '["vat","121212121"]'.length + 4 + 2 + 3 + 1 + 4 + 16) throw new Error("size");
 * if (blockEntries("int_a", "key_a", body)[0]!.requestId !== requestId) throw new Error("read");
 * ```
 */
export function blockBody(b: Omit<LogBlock, "integratorId" | "keyId">): Uint8Array {
  const n = b.entries, ids = b.requestIds, ends = b.requestIdEnds, base = b.firstAt;
  let wholeMs = true;
  for (let i = 0; i < n && wholeMs; i++) {
    // non-null: i < n = b.entries, and each column of a block has n entries
    const d = b.at[i]! - base;
    wholeMs = d >= 0 && d <= 0xffffffff && d === Math.floor(d);
  }
  // The request ids as 16 bytes each while every one is a UUID as `crypto.randomUUID` writes it
  // (36 bytes, lowercase hex digits, dashes at 8, 13, 18 and 23).
  const packed = new Uint8Array(16 * n);
  let uuids = true;
  // non-null: i < n, and requestIdEnds has n entries
  for (let i = 0, s = 0, q = 0; i < n && uuids; s = ends[i++]!) {
    if (
      // non-null: i < n, and requestIdEnds has n entries
      ends[i]! - s !== 36 || ids[s + 8] !== 45 || ids[s + 13] !== 45 || ids[s + 18] !== 45 ||
      ids[s + 23] !== 45
    ) {
      uuids = false;
      break;
    }
    let bad = 0;
    for (let k = 0; k < 36; k += 2) {
      if (k === 8 || k === 13 || k === 18 || k === 23) k++;
      // non-null: the id is 36 bytes (checked above), and HEX_VALUE has an entry for every byte
      const hi = HEX_VALUE[ids[s + k]!]!, lo = HEX_VALUE[ids[s + k + 1]!]!;
      bad |= hi | lo; // negative when either is not a digit
      packed[q++] = (hi << 4) | lo;
    }
    uuids = bad >= 0;
  }
  const texts = new TextEncoder().encode(JSON.stringify(b.strings));
  const w = b.strings.length < 0xff ? 1 : b.strings.length < 0xffff ? 2 : 4;
  // non-null: n > 0, and requestIdEnds has n entries
  const idBytes = uuids ? 16 * n : 4 * n + (n === 0 ? 0 : ends[n - 1]!);
  const out = new Uint8Array(
    20 + texts.length + n * ((wholeMs ? 4 : 8) + 2 + 4 * w + 4) + idBytes,
  );
  const v = new DataView(out.buffer);
  out[0] = PACKED_BODY;
  out[1] = (wholeMs ? 0 : 1) | (uuids ? 2 : 0);
  out[2] = w;
  v.setUint32(4, n, true);
  v.setFloat64(8, base, true);
  v.setUint32(16, texts.length, true);
  out.set(texts, 20);
  let p = 20 + texts.length;
  for (let i = 0; i < n; i++) {
    // non-null: i < n = b.entries, and each column of a block has n entries
    if (wholeMs) v.setUint32(p, b.at[i]! - base, true);
    // non-null: i < n = b.entries, and each column of a block has n entries
    else v.setFloat64(p, b.at[i]!, true);
    p += wholeMs ? 4 : 8;
  }
  // non-null: i < n = b.entries, and each column of a block has n entries
  for (let i = 0; i < n; i++, p += 2) v.setUint16(p, b.status[i]!, true);
  for (const col of [b.typeId, b.eiks, b.errorCode, b.origin]) {
    for (let i = 0; i < n; i++, p += w) {
      // -1 (no error code) becomes all bits set
      // non-null: i < n = b.entries, and each column of a block has n entries
      if (w === 1) out[p] = col[i]! & 0xff;
      // non-null: i < n = b.entries, and each column of a block has n entries
      else if (w === 2) v.setUint16(p, col[i]! & 0xffff, true);
      // non-null: i < n = b.entries, and each column of a block has n entries
      else v.setUint32(p, col[i]! >>> 0, true);
    }
  }
  // non-null: i < n = b.entries, and each column of a block has n entries
  for (let i = 0; i < n; i++, p += 4) v.setUint32(p, b.latencyUs[i]!, true);
  if (uuids) out.set(packed, p);
  else {
    // non-null: i < n, and requestIdEnds has n entries
    for (let i = 0, start = 0; i < n; start = ends[i++]!, p += 4) {
      // non-null: i < n, and requestIdEnds has n entries
      v.setUint32(p, ends[i]! - start, true);
    }
    out.set(ids.subarray(0, idBytes - 4 * n), p);
  }
  return out;
}

/** Each byte's two lowercase hex digits, as ASCII codes: `HEX_DIGITS[2 * byte]`, `[2 * byte + 1]`. */
const HEX_DIGITS = new TextEncoder().encode(
  Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0")).join(""),
);

/**
 * The entries of a stored block.
 * @param integratorId its `integrator_id`
 * @param keyId its `key_id`
 * @param body its `packed` columns ({@link blockBody}), or, in a block without, its `body`: the
 *   JSON array of `[at, typeId, eiks, status, errorCode, requestId]` blocks held before
 * @returns its entries in the order written; none when the body is neither (a row damaged by
 *   hand reads as empty rather than failing the page)
 * @example
 * ```ts
 * import { blockEntries } from "./request_log_block_body.ts";
 * const old = blockEntries("int_a", "key_a", '[[1000,"vat","121212121",200,null,"r1"]]');
 * if (old[0]!.requestId !== "r1" || old[0]!.at !== 1000) throw new Error("a JSON body");
 * if (blockEntries("int_a", "key_a", new Uint8Array([1, 0])).length !== 0) throw new Error("cut");
 * ```
 */
export function blockEntries(
  integratorId: string,
  keyId: string,
  body: Uint8Array | string,
): RequestLogEntry[] {
  try {
    return typeof body === "string"
      ? jsonEntries(integratorId, keyId, JSON.parse(body))
      : packedEntries(integratorId, keyId, body);
  } catch {
    return [];
  }
}

/** @throws RangeError or TypeError on a body cut short or not of this layout */
function packedEntries(integratorId: string, keyId: string, body: Uint8Array): RequestLogEntry[] {
  const format = body[0];
  if (format !== PACKED_BODY && format !== PACKED_BODY_V1) throw new TypeError("not packed");
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  // non-null: a body cut short reads undefined here, and then fails the layout check below
  // (TypeError)
  const flags = body[1]!, w = body[2]!;
  const n = v.getUint32(4, true), base = v.getFloat64(8, true);
  const textsEnd = 20 + v.getUint32(16, true);
  const texts = JSON.parse(new TextDecoder().decode(body.subarray(20, textsEnd))) as unknown[];
  if (!Array.isArray(texts) || (w !== 1 && w !== 2 && w !== 4)) throw new TypeError("layout");
  const atBytes = flags & 1 ? 8 : 4;
  const at = textsEnd, status = at + atBytes * n, typeId = status + 2 * n;
  const eiks = typeId + w * n, errorCode = eiks + w * n, origin = errorCode + w * n;
  const v2 = format === PACKED_BODY;
  const latency = origin + (v2 ? w * n : 0), ids = latency + (v2 ? 4 * n : 0);
  const none = w === 4 ? 0xffffffff : (1 << (8 * w)) - 1;
  const index = (p: number) =>
    // non-null: within a whole body; one cut short reads "" here or fails the DataView reads (the
    // @throws)
    w === 1 ? body[p]! : w === 2 ? v.getUint16(p, true) : v.getUint32(p, true);
  const text = (p: number) => String(texts[index(p)] ?? "");
  const requestIds = flags & 2 ? uuidTexts(body, ids, n) : rawTexts(v, body, ids, n);
  const out = new Array<RequestLogEntry>(n);
  for (let i = 0; i < n; i++) {
    const code = index(errorCode + w * i);
    const from = v2 ? index(origin + w * i) : none;
    const us = v2 ? v.getUint32(latency + 4 * i, true) : 0xffffffff;
    out[i] = {
      at: flags & 1 ? v.getFloat64(at + 8 * i, true) : base + v.getUint32(at + 4 * i, true),
      integratorId,
      keyId,
      typeId: text(typeId + w * i),
      eiks: text(eiks + w * i),
      status: v.getUint16(status + 2 * i, true),
      errorCode: code === none ? null : text(errorCode + w * i),
      // non-null: uuidTexts and rawTexts answer n ids
      requestId: requestIds[i]!,
      origin: from === none ? null : text(origin + w * i),
      latencyMs: us === 0xffffffff ? null : us / 1000,
    };
  }
  return out;
}

/** `n` UUIDs of 16 bytes from `p`, as text: written out as ASCII, decoded at once and cut. */
function uuidTexts(body: Uint8Array, p: number, n: number): string[] {
  if (p + 16 * n !== body.length) throw new RangeError("not its length");
  const ascii = new Uint8Array(36 * n);
  for (let i = 0, o = 0; i < n; i++) {
    for (let k = 0; k < 16; k++) {
      // non-null: p + 16 * n is the body's length (checked above), and HEX_DIGITS has two bytes per
      // byte value
      const x = 2 * body[p++]!;
      // non-null: HEX_DIGITS has two bytes per byte value
      ascii[o++] = HEX_DIGITS[x]!;
      // non-null: HEX_DIGITS has two bytes per byte value
      ascii[o++] = HEX_DIGITS[x + 1]!;
      if (k === 3 || k === 5 || k === 7 || k === 9) ascii[o++] = 45;
    }
  }
  const all = new TextDecoder().decode(ascii);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = all.slice(36 * i, 36 * i + 36);
  return out;
}

/** `n` uint32 byte lengths from `p`, then the UTF-8 texts, as text. */
function rawTexts(v: DataView, body: Uint8Array, p: number, n: number): string[] {
  const decoder = new TextDecoder();
  const out = new Array<string>(n);
  let s = p + 4 * n;
  for (let i = 0; i < n; i++) {
    const end = s + v.getUint32(p + 4 * i, true);
    if (end > body.length) throw new RangeError("cut short");
    out[i] = decoder.decode(body.subarray(s, end));
    s = end;
  }
  if (s !== body.length) throw new RangeError("not its length");
  return out;
}

/** The entries of a block stored as JSON. @throws TypeError when it is not an array */
function jsonEntries(integratorId: string, keyId: string, list: unknown): RequestLogEntry[] {
  if (!Array.isArray(list)) throw new TypeError("not an array");
  return list.filter(Array.isArray).map((e: unknown[]) => ({
    at: Number(e[0]),
    integratorId,
    keyId,
    typeId: String(e[1] ?? ""),
    eiks: String(e[2] ?? ""),
    status: Number(e[3]),
    errorCode: e[4] == null ? null : String(e[4]),
    requestId: String(e[5] ?? ""),
    origin: null,
    latencyMs: null,
  }));
}
