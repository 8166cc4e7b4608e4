/**
 * D6 — Декларация обр. 6 (data on amounts owed), files NRA62007*.TXT: 59 comma-separated
 * fields per record (6 head fields, 4 blocks of 13, a source flag). Layout restated from
 * docs/nra-formats.md §2.2 (sources NRA6-JS and GO-D1D6; no official document). Only fields 1
 * (EIK), 2 (name), 7 (month, 1-13) and 8 (year) are solid and checked; the other fields are
 * typed but lenient: no code lists or ranges are enforced.
 *
 * Empty is not zero: unlike D1 (§2.1 "numeric fields … 0 when empty"), no D6 rule makes an
 * empty number 0, and writers leave unused blocks empty (GO-D1D6's annual file, month 13). An
 * empty number, code or date reads as **null** and null writes back as an empty field; `0`
 * stays `0`. Only the solid month and year of block 1 are never null (they are checked).
 * @module
 */
import * as delim from "./delimited.ts";
import { checkEik, checkMonth, checkNonEmpty, checkYear } from "./checks.ts";
import { type FileReader, fileReader } from "../text_lines.ts";

const f = delim.delimField;

/** One block of 13 fields (docs/nra-formats.md §2.2 "block +0 … +12"), numbered from `first`. */
// deno-fmt-ignore
const block = <const B extends 1 | 2 | 3 | 4>(b: B, first: number) => [
  f(first, `block${b}Month`, `block ${b} month`, "int", 2),
  f(first + 1, `block${b}Year`, `block ${b} year`, "int", 4),
  f(first + 2, `block${b}PaymentDate`, `block ${b} date of payment`, "date"),
  f(first + 3, `block${b}CorrectionCode`, `block ${b} correction code`, "int", 1),
  f(first + 4, `block${b}PaymentType`, `block ${b} payment type`, "int", 1),
  f(first + 5, `block${b}PensionInsurance`, `block ${b} DOO amount`, "amount", 13),
  f(first + 6, `block${b}TeachersPensionFund`, `block ${b} teachers' pension fund amount`, "amount", 13),
  f(first + 7, `block${b}UniversalPensionFund`, `block ${b} DZPO-UPF amount`, "amount", 13),
  f(first + 8, `block${b}ProfessionalPensionFund`, `block ${b} DZPO-PPF amount`, "amount", 13),
  f(first + 9, `block${b}HealthInsurance`, `block ${b} health insurance amount`, "amount", 13),
  f(first + 10, `block${b}GuaranteeFund`, `block ${b} GVRS amount`, "amount", 13),
  f(first + 11, `block${b}IncomeTax1`, `block ${b} income tax amount 1`, "amount", 13),
  f(first + 12, `block${b}IncomeTax2`, `block ${b} income tax amount 2`, "amount", 13),
] as const;

/** NRA62007.TXT field table (docs/nra-formats.md §2.2): fields 1–6, blocks 7–19, 20–32, 33–45,
 * 46–58, and field 59. */
export const D6_FIELDS = [
  f(1, "eik", "EIK/Bulstat or EGN", "text", 13),
  f(2, "name", "name", "text", 60),
  f(3, "fundMember", "insurance fund member flag", "int", 1),
  f(4, "email", "e-mail", "text"),
  f(5, "phone", "phone", "text"),
  f(6, "mobile", "mobile", "text"),
  ...block(1, 7),
  ...block(2, 20),
  ...block(3, 33),
  ...block(4, 46),
  f(59, "sourceFlag", "source flag", "text", 13),
] as const;

/** The compiled D6 layout (docs/nra-formats.md §2.2). */
export const D6_LAYOUT = delim.defineDelimLayout(D6_FIELDS, {
  checks: { 1: checkEik, 2: checkNonEmpty, 7: checkMonth(13), 8: checkYear },
});

/** The solid numbers of a record: block 1's month and year (fields 7, 8), never empty. */
type SolidNumber = "block1Month" | "block1Year";
type Typed = delim.DelimRecordOf<typeof D6_FIELDS>;

/** One NRA62007.TXT record; amounts in the filing currency. An empty number (or date) is
 * null, distinct from 0 (see the module's empty-field rule). */
export type D6Record = {
  [K in keyof Typed]: Typed[K] extends number ? K extends SolidNumber ? number : number | null
    : Typed[K];
};

/** The numeric fields that may be empty (all but fields 7 and 8), by position. */
const NULLABLE = D6_FIELDS.filter((x) =>
  (x.type === "int" || x.type === "amount") && x.no !== 7 && x.no !== 8
);

/** The same table read as text only: tells which fields were empty in the file. */
const EMPTY_PROBE = delim.defineDelimLayout(
  D6_FIELDS.map((x) => ({ ...x, type: "text" as const })),
);

/**
 * Parse NRA62007*.TXT (docs/nra-formats.md §2.2): 59 fields per record.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF; the 0x1A end marker is optional
 * @param fileName name used in error messages (default "NRA62007.TXT")
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines)
 * @returns one record per line
 * @throws AppError FILE_PARSE_ERROR for a wrong field count, bad quoting, a value of the wrong
 *   type, or a bad EIK/name/month/year in fields 1, 2, 7, 8
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const rows = parseD6(await Deno.readFile("fixtures/formats/d6/NRA62007.TXT"));
 * equal(rows[0]?.block1Month, 8);
 * ```
 */
export const parseD6: FileReader<D6Record[]> = fileReader("NRA62007.TXT", (text, file, notes) => {
  // The typed read checks everything and names any error; it reads empty numbers as 0, so a
  // second read as text (which cannot fail where the first passed) marks them null.
  const records = delim.parseDelimLines(D6_LAYOUT, text, file, notes) as D6Record[];
  if (records.length === 0) return records;
  const raw = delim.parseDelimLines(EMPTY_PROBE, text, file) as Record<string, string>[];
  for (let i = 0; i < records.length; i++) {
    const rec = records[i] as Record<string, unknown>;
    for (const x of NULLABLE) if (raw[i]?.[x.name] === "") rec[x.name] = null;
  }
  return records;
});

/**
 * Write NRA62007.TXT text: canonical quoting (text and the payment date quoted), CR LF after
 * each record, 0x1A at the end; a null number is written as an empty field.
 * @param records the records
 * @param options `fileName` for messages
 * @returns the file text; encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR for a value that does not fit or fails a solid check
 */
export function writeD6(records: readonly D6Record[], options: { fileName?: string } = {}): string {
  const text = delim.formatDelimLines(
    D6_LAYOUT,
    records as readonly Typed[],
    options.fileName ?? "NRA62007.TXT",
  );
  // The engine writes null numbers as 0; empty them. Splitting a line on commas is exact: the
  // writer refuses commas in text, and numbers and dates hold none.
  const lines = text.split("\r\n");
  for (let i = 0; i < records.length; i++) {
    const rec = records[i] as Record<string, unknown>;
    const empty = NULLABLE.filter((x) => rec[x.name] === null || rec[x.name] === undefined);
    if (empty.length === 0) continue;
    const parts = lines[i]!.split(","); // non-null: formatDelimLines wrote one line per record
    for (const x of empty) parts[x.no - 1] = "";
    lines[i] = parts.join(",");
  }
  return lines.join("\r\n");
}
