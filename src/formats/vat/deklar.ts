/**
 * DEKLAR.TXT — the VAT return (справка-декларация): one 590-character record. Field table
 * restated from nra-formats.md §1.2 (widths confirmed by §1.6: 151 + 21×15 + 4 + 8×15 = 590).
 * @module
 */
import { defineLayout, type FieldSpec, readFixedFile, type RecordOf } from "../fixed_width.ts";
import { formatFixedLines } from "../fixed_width_write.ts";
import { parseError } from "../format_error.ts";
import type { ReadOptions } from "../file_warnings.ts";

const amt = <const N extends string>(code: string, name: N, label: string, start: number) =>
  ({ code, name, label, start, length: 15, type: "amount", align: "R" }) as const;

/** DEKLAR.TXT field table (nra-formats.md §1.2), in position order. */
// deno-fmt-ignore
export const DEKLAR_FIELDS = [
  { code: "00-01", name: "vatNumber", label: "filer VAT number", start: 1, length: 15, type: "text", align: "L" },
  { code: "00-02", name: "name", label: "filer name", start: 16, length: 50, type: "text", align: "L" },
  { code: "00-03", name: "period", label: "tax period", start: 66, length: 6, type: "period", align: "L" },
  { code: "00-04", name: "submitter", label: "person submitting", start: 72, length: 50, type: "text", align: "L" },
  { code: "00-05", name: "salesDocumentCount", label: "number of documents in the sales ledger", start: 122, length: 15, type: "int", align: "R" },
  { code: "00-06", name: "purchaseDocumentCount", label: "number of documents in the purchase ledger", start: 137, length: 15, type: "int", align: "R" },
  amt("01-01", "totalTaxableBase", "total taxable base", 152),
  amt("01-20", "totalVatCharged", "total VAT charged", 167),
  amt("01-11", "base20", "base at 20%", 182),
  amt("01-21", "vat20", "VAT at 20%", 197),
  amt("01-12", "baseIntraEuAcquisitionsArt82", "base of intra-EU acquisitions and art. 82", 212),
  amt("01-22", "vatIntraEuAcquisitionsArt82", "VAT on intra-EU acquisitions and art. 82", 227),
  amt("01-23", "vatPrivateUse", "VAT on private use", 242),
  amt("01-13", "base9", "base at 9%", 257),
  amt("01-24", "vat9", "VAT at 9%", 272),
  amt("01-14", "baseZeroChapter3", "base at 0% under chapter 3", 287),
  amt("01-15", "baseZeroIntraEuSupplies", "base at 0% of intra-EU supplies", 302),
  amt("01-16", "baseZeroOther", "base at 0% under art. 140, 146, 173", 317),
  amt("01-17", "baseServicesArt21", "base of services under art. 21(2)", 332),
  amt("01-18", "baseDistanceSales", "base of distance sales under art. 69(2)", 347),
  amt("01-19", "baseExempt", "base of exempt supplies", 362),
  amt("01-30", "purchasesNoCredit", "purchases without tax credit", 377),
  amt("01-31", "baseFullCredit", "base with full tax credit", 392),
  amt("01-41", "vatFullCredit", "VAT with full tax credit", 407),
  amt("01-32", "basePartialCredit", "base with partial tax credit", 422),
  amt("01-42", "vatPartialCredit", "VAT with partial tax credit", 437),
  amt("01-43", "annualAdjustment", "annual adjustment under art. 73(8)", 452),
  { code: "01-33", name: "proRataCoefficient", label: "pro-rata coefficient", start: 467, length: 4, type: "decimal", align: "R" },
  amt("01-40", "totalTaxCredit", "total tax credit", 471),
  amt("01-50", "vatPayable", "VAT payable", 486),
  amt("01-60", "vatRefundable", "VAT refundable", 501),
  amt("01-70", "payableOffsetArt92", "payable VAT offset under art. 92(1)", 516),
  amt("01-71", "payablePaid", "payable VAT paid", 531),
  amt("01-80", "refundArt92Para1", "refund under art. 92(1)", 546),
  amt("01-81", "refundArt92Para3", "refund under art. 92(3)", 561),
  amt("01-82", "refundArt92Para4", "refund under art. 92(4)", 576),
] as const satisfies readonly FieldSpec[];

/** The compiled DEKLAR layout: 590 characters (nra-formats.md §1.2, §1.6). */
export const DEKLAR_LAYOUT = defineLayout(DEKLAR_FIELDS, { padFrom: 152 });

/** One DEKLAR.TXT record; amounts in the filing currency with 2 decimals, null when blank. */
export type DeklarRecord = RecordOf<typeof DEKLAR_FIELDS>;

/**
 * Parse DEKLAR.TXT (nra-formats.md §1.2): exactly one 590-character record.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines, short
 *   lines padded)
 * @returns the record
 * @throws AppError FILE_PARSE_ERROR when the file is empty, has more than one record, or a
 *   field is malformed
 * @example
 * ```ts
 * const d = parseDeklar(bytes); d.vatNumber; // "BG123456786"
 * ```
 */
export function parseDeklar(
  input: Uint8Array | string,
  fileName = "DEKLAR.TXT",
  options: ReadOptions = {},
): DeklarRecord {
  const records = readFixedFile(DEKLAR_LAYOUT, input, fileName, options);
  if (records.length !== 1) {
    throw parseError(
      { file: fileName, line: records.length === 0 ? null : 2 },
      records.length === 0 ? "is empty; expected one record" : "expected exactly one record",
    );
  }
  return records[0];
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
