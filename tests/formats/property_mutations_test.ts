/**
 * Property tests of reading real-world files (docs/formats.md): random valid records written by the
 * project's own writers, then changed as other programs, editors and `copy /b` change files —
 * CRLF or LF, a final line break or not, a 0x1A end marker, Windows-1251 behind a byte-order
 * mark, UTF-8 (with or without a mark), UTF-16, trailing spaces trimmed, blank lines between
 * records, and a 0x1A in the middle. Every reader must give back exactly the records written
 * (and say what it tolerated), or throw the one specific error the change calls for, naming
 * the file and the line — never a wrong value.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { isAppError } from "../../src/contract/errors.ts";
import {
  D1_FIELDS,
  D6_FIELDS,
  DEKLAR_FIELDS,
  DEKLAR_LAYOUT,
  type FileWarning,
  parseD1,
  parseD6,
  parseDeklar,
  parseNraFile,
  parsePokupki,
  parseProdagbi,
  parseVies,
  POKUPKI_FIELDS,
  POKUPKI_LAYOUT,
  PRODAGBI_FIELDS,
  PRODAGBI_LAYOUT,
  type ReadOptions,
  VIES_LAYOUTS,
  writeD1,
  writeD6,
  writeDeklar,
  writePokupki,
  writeProdagbi,
  writeVies,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { delimRecord, eikLike, fixedRecord } from "./_arbitraries.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** One format under test: its file name, records, writer and reader. */
interface Format {
  readonly file: string;
  readonly records: fc.Arbitrary<Any[]>;
  readonly write: (rs: Any[]) => string;
  readonly read: (b: Uint8Array, name: string, o: ReadOptions) => unknown[];
  /** Fixed-width ledgers/DEKLAR: short lines are padded with a warning from `padFrom`. */
  readonly fixed?: { readonly widths: readonly number[]; readonly padFrom: number };
}

const FILER = { vatNumber: "BG203456783" }; // every ledger line names its filer (§1.1)
const some = (a: fc.Arbitrary<Any>) => fc.array(a, { minLength: 1, maxLength: 4 });

const FORMATS: Format[] = [
  {
    file: "POKUPKI.TXT",
    records: some(fixedRecord(POKUPKI_FIELDS, FILER)),
    write: writePokupki,
    read: parsePokupki,
    fixed: POKUPKI_LAYOUT,
  },
  {
    file: "PRODAGBI.TXT",
    records: some(fixedRecord(PRODAGBI_FIELDS, FILER)),
    write: writeProdagbi,
    read: parseProdagbi,
    fixed: PRODAGBI_LAYOUT,
  },
  {
    file: "DEKLAR.TXT",
    records: fixedRecord(DEKLAR_FIELDS, FILER).map((r) => [r]),
    write: (rs) => writeDeklar(rs[0]),
    read: (b, n, o) => [parseDeklar(b, n, o)],
    fixed: DEKLAR_LAYOUT,
  },
  {
    file: "VIES.TXT",
    records: some(
      fc.oneof(
        ...Object.entries(VIES_LAYOUTS).map(([t, l]) => fixedRecord(l.fields, { recordType: t })),
      ),
    ),
    write: writeVies,
    read: parseVies,
  },
  {
    file: "EMPL2021.TXT",
    records: some(delimRecord(D1_FIELDS, true, {
      month: fc.integer({ min: 1, max: 12 }),
      year: fc.integer({ min: 1000, max: 9999 }),
      employerEik: eikLike,
    })),
    write: writeD1,
    read: parseD1,
  },
  {
    file: "NRA62007.TXT",
    records: some(delimRecord(D6_FIELDS, false, {
      eik: eikLike,
      name: fc.constantFrom("ЕКО ТРЕЙД ООД", "БАЛКАН СТРОЙ ЕООД", "Иван Петров"),
      block1Month: fc.integer({ min: 1, max: 13 }),
      block1Year: fc.integer({ min: 1000, max: 9999 }),
    })),
    write: writeD6,
    read: parseD6,
  },
];

type Encoding = "cp1251" | "cp1251-bom" | "utf-8" | "utf-8-bom" | "utf-16le";

/** What a program, an editor or `copy /b` did to the file. */
interface Mutations {
  readonly lf: boolean;
  readonly finalBreak: boolean;
  readonly ctrlZ: boolean;
  readonly encoding: Encoding;
  readonly trim: boolean;
  /** Blank lines inserted before these records (index mod the record count). */
  readonly blanks: readonly { at: number; spaces: boolean }[];
  /** A 0x1A at the start of this record (index mod the record count; 0 = none). */
  readonly joinAt: number;
}

const mutations: fc.Arbitrary<Mutations> = fc.record({
  lf: fc.boolean(),
  finalBreak: fc.boolean(),
  ctrlZ: fc.boolean(),
  encoding: fc.constantFrom<Encoding>("cp1251", "cp1251-bom", "utf-8", "utf-8-bom", "utf-16le"),
  trim: fc.boolean(),
  blanks: fc.array(fc.record({ at: fc.nat(), spaces: fc.boolean() }), { maxLength: 2 }),
  joinAt: fc.oneof(fc.constant(0), fc.nat()),
});

function encode(text: string, e: Encoding): Uint8Array {
  const bom = [0xef, 0xbb, 0xbf];
  switch (e) {
    case "cp1251":
      return encodeCp1251(text);
    case "cp1251-bom":
      return new Uint8Array([...bom, ...encodeCp1251(text)]);
    case "utf-8":
      return new TextEncoder().encode(text);
    case "utf-8-bom":
      return new Uint8Array([...bom, ...new TextEncoder().encode(text)]);
    default: {
      const out = new Uint8Array(2 + 2 * text.length);
      out.set([0xff, 0xfe]);
      for (let i = 0; i < text.length; i++) {
        out[2 + 2 * i] = text.charCodeAt(i) & 0xff;
        out[3 + 2 * i] = text.charCodeAt(i) >> 8;
      }
      return out;
    }
  }
}

/** The changed file, and what reading it must give. */
function apply(f: Format, text: string, m: Mutations) {
  let lines = (text.endsWith("\x1a") ? text.slice(0, -1) : text).split("\r\n");
  if (lines.at(-1) === "") lines.pop();
  if (m.trim) lines = lines.map((l) => l.trimEnd());
  const n = lines.length;
  const joinAt = n > 1 ? m.joinAt % n : 0;
  const out: string[] = [];
  let ctrlZLine = 0;
  let shortLine = 0;
  let tooShortLine = 0;
  for (let i = 0; i < n; i++) {
    for (const b of m.blanks) if (b.at % n === i) out.push(b.spaces ? "   " : "");
    let line = lines[i]!; // i < n = lines.length
    if (joinAt > 0 && i === joinAt) {
      line = "\x1a" + line;
      ctrlZLine = out.length + 1;
    }
    out.push(line);
    if (
      f.fixed && line.length < Math.max(...f.fixed.widths) && !f.fixed.widths.includes(line.length)
    ) {
      if (line.length < f.fixed.padFrom) tooShortLine ||= out.length;
      else shortLine ||= out.length;
    }
  }
  const br = m.lf ? "\n" : "\r\n";
  const changed = out.join(br) + (m.finalBreak ? br : "") + (m.ctrlZ ? "\x1a" : "");
  const ascii = [...changed].every((c) => c.charCodeAt(0) < 0x80);
  return {
    bytes: encode(changed, m.encoding),
    ctrlZLine,
    tooShortLine,
    expected: {
      encoding: m.encoding !== "cp1251" && !(m.encoding === "utf-8" && ascii),
      blank: m.blanks.length > 0,
      padded: shortLine > 0,
    },
  };
}

/** Read the changed file; check the records or the one error the change calls for. */
function check(f: Format, records: Any[], m: Mutations): void {
  const { bytes, ctrlZLine, tooShortLine, expected } = apply(f, f.write(records), m);
  const warnings: FileWarning[] = [];
  let got: unknown[];
  try {
    got = f.read(bytes, f.file, { warnings });
  } catch (e) {
    if (!isAppError(e)) throw e;
    assert.equal(e.code, "FILE_PARSE_ERROR", e.message);
    assert.ok(e.message.startsWith(`Cannot parse "${f.file}" line `), e.message);
    if (ctrlZLine > 0 && (tooShortLine === 0 || ctrlZLine < tooShortLine)) {
      assert.deepStrictEqual([e.details?.line, e.details?.character], [ctrlZLine, "U+001A"]);
    } else {
      assert.ok(tooShortLine > 0, `an error no change calls for: ${e.message}`);
      assert.equal(e.details?.line, tooShortLine, e.message);
      assert.match(e.message, /characters wide; expected/);
    }
    return;
  }
  assert.equal(ctrlZLine, 0, "a 0x1A in the middle must be refused");
  assert.equal(tooShortLine, 0, "a line too short to be a record must be refused");
  assert.deepStrictEqual(got, records);
  const codes = new Set(warnings.map((w) => w.code));
  const encodingWarned = ["ENCODING_UTF8", "ENCODING_UTF16", "BYTE_ORDER_MARK"].some((c) =>
    codes.has(c as FileWarning["code"])
  );
  assert.equal(encodingWarned, expected.encoding, JSON.stringify([...codes]));
  assert.equal(codes.has("BLANK_LINES_SKIPPED"), expected.blank);
  assert.equal(codes.has("SHORT_LINES_PADDED"), expected.padded);
  for (const w of warnings) assert.ok(w.message.includes(f.file) && w.messageBg.includes(f.file));
  // Detection and parseNraFile() agree with the reader on the changed file.
  const any = parseNraFile(bytes, f.file);
  assert.deepStrictEqual(any.records, got);
}

for (const f of FORMATS) {
  Deno.test(`${f.file} reader gives back the written records, or names the change it refuses, for real-world mutations`, () => {
    fc.assert(fc.property(f.records, mutations, (rs, m) => check(f, rs, m)), { numRuns: 150 });
  });
}
