import assert from "node:assert/strict";
import fc from "fast-check";
import { isAppError } from "../../src/contract/errors.ts";
import {
  D1_FIELDS,
  type D1Record,
  D6_FIELDS,
  type D6Record,
  DEKLAR_FIELDS,
  type DeklarRecord,
  parseD1,
  parseD6,
  parseDeklar,
  parseNraFile,
  parsePokupki,
  parseProdagbi,
  parseVatFolderFiles,
  parseVies,
  POKUPKI_FIELDS,
  type PokupkiRecord,
  PRODAGBI_FIELDS,
  type ProdagbiRecord,
  VIES_LAYOUTS,
  type ViesRecord,
  writeD1,
  writeD6,
  writeDeklar,
  writePokupki,
  writeProdagbi,
  writeVies,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { delimRecord, eikLike, fixedRecord } from "./_arbitraries.ts";
import { fixtureBytes } from "./_helpers.ts";

const RUNS = { numRuns: 60 };
const list = <T>(a: fc.Arbitrary<T>) => fc.array(a, { maxLength: 4 });

Deno.test("parsePokupki(encode(writePokupki(x))) deep-equals x for generated ledgers", () => {
  const rec = fixedRecord(POKUPKI_FIELDS) as unknown as fc.Arbitrary<PokupkiRecord>;
  fc.assert(
    fc.property(list(rec), (xs) => {
      assert.deepStrictEqual(parsePokupki(encodeCp1251(writePokupki(xs))), xs);
    }),
    RUNS,
  );
});

Deno.test("parsePokupki() round-trips 272-wide ledgers (no 03-45)", () => {
  const rec = fixedRecord(POKUPKI_FIELDS, { specialCode: "" }) as unknown as fc.Arbitrary<
    PokupkiRecord
  >;
  fc.assert(
    fc.property(list(rec), (xs) => {
      assert.deepStrictEqual(parsePokupki(writePokupki(xs, { lineWidth: 272 })), xs);
    }),
    RUNS,
  );
});

Deno.test("parseProdagbi(writeProdagbi(x)) deep-equals x, for 424 and 422 widths", () => {
  const rec = fixedRecord(PRODAGBI_FIELDS) as unknown as fc.Arbitrary<ProdagbiRecord>;
  const old = fixedRecord(PRODAGBI_FIELDS, { specialCode: "" }) as unknown as fc.Arbitrary<
    ProdagbiRecord
  >;
  fc.assert(
    fc.property(list(rec), (xs) => assert.deepStrictEqual(parseProdagbi(writeProdagbi(xs)), xs)),
    RUNS,
  );
  fc.assert(
    fc.property(
      list(old),
      (xs) => assert.deepStrictEqual(parseProdagbi(writeProdagbi(xs, { lineWidth: 422 })), xs),
    ),
    RUNS,
  );
});

Deno.test("parseDeklar(writeDeklar(x)) deep-equals x for generated returns", () => {
  const rec = fixedRecord(DEKLAR_FIELDS) as unknown as fc.Arbitrary<DeklarRecord>;
  fc.assert(
    fc.property(rec, (x) => assert.deepStrictEqual(parseDeklar(encodeCp1251(writeDeklar(x))), x)),
    RUNS,
  );
});

Deno.test("parseVies(writeVies(x)) deep-equals x for generated record sequences", () => {
  const any = fc.oneof(
    ...Object.entries(VIES_LAYOUTS).map(([t, l]) => fixedRecord(l.fields, { recordType: t })),
  ) as unknown as fc.Arbitrary<ViesRecord>;
  fc.assert(
    fc.property(
      fc.array(any, { maxLength: 8 }),
      (xs) => assert.deepStrictEqual(parseVies(writeVies(xs)), xs),
    ),
    RUNS,
  );
});

Deno.test("parseD1(writeD1(x)) deep-equals x for generated D1 records", () => {
  const rec = delimRecord(D1_FIELDS, true, {
    month: fc.integer({ min: 1, max: 12 }),
    year: fc.integer({ min: 1000, max: 9999 }),
    employerEik: eikLike,
  }) as unknown as fc.Arbitrary<D1Record>;
  fc.assert(
    fc.property(list(rec), (xs) => assert.deepStrictEqual(parseD1(encodeCp1251(writeD1(xs))), xs)),
    RUNS,
  );
});

Deno.test("parseD6(writeD6(x)) deep-equals x for generated D6 records", () => {
  const rec = delimRecord(D6_FIELDS, false, {
    eik: eikLike,
    name: fc.constantFrom("ЕКО ТРЕЙД ООД", "БАЛКАН СТРОЙ ЕООД", "Иван Петров"),
    block1Month: fc.integer({ min: 1, max: 13 }),
    block1Year: fc.integer({ min: 1000, max: 9999 }),
  }) as unknown as fc.Arbitrary<D6Record>;
  fc.assert(
    fc.property(list(rec), (xs) => assert.deepStrictEqual(parseD6(encodeCp1251(writeD6(xs))), xs)),
    RUNS,
  );
});

/** The codes a reader may throw for bad input. */
const FILE_CODES = ["FILE_PARSE_ERROR", "FILE_KIND_UNKNOWN", "FILE_ENCODING_UNSUPPORTED"];

/** Run `fn`; it may return, or throw an AppError with one of the file codes, nothing else. */
function onlyFileErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!isAppError(e)) throw new Error(`not an AppError: ${e}`, { cause: e });
    assert.ok(FILE_CODES.includes(e.code), e.code);
    assert.equal(typeof e.message, "string");
  }
}

const READERS = [parseDeklar, parsePokupki, parseProdagbi, parseVies, parseD1, parseD6];

Deno.test("parsers given random bytes throw only FILE_PARSE_ERROR, FILE_KIND_UNKNOWN or FILE_ENCODING_UNSUPPORTED", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 700 }),
      fc.constantFrom("X.TXT", "POKUPKI.TXT", "EMPL2021.TXT"),
      (b, name) => {
        onlyFileErrors(() => parseNraFile(b, name));
        for (const read of READERS) onlyFileErrors(() => read(b));
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("parsers given random lines of the right shape throw only AppErrors", () => {
  // Near-miss input: right widths / field counts with random printable content.
  const printable = fc.string({
    unit: fc.constantFrom(...' 0123456789-./,"ABCVHRDIБГ'),
    maxLength: 30,
  });
  const shaped = fc.oneof(
    fc.constantFrom(590, 274, 272, 424, 422, 15, 66).chain((w) =>
      fc.string({ unit: fc.constantFrom(..." 0123456789-./BGVIR"), minLength: w, maxLength: w })
    ),
    fc.array(printable, { minLength: 53, maxLength: 53 }).map((a) => a.join(",")),
    fc.array(printable, { minLength: 59, maxLength: 59 }).map((a) => a.join(",")),
  );
  fc.assert(
    fc.property(fc.array(shaped, { minLength: 1, maxLength: 3 }), (lines) => {
      const b = encodeCp1251(lines.join("\r\n"));
      onlyFileErrors(() => parseNraFile(b));
      for (const read of READERS) onlyFileErrors(() => read(b));
    }),
    { numRuns: 150 },
  );
});

const FIXTURE_FILES = [
  "deklar/DEKLAR.TXT",
  "pokupki/POKUPKI.TXT",
  "prodagbi/PRODAGBI.TXT",
  "vies/VIES.TXT",
  "d1/EMPL2021.TXT",
  "d6/NRA62007.TXT",
];
const fixtures = await Promise.all(FIXTURE_FILES.map(fixtureBytes));

type Mutation =
  | { op: "truncate"; at: number }
  | { op: "set"; at: number; byte: number }
  | { op: "insert"; at: number; bytes: Uint8Array }
  | { op: "delete"; at: number; len: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({
    op: fc.constant("set" as const),
    at: fc.nat(),
    byte: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({
    op: fc.constant("insert" as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    op: fc.constant("delete" as const),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 20 }),
  }),
);

function mutate(src: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = src;
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    if (m.op === "truncate") b = b.slice(0, at);
    else if (m.op === "set" && at < b.length) {
      b = b.slice();
      b[at] = m.byte;
    } else if (m.op === "insert") {
      const out = new Uint8Array(b.length + m.bytes.length);
      out.set(b.subarray(0, at));
      out.set(m.bytes, at);
      out.set(b.subarray(at), at + m.bytes.length);
      b = out;
    } else if (m.op === "delete") {
      b = new Uint8Array([...b.subarray(0, at), ...b.subarray(at + m.len)]);
    }
  }
  return b;
}

Deno.test("parsers given truncated or mutated valid files throw only AppErrors", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: fixtures.length - 1 }),
      fc.array(mutation, { minLength: 1, maxLength: 3 }),
      (i, ms) => {
        const b = mutate(fixtures[i]!, ms);
        onlyFileErrors(() => parseNraFile(b, FIXTURE_FILES[i]!.split("/")[1]));
        for (const read of READERS) onlyFileErrors(() => read(b));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("parseVatFolderFiles() never throws for mutated files", () => {
  fc.assert(
    fc.property(fc.array(mutation, { minLength: 1, maxLength: 2 }), fc.nat(3), (ms, which) => {
      const files = [fixtures[0], fixtures[1], fixtures[2], fixtures[3]];
      files[which] = mutate(files[which]!, ms);
      const r = parseVatFolderFiles({
        deklar: files[0],
        pokupki: files[1],
        prodagbi: files[2],
        vies: files[3],
      });
      for (const o of [r.deklar, r.pokupki, r.prodagbi, r.vies]) {
        assert.ok(o.status === "ok" || FILE_CODES.includes(o.error?.code ?? ""));
      }
    }),
    { numRuns: 100 },
  );
});
