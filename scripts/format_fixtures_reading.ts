/**
 * The reading fixtures (docs/formats.md § What is tolerated), for scripts/gen_format_fixtures.ts:
 * files as other programs, editors and `copy /b` leave them, made from the project's own
 * synthetic records with the published layouts (docs/nra-formats.md) and what public writers are
 * known to do — VIES records padded to 373 (VATTOOL's `line_length`), UTF-8/UTF-16 and
 * byte-order marks (editors' "Save as"), amounts left-aligned and trailing spaces trimmed,
 * blank lines, files joined with `copy /b` (each D1/D6 ends with 0x1A, §2.1), the 17-field
 * "D6" of §2.2's discarded source, and lines wider than any layout. No other project's files
 * or code. Each fixture expects either records (and the reading warnings' codes and lines) or
 * one error (code, message, details).
 * @module
 */
import {
  defineLayout,
  DEKLAR_FIELDS,
  type DeklarRecord,
  type FieldSpec,
  formatFixedLines,
  POKUPKI_FIELDS,
  type PokupkiRecord,
  PRODAGBI_FIELDS,
  type ProdagbiRecord,
  type ViesRecord,
  writeD1,
  writeD6,
  writePokupki,
  writeProdagbi,
  writeVies,
} from "../src/formats/mod.ts";
import type { D1Record, D6Record } from "../src/formats/mod.ts";
import { encodeCp1251 } from "../src/formats/encode/mod.ts";

/** A fixture as gen_format_fixtures.ts writes it. */
export interface ReadingFixture {
  kind: string;
  dir: string;
  file: string;
  /** The file the expected records write back to, or null when no fixture holds it. */
  canonicalFile: string | null;
  records?: unknown[];
  /** The text, written as Windows-1251 unless `bytes` is given. */
  text: string;
  bytes?: Uint8Array;
  /** The reading warnings expected: code and line. */
  warnings?: Array<{ code: string; line?: number }>;
  /** The error expected instead of records. */
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/** The synthetic records of the canonical fixtures. */
export interface CanonicalData {
  readonly pokupki: PokupkiRecord[];
  readonly prodagbi: ProdagbiRecord[];
  readonly deklar: DeklarRecord;
  readonly vies: ViesRecord[];
  readonly d1: D1Record[];
  readonly d6: D6Record[];
}

const BOM = [0xef, 0xbb, 0xbf];
const utf8 = (s: string) => new TextEncoder().encode(s);
const withBom = (b: Uint8Array) => new Uint8Array([...BOM, ...b]);
function utf16le(s: string): Uint8Array {
  const out = new Uint8Array(2 + s.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < s.length; i++) {
    out[2 + 2 * i] = s.charCodeAt(i) & 0xff;
    out[3 + 2 * i] = s.charCodeAt(i) >> 8;
  }
  return out;
}
const lines = (text: string) => text.split("\r\n").slice(0, -1);
const join = (ls: string[]) => ls.map((l) => l + "\r\n").join("");

/** Every blank amount written as 0.00, as writers that always print a number do. */
function zeroAmounts<R>(fields: readonly FieldSpec[], rs: readonly R[]): R[] {
  return rs.map((r) => {
    const o = { ...r } as Record<string, unknown>;
    for (const f of fields) {
      if ((f.type === "amount" || f.type === "decimal") && o[f.name] === null) o[f.name] = 0;
      if (f.type === "code" && f.code !== "03-05" && f.code !== "02-04") o[f.name] = "";
    }
    return o as R;
  });
}

/**
 * A writer that left-aligns everything (numbers too, as TEMPO does with running numbers,
 * docs/nra-formats.md §1.6), and an editor that then trims the trailing spaces of every line.
 */
function leftAlignedTrimmed<R>(fields: readonly FieldSpec[], rs: readonly R[]): string {
  const layout = defineLayout(fields.map((f) => ({ ...f, align: "L" as const })));
  // deno-lint-ignore no-explicit-any
  const text = formatFixedLines(layout, rs as any, "left-aligned");
  return join(lines(text).map((l) => l.trimEnd()));
}

/**
 * The fixtures of items 1–5.
 * @param d the canonical fixtures' records
 * @returns the fixtures
 */
export function readingFixtures(d: CanonicalData): ReadingFixture[] {
  const pok = writePokupki(d.pokupki);
  const d1 = writeD1(d.d1);
  const out: ReadingFixture[] = [];
  const ok = (
    kind: string,
    file: string,
    canonicalFile: string | null,
    records: unknown[],
    text: string,
    extra: Partial<ReadingFixture> = {},
  ) => out.push({ kind, dir: kind, file, canonicalFile, records, text, ...extra });
  const bad = (
    kind: string,
    file: string,
    text: string,
    error: NonNullable<ReadingFixture["error"]>,
    extra: Partial<ReadingFixture> = {},
  ) => out.push({ kind, dir: kind, file, canonicalFile: null, text, error, ...extra });

  // Item 1: every VIES record padded with spaces to 373 (the VDR width).
  const vies = writeVies(d.vies);
  ok(
    "vies",
    "VIES_PADDED_373.TXT",
    "VIES.TXT",
    d.vies,
    join(lines(vies).map((l) => l.padEnd(373))),
  );

  // Item 2: encodings.
  ok("d1", "EMPL2021_UTF8.TXT", "EMPL2021.TXT", d.d1, d1, {
    bytes: utf8(d1),
    warnings: [{ code: "ENCODING_UTF8" }],
  });
  ok("pokupki", "POKUPKI_UTF8.TXT", "POKUPKI.TXT", d.pokupki, pok, {
    bytes: utf8(pok),
    warnings: [{ code: "ENCODING_UTF8" }],
  });
  const prod = writeProdagbi(d.prodagbi);
  ok("prodagbi", "PRODAGBI_UTF8_BOM.TXT", "PRODAGBI.TXT", d.prodagbi, prod, {
    bytes: withBom(utf8(prod)),
    warnings: [{ code: "ENCODING_UTF8" }],
  });
  const d6 = writeD6(d.d6);
  ok("d6", "NRA62007_UTF16.TXT", "NRA62007.TXT", d.d6, d6, {
    bytes: utf16le(d6),
    warnings: [{ code: "ENCODING_UTF16" }],
  });
  ok("pokupki", "POKUPKI_BOM.TXT", "POKUPKI.TXT", d.pokupki, pok, {
    bytes: withBom(encodeCp1251(pok)),
    warnings: [{ code: "BYTE_ORDER_MARK", line: 1 }],
  });
  const badDate = lines(pok);
  badDate[0] = badDate[0]!.slice(0, 62) + "31/02/2026" + badDate[0]!.slice(72);
  bad("pokupki", "POKUPKI_BAD_BOM_DATE.TXT", join(badDate), {
    code: "FILE_PARSE_ERROR",
    message: 'Cannot parse "POKUPKI_BAD_BOM_DATE.TXT" line 1: field 03-07 (document date) at ' +
      'position 63 is not a date dd/mm/yyyy (found "31/02/2026")',
    details: { file: "POKUPKI_BAD_BOM_DATE.TXT", line: 1, field: "03-07", position: 63 },
  }, { bytes: withBom(encodeCp1251(join(badDate))) });
  const [first = "", ...rest] = lines(d1);
  const mixed = new Uint8Array([...utf8(first + "\r\n"), ...encodeCp1251(join(rest) + "\x1a")]);
  bad("d1", "EMPL2021_BAD_MIXED.TXT", "", {
    code: "FILE_ENCODING_UNSUPPORTED",
    message: 'Cannot read "EMPL2021_BAD_MIXED.TXT" line 1: it mixes UTF-8 (from byte ' +
      `${utf8(first).findIndex((b) => b >= 0x80) + 1}, position ${
        [...first].findIndex((c) => c.charCodeAt(0) > 0x7f) + 1
      }) and Windows-1251 text, so either reading would garble names. The NRA accepts only ` +
      'Windows-1251: save the whole file as "Windows-1251" ("ANSI") from one program, and do ' +
      'not join files with "copy /b"',
    details: { file: "EMPL2021_BAD_MIXED.TXT", line: 1, encoding: "mixed" },
  }, { bytes: mixed });

  // Item 3: content that fits no format; the name says which reader's error to show.
  const wide = join(lines(pok).map((l) => l + " ".repeat(20) + "1234.56"));
  bad("pokupki", "POKUPKI_BAD_301.TXT", wide, {
    code: "FILE_PARSE_ERROR",
    message: 'Cannot parse "POKUPKI_BAD_301.TXT" line 1: is 301 characters wide; expected 274 ' +
      "or 272",
    details: { file: "POKUPKI_BAD_301.TXT", line: 1, field: null, position: null },
  });
  const seventeen = d.d6.map((r) =>
    [
      `"${r.eik}"`,
      `"${r.name}"`,
      r.block1Month,
      r.block1Year,
      ...Array(12).fill("0.00"),
      '"NRAD62007"',
    ].join(",")
  );
  bad("d6", "NRA62007_BAD_17FIELDS.TXT", join(seventeen) + "\x1a", {
    code: "FILE_PARSE_ERROR",
    message: 'Cannot parse "NRA62007_BAD_17FIELDS.TXT" line 1: has 17 fields; expected 59',
    details: { file: "NRA62007_BAD_17FIELDS.TXT", line: 1, field: null, position: null },
  });

  // Item 4: trailing spaces trimmed by an editor.
  const zp = zeroAmounts(POKUPKI_FIELDS, d.pokupki);
  ok("pokupki", "POKUPKI_TRIMMED_261.TXT", null, zp, leftAlignedTrimmed(POKUPKI_FIELDS, zp), {
    warnings: [{ code: "SHORT_LINES_PADDED", line: 1 }],
  });
  const zs = zeroAmounts(PRODAGBI_FIELDS, d.prodagbi);
  ok("prodagbi", "PRODAGBI_TRIMMED_411.TXT", null, zs, leftAlignedTrimmed(PRODAGBI_FIELDS, zs), {
    warnings: [{ code: "SHORT_LINES_PADDED", line: 1 }],
  });
  const zd = zeroAmounts(DEKLAR_FIELDS, [d.deklar]);
  ok("deklar", "DEKLAR_TRIMMED_579.TXT", null, zd, leftAlignedTrimmed(DEKLAR_FIELDS, zd), {
    warnings: [{ code: "SHORT_LINES_PADDED", line: 1 }],
  });
  ok(
    "pokupki",
    "POKUPKI_TRIMMED.TXT",
    "POKUPKI.TXT",
    d.pokupki,
    join(lines(pok).map((l) => l.trimEnd())),
    {
      warnings: [{ code: "SHORT_LINES_PADDED", line: 1 }],
    },
  );
  const cut = lines(pok);
  cut[1] = cut[1]!.slice(0, 208); // inside 03-41 (198–212), a right-aligned amount
  bad("pokupki", "POKUPKI_BAD_CUT.TXT", join(cut), {
    code: "FILE_PARSE_ERROR",
    message: 'Cannot parse "POKUPKI_BAD_CUT.TXT" line 2: is 208 characters wide; expected 274 ' +
      "or 272. It ends 11 characters into field 03-41 (VAT with full tax credit) at position " +
      `198 (found "${cut[1].slice(197)}"): cut off, not trimmed, so the value cannot be known`,
    details: { file: "POKUPKI_BAD_CUT.TXT", line: 2, field: "03-41", position: 198 },
  });

  // Item 5: files joined with copy /b, and blank lines between records.
  const joined = writeD1(d.d1.slice(0, 1)) + writeD1(d.d1.slice(1));
  bad("d1", "EMPL2021_BAD_JOINED.TXT", joined, {
    code: "FILE_PARSE_ERROR",
    message: 'Cannot parse "EMPL2021_BAD_JOINED.TXT" line 2: character 0x1A (Ctrl-Z, the ' +
      "end-of-file marker) at position 1 is in the middle of the file. Were files joined with " +
      '"copy /b"? Keep one file per declaration, or delete the character',
    details: {
      file: "EMPL2021_BAD_JOINED.TXT",
      line: 2,
      field: null,
      position: 1,
      character: "U+001A",
    },
  });
  const gaps = lines(pok);
  gaps.splice(2, 0, "");
  gaps.splice(5, 0, "   ");
  ok("pokupki", "POKUPKI_BLANK_LINES.TXT", "POKUPKI.TXT", d.pokupki, join(gaps), {
    warnings: [{ code: "BLANK_LINES_SKIPPED", line: 3 }],
  });
  const d1gap = lines(d1.replace("\x1a", ""));
  d1gap.splice(1, 0, "");
  ok("d1", "EMPL2021_BLANK_LINE.TXT", "EMPL2021.TXT", d.d1, join(d1gap) + "\x1a", {
    warnings: [{ code: "BLANK_LINES_SKIPPED", line: 2 }],
  });
  return out;
}
