/**
 * The request log block's stored body (src/token/store/request_log_block_body.ts; docs/token-service.md
 * § The request log): packed columns that give back every field as added, in each of the layout's
 * forms (request ids as UUIDs or as text, times as whole ms or not, text indexes of 1, 2 or 4
 * bytes; origins and latencies, recorded or not); the size it is for; a body cut short or grown
 * reads as no entries; the format-1 bodies (before origins and latencies) and the JSON bodies
 * stored before still read.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import {
  blockBody,
  blockEntries,
  PACKED_BODY,
  PACKED_BODY_V1,
} from "../../../src/token/store/request_log_block_body.ts";
import { requestLogBlocks } from "../../../src/token/store/request_log_blocks.ts";
import type { RequestLogEntry } from "../../../src/token/store/mod.ts";

const NOW = Date.UTC(2026, 11, 28, 12);

const entry = (i: number, over: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  at: NOW + i * 7,
  integratorId: "int_a",
  keyId: "key_a",
  typeId: i % 5 === 0 ? "nope" : "vat",
  eiks: i % 2 === 0 ? "121212121" : "131313131,141414141",
  status: i % 5 === 0 ? 400 : 200,
  errorCode: i % 5 === 0 ? "UNKNOWN_TYPE_ID" : null,
  requestId: crypto.randomUUID(),
  origin: i % 3 === 0 ? null : "https://app.example.com",
  latencyMs: i % 7 === 0 ? null : (1000 + i * 37) / 1000,
  ...over,
});

/** The entries written as one block and read back. */
function roundTrip(es: readonly RequestLogEntry[]): { body: Uint8Array; read: RequestLogEntry[] } {
  const blocks = requestLogBlocks(es, Number.MAX_SAFE_INTEGER);
  equal(blocks.length, 1);
  const body = blockBody(blocks[0]!);
  equal(body[0], PACKED_BODY);
  return { body, read: blockEntries("int_a", "key_a", body) };
}

Deno.test("request log body: UUID request ids and whole-ms times take 30 bytes an entry", () => {
  const es = Array.from({ length: 1000 }, (_, i) => entry(i));
  const { body, read } = roundTrip(es);
  deepStrictEqual(read, es);
  const texts = new TextEncoder().encode(
    JSON.stringify([
      "vat",
      "121212121",
      "https://app.example.com",
      "nope",
      "UNKNOWN_TYPE_ID",
      "131313131,141414141",
    ]),
  ).length;
  // time, status, 4 text indexes (typeId, EIKs, error code, origin), latency, request id
  equal(body.length, 20 + texts + 1000 * (4 + 2 + 4 + 4 + 16));
  equal(body[1], 2, "flags: UUIDs, times as ms after the first");
});

Deno.test("request log body: request ids that are not UUIDs, times not whole, many texts", () => {
  // One id the integrator chose (the edge keeps a well-formed one), one in upper case, one not
  // ASCII: the block's ids are stored as text, each as sent.
  const ids = [crypto.randomUUID().toUpperCase(), "my-order-17", "ид-1", ""];
  const mixed = ids.map((requestId, i) => entry(i, { requestId }));
  const a = roundTrip([...mixed, entry(9)]);
  deepStrictEqual(a.read, [...mixed, entry(9, { requestId: a.read[4]!.requestId })]);
  equal(a.body[1], 0);
  // A time of a fraction of a ms, one long before the first and one far after it.
  const times = [NOW + 0.25, NOW - 5e9, NOW + 5e9].map((at, i) => entry(i, { at }));
  const t = roundTrip(times);
  deepStrictEqual(t.read, times);
  equal(t.body[1], 1 | 2);
  // 300 and 70,000 texts: indexes of 2 and 4 bytes (no error code stays none in each).
  for (const [n, width] of [[300, 2], [70_000, 4]] as const) {
    const many = Array.from({ length: n }, (_, i) => entry(i, { eiks: String(100000000 + i) }));
    const m = roundTrip(many);
    equal(m.body[2], width);
    deepStrictEqual(m.read, many);
  }
});

Deno.test("request log body: any entries come back as added (generated)", () => {
  const text = fc.string({ unit: "binary", maxLength: 12 });
  const anEntry = fc.record({
    at: fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.double({ min: 0, max: 2 ** 40 })),
    integratorId: fc.constant("int_a"),
    keyId: fc.constant("key_a"),
    typeId: text,
    eiks: text,
    status: fc.integer({ min: 100, max: 599 }),
    errorCode: fc.option(text),
    // Well-formed Unicode (the bytes stored are UTF-8), as every id the edge keeps is.
    requestId: fc.oneof(fc.uuid(), fc.string({ unit: "grapheme", maxLength: 12 })),
    origin: fc.option(text),
    latencyMs: fc.option(fc.integer({ min: 0, max: 0xfffffffe }).map((us) => us / 1000)),
  }, { noNullPrototype: true });
  fc.assert(
    fc.property(fc.array(anEntry, { minLength: 1, maxLength: 40 }), (es) => {
      deepStrictEqual(roundTrip(es).read, es);
    }),
    { numRuns: 300 },
  );
});

Deno.test("request log body: cut short or grown, a body reads as no entries", () => {
  for (const es of [[entry(1), entry(2)], [entry(1, { requestId: "r-1" }), entry(2)]]) {
    const { body } = roundTrip(es);
    for (let cut = 0; cut < body.length; cut++) {
      deepStrictEqual(blockEntries("int_a", "key_a", body.subarray(0, cut)), [], `cut at ${cut}`);
    }
    const grown = new Uint8Array(body.length + 1);
    grown.set(body);
    deepStrictEqual(blockEntries("int_a", "key_a", grown), []);
  }
  deepStrictEqual(blockEntries("int_a", "key_a", new Uint8Array([PACKED_BODY, 0, 3, 0])), []);
});

/** A format-1 body (as written before the origins and latencies) of the same entries: the
 * format-2 body without those two columns. */
function formatOne(body: Uint8Array, n: number): Uint8Array {
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const w = body[2]!, textsEnd = 20 + v.getUint32(16, true);
  const atBytes = body[1]! & 1 ? 8 : 4;
  const origins = textsEnd + n * (atBytes + 2 + 3 * w);
  const ids = origins + n * (w + 4);
  const out = new Uint8Array(body.length - n * (w + 4));
  out.set(body.subarray(0, origins));
  out.set(body.subarray(ids), origins);
  out[0] = PACKED_BODY_V1;
  return out;
}

Deno.test("request log body: a format-1 body still reads, without origins and latencies", () => {
  for (const ids of [undefined, "my-order"]) {
    const es = Array.from(
      { length: 30 },
      (_, i) => entry(i, ids ? { requestId: `${ids}-${i}` } : {}),
    );
    const { body } = roundTrip(es);
    equal(body[0], PACKED_BODY);
    deepStrictEqual(
      blockEntries("int_a", "key_a", formatOne(body, es.length)),
      es.map((e) => ({ ...e, origin: null, latencyMs: null })),
    );
  }
});

Deno.test("request log body: a JSON body stored before reads as it was written", () => {
  const json =
    '[[1000,"vat","121212121",200,null,"r1"],[1500,"nope","1",400,"UNKNOWN_TYPE_ID","r2"]]';
  const expected = [
    {
      ...entry(0),
      at: 1000,
      typeId: "vat",
      eiks: "121212121",
      status: 200,
      errorCode: null,
      requestId: "r1",
    },
    {
      ...entry(0),
      at: 1500,
      typeId: "nope",
      eiks: "1",
      status: 400,
      errorCode: "UNKNOWN_TYPE_ID",
      requestId: "r2",
    },
  ];
  deepStrictEqual(blockEntries("int_a", "key_a", json), expected);
  // The same text as bytes is no packed body.
  deepStrictEqual(blockEntries("int_a", "key_a", new TextEncoder().encode(json)), []);
});
