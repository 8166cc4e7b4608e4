/**
 * POKUPKI.TXT — the purchase ledger (дневник за покупките): one 274-character line per
 * document; older files without the last 2-character field 03-45 are 272 wide. Field table
 * restated from nra-formats.md §1.3 (width check in §1.6: 167 + 7×15 + 2 = 274).
 * @module
 */
import { defineLayout, type FieldSpec, readFixedFile, type RecordOf } from "../fixed_width.ts";
import { formatFixedLines } from "../fixed_width_write.ts";
import { writeError } from "../format_error.ts";
import type { ReadOptions } from "../file_warnings.ts";

const amt = <const N extends string>(code: string, name: N, label: string, start: number) =>
  ({ code, name, label, start, length: 15, type: "amount", align: "R" }) as const;

/** POKUPKI.TXT field table (nra-formats.md §1.3), in position order. Codes 03-02/03-01 of
 * the first two fields follow VATTOOL (§1.3 footnote: positions are what matter). */
// deno-fmt-ignore
export const POKUPKI_FIELDS = [
  { code: "03-02", name: "vatNumber", label: "filer VAT number", start: 1, length: 15, type: "text", align: "L" },
  { code: "03-01", name: "period", label: "tax period", start: 16, length: 6, type: "period", align: "L" },
  { code: "03-03", name: "branch", label: "branch number", start: 22, length: 4, type: "int", align: "R" },
  { code: "03-04", name: "runningNumber", label: "running number", start: 26, length: 15, type: "int", align: "R" },
  { code: "03-05", name: "documentType", label: "document type", start: 41, length: 2, type: "code", align: "L" },
  { code: "03-06", name: "documentNumber", label: "document number", start: 43, length: 20, type: "text", align: "L" },
  { code: "03-07", name: "documentDate", label: "document date", start: 63, length: 10, type: "date", align: "L" },
  { code: "03-08", name: "counterpartyId", label: "supplier ID", start: 73, length: 15, type: "text", align: "L" },
  { code: "03-09", name: "counterpartyName", label: "supplier name", start: 88, length: 50, type: "text", align: "L" },
  { code: "03-10", name: "goodsDescription", label: "goods or services", start: 138, length: 30, type: "text", align: "L" },
  amt("03-30", "baseAndVatNoCredit", "base and VAT without tax credit", 168),
  amt("03-31", "baseFullCredit", "base with full tax credit", 183),
  amt("03-41", "vatFullCredit", "VAT with full tax credit", 198),
  amt("03-32", "basePartialCredit", "base with partial tax credit", 213),
  amt("03-42", "vatPartialCredit", "VAT with partial tax credit", 228),
  amt("03-43", "annualAdjustment", "annual adjustment under art. 73(8)", 243),
  amt("03-44", "baseTriangular", "base as intermediary in a triangular operation", 258),
  { code: "03-45", name: "specialCode", label: "art. 163a / 167a code", start: 273, length: 2, type: "code", align: "L" },
] as const satisfies readonly FieldSpec[];

/** The compiled POKUPKI layout: 274 characters, 272 accepted (nra-formats.md §1.6); lines
 * reaching into the amounts (≥ 168) whose trailing spaces were trimmed are read padded. */
export const POKUPKI_LAYOUT = defineLayout(POKUPKI_FIELDS, { widths: [274, 272], padFrom: 168 });

/** One POKUPKI.TXT line; blank numbers/dates are null, blank text "". */
export type PokupkiRecord = RecordOf<typeof POKUPKI_FIELDS>;

/** Options of the ledger writers. */
export interface LedgerWriteOptions {
  /** Name used in error messages. */
  fileName?: string;
  /** Line width: canonical (274 / 424) or the older 272 / 422 without the last field. */
  lineWidth?: number;
}

/**
 * Parse POKUPKI.TXT (nra-formats.md §1.3): lines of 274 or 272 characters.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines, short
 *   lines padded)
 * @returns one record per line; [] for an empty (0-byte) ledger
 * @throws AppError FILE_PARSE_ERROR naming the line, field and position of the first problem;
 *   FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * parsePokupki(bytes)[0].counterpartyName; // "ЕКО ТРЕЙД ООД"
 * ```
 */
export function parsePokupki(
  input: Uint8Array | string,
  fileName = "POKUPKI.TXT",
  options: ReadOptions = {},
): PokupkiRecord[] {
  return readFixedFile(POKUPKI_LAYOUT, input, fileName, options);
}

/**
 * Write POKUPKI.TXT text: one line per record, CR LF after each (nra-formats.md §1.1).
 * @param records the records
 * @param options `lineWidth` 274 (default) or 272; `fileName` for messages
 * @returns the file text ("" for no records); encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR when a value does not fit, or 03-45 is set for 272
 */
export function writePokupki(
  records: readonly PokupkiRecord[],
  options: LedgerWriteOptions = {},
): string {
  const file = options.fileName ?? "POKUPKI.TXT";
  const width = options.lineWidth ?? POKUPKI_LAYOUT.width;
  if (!POKUPKI_LAYOUT.widths.includes(width)) {
    throw writeError({ file }, `line width ${width} is not one of 274, 272`);
  }
  return formatFixedLines(POKUPKI_LAYOUT, records, file, width);
}
