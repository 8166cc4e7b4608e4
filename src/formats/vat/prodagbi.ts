/**
 * PRODAGBI.TXT — the sales ledger (дневник за продажбите): one 424-character line per
 * document; older files without the last 2-character field 02-27 are 422 wide. Field table
 * restated from nra-formats.md §1.4 (width check in §1.6: 167 + 17×15 + 2 = 424).
 * @module
 */
import { defineLayout, type FieldSpec, readFixedFile, type RecordOf } from "../fixed_width.ts";
import { formatFixedLines } from "../fixed_width_write.ts";
import { writeError } from "../format_error.ts";
import type { ReadOptions } from "../file_warnings.ts";
import type { LedgerWriteOptions } from "./pokupki.ts";

const amt = <const N extends string>(code: string, name: N, label: string, start: number) =>
  ({ code, name, label, start, length: 15, type: "amount", align: "R" }) as const;

/** PRODAGBI.TXT field table (nra-formats.md §1.4), in position order; fields 1–10 sit at the
 * same positions as in POKUPKI. */
// deno-fmt-ignore
export const PRODAGBI_FIELDS = [
  { code: "02-00", name: "vatNumber", label: "filer VAT number", start: 1, length: 15, type: "text", align: "L" },
  { code: "02-01", name: "period", label: "tax period", start: 16, length: 6, type: "period", align: "L" },
  { code: "02-02", name: "branch", label: "branch number", start: 22, length: 4, type: "int", align: "R" },
  { code: "02-03", name: "runningNumber", label: "running number", start: 26, length: 15, type: "int", align: "R" },
  { code: "02-04", name: "documentType", label: "document type", start: 41, length: 2, type: "code", align: "L" },
  { code: "02-05", name: "documentNumber", label: "document number", start: 43, length: 20, type: "text", align: "L" },
  { code: "02-06", name: "documentDate", label: "document date", start: 63, length: 10, type: "date", align: "L" },
  { code: "02-07", name: "counterpartyId", label: "customer ID", start: 73, length: 15, type: "text", align: "L" },
  { code: "02-08", name: "counterpartyName", label: "customer name", start: 88, length: 50, type: "text", align: "L" },
  { code: "02-09", name: "goodsDescription", label: "goods or services", start: 138, length: 30, type: "text", align: "L" },
  amt("02-10", "totalBase", "total taxable base", 168),
  amt("02-20", "totalVat", "total VAT charged", 183),
  amt("02-11", "base20", "base at 20%", 198),
  amt("02-21", "vat20", "VAT at 20%", 213),
  amt("02-12", "baseIntraEuAcquisitions", "base of intra-EU acquisitions", 228),
  amt("02-26", "baseArt82", "base under art. 82(2)-(5)", 243),
  amt("02-22", "vatIntraEuAcquisitionsArt82", "VAT on intra-EU acquisitions and art. 82", 258),
  amt("02-23", "vatPrivateUse", "VAT on private use", 273),
  amt("02-13", "base9", "base at 9%", 288),
  amt("02-24", "vat9", "VAT at 9%", 303),
  amt("02-14", "baseZeroChapter3", "base at 0% under chapter 3", 318),
  amt("02-15", "baseZeroIntraEuSupplies", "base at 0% of intra-EU supplies", 333),
  amt("02-16", "baseZeroOther", "base at 0% under art. 140, 146, 173", 348),
  amt("02-17", "baseServicesArt21", "base of services under art. 21(2)", 363),
  amt("02-18", "baseDistanceSales", "base of distance sales under art. 69(2)", 378),
  amt("02-19", "baseExempt", "base of exempt supplies", 393),
  amt("02-25", "baseTriangular", "base as intermediary in a triangular operation", 408),
  { code: "02-27", name: "specialCode", label: "art. 163a / 167a code", start: 423, length: 2, type: "code", align: "L" },
] as const satisfies readonly FieldSpec[];

/** The compiled PRODAGBI layout: 424 characters, 422 accepted (nra-formats.md §1.6); lines
 * reaching into the amounts (≥ 168) whose trailing spaces were trimmed are read padded. */
export const PRODAGBI_LAYOUT = defineLayout(PRODAGBI_FIELDS, {
  widths: [424, 422],
  padFrom: 168,
});

/** One PRODAGBI.TXT line; blank numbers/dates are null, blank text "". */
export type ProdagbiRecord = RecordOf<typeof PRODAGBI_FIELDS>;

/**
 * Parse PRODAGBI.TXT (nra-formats.md §1.4): lines of 424 or 422 characters.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines, short
 *   lines padded)
 * @returns one record per line; [] for an empty (0-byte) ledger
 * @throws AppError FILE_PARSE_ERROR naming the line, field and position of the first problem;
 *   FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * parseProdagbi(bytes)[0].totalBase; // 1000
 * ```
 */
export function parseProdagbi(
  input: Uint8Array | string,
  fileName = "PRODAGBI.TXT",
  options: ReadOptions = {},
): ProdagbiRecord[] {
  return readFixedFile(PRODAGBI_LAYOUT, input, fileName, options);
}

/**
 * Write PRODAGBI.TXT text: one line per record, CR LF after each (nra-formats.md §1.1).
 * @param records the records
 * @param options `lineWidth` 424 (default) or 422; `fileName` for messages
 * @returns the file text ("" for no records); encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR when a value does not fit, or 02-27 is set for 422
 */
export function writeProdagbi(
  records: readonly ProdagbiRecord[],
  options: LedgerWriteOptions = {},
): string {
  const file = options.fileName ?? "PRODAGBI.TXT";
  const width = options.lineWidth ?? PRODAGBI_LAYOUT.width;
  if (!PRODAGBI_LAYOUT.widths.includes(width)) {
    throw writeError({ file }, `line width ${width} is not one of 424, 422`);
  }
  return formatFixedLines(PRODAGBI_LAYOUT, records, file, width);
}
