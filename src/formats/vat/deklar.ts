/**
 * DEKLAR.TXT — the VAT return (справка-декларация): one 590-character record. Field table
 * restated from docs/nra-formats.md §1.2 (widths confirmed by §1.6: 151 + 21×15 + 4 + 8×15 = 590).
 * @module
 */
import { defineLayout, fixedField, parseFixedLines, type RecordOf } from "../fixed_width.ts";
import { formatFixedLines } from "../fixed_width_write.ts";
import { parseError } from "../format_error.ts";
import type { ReadOptions } from "../file_warnings.ts";
import { fileReader } from "../text_lines.ts";
import { creditColumns, salesColumns } from "./ledger.ts";

const f = fixedField;

/** DEKLAR.TXT field table (docs/nra-formats.md §1.2), in position order; the sales and tax-credit
 * columns are those of PRODAGBI and POKUPKI whose sums they hold. */
// deno-fmt-ignore
export const DEKLAR_FIELDS = [
  f("00-01", "vatNumber", "filer VAT number", "text", 1, 15),
  f("00-02", "name", "filer name", "text", 16, 50),
  f("00-03", "period", "tax period", "period", 66, 6),
  f("00-04", "submitter", "person submitting", "text", 72, 50),
  f("00-05", "salesDocumentCount", "number of documents in the sales ledger", "int", 122, 15),
  f("00-06", "purchaseDocumentCount", "number of documents in the purchase ledger", "int", 137, 15),
  f("01-01", "totalTaxableBase", "total taxable base", "amount", 152, 15),
  f("01-20", "totalVatCharged", "total VAT charged", "amount", 167, 15),
  f("01-11", "base20", "base at 20%", "amount", 182, 15),
  f("01-21", "vat20", "VAT at 20%", "amount", 197, 15),
  f("01-12", "baseIntraEuAcquisitionsArt82", "base of intra-EU acquisitions and art. 82", "amount", 212, 15),
  ...salesColumns("01", 227),
  f("01-30", "purchasesNoCredit", "purchases without tax credit", "amount", 377, 15),
  ...creditColumns("01", 392),
  f("01-33", "proRataCoefficient", "pro-rata coefficient", "decimal", 467, 4),
  f("01-40", "totalTaxCredit", "total tax credit", "amount", 471, 15),
  f("01-50", "vatPayable", "VAT payable", "amount", 486, 15),
  f("01-60", "vatRefundable", "VAT refundable", "amount", 501, 15),
  f("01-70", "payableOffsetArt92", "payable VAT offset under art. 92(1)", "amount", 516, 15),
  f("01-71", "payablePaid", "payable VAT paid", "amount", 531, 15),
  f("01-80", "refundArt92Para1", "refund under art. 92(1)", "amount", 546, 15),
  f("01-81", "refundArt92Para3", "refund under art. 92(3)", "amount", 561, 15),
  f("01-82", "refundArt92Para4", "refund under art. 92(4)", "amount", 576, 15),
] as const;

/** The compiled DEKLAR layout: 590 characters (docs/nra-formats.md §1.2, §1.6). */
export const DEKLAR_LAYOUT = defineLayout(DEKLAR_FIELDS, { padFrom: 152 });

/** One DEKLAR.TXT record; amounts in the filing currency with 2 decimals, null when blank. */
export type DeklarRecord = RecordOf<typeof DEKLAR_FIELDS>;

/** Every record of a DEKLAR.TXT, however many there are. */
const readDeklarRecords = fileReader(
  "DEKLAR.TXT",
  (text, file, notes) => parseFixedLines(DEKLAR_LAYOUT, text, file, notes),
);

/**
 * Parse DEKLAR.TXT (docs/nra-formats.md §1.2): exactly one 590-character record.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines, short
 *   lines padded)
 * @returns the record
 * @throws AppError FILE_PARSE_ERROR when the file is empty, has more than one record, or a
 *   field is malformed
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const d = parseDeklar(await Deno.readFile("fixtures/formats/deklar/DEKLAR.TXT"));
 * equal(d.vatNumber, "BG203456783");
 * ```
 */
export function parseDeklar(
  input: Uint8Array | string,
  fileName = "DEKLAR.TXT",
  options: ReadOptions = {},
): DeklarRecord {
  const records = readDeklarRecords(input, fileName, options);
  const [record] = records;
  if (record === undefined || records.length !== 1) {
    throw parseError(
      { file: fileName, line: records.length === 0 ? null : 2 },
      records.length === 0 ? "is empty; expected one record" : "expected exactly one record",
    );
  }
  return record;
}

/**
 * Write DEKLAR.TXT text: the 590-character record followed by CR LF.
 * @param record the record
 * @param options `fileName` for messages
 * @returns the file text; encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR when a value does not fit its field or has the wrong type
 */
export function writeDeklar(record: DeklarRecord, options: { fileName?: string } = {}): string {
  return formatFixedLines(DEKLAR_LAYOUT, [record], options.fileName ?? "DEKLAR.TXT");
}
