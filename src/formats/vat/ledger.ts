/**
 * What the two VAT ledgers share: fields 1–10, which POKUPKI.TXT (docs/nra-formats.md §1.3) and
 * PRODAGBI.TXT (§1.4) hold at the same positions with the same types, the reader, and the
 * writer that checks the line width (canonical, or the older width without the last field,
 * §1.6); and the amount columns each ledger shares with DEKLAR.TXT (§1.2).
 * @module
 */
import {
  type FieldSpec,
  fixedField as f,
  type FixedLayout,
  parseFixedLines,
  type RecordOf,
} from "../fixed_width.ts";
import { formatFixedLines } from "../fixed_width_write.ts";
import { writeError } from "../format_error.ts";
import { type FileReader, fileReader } from "../text_lines.ts";

/** Options of the ledger writers. */
export interface LedgerWriteOptions {
  /** Name used in error messages. */
  fileName?: string;
  /** Line width: canonical (274 / 424) or the older 272 / 422 without the last field. */
  lineWidth?: number;
}

/**
 * Fields 1–10 of a ledger (§1.3, §1.4): filer, period, branch, running number, the document
 * and the counterparty; only the codes and the counterparty's role differ between the two.
 * @param codes the ten field codes, in position order
 * @param party the counterparty's role in labels: "supplier" (POKUPKI) or "customer" (PRODAGBI)
 * @returns the ten field specs, positions 1–167
 * @throws nothing
 */
// deno-fmt-ignore
export const ledgerHead = (codes: readonly [string, string, string, string, string, string, string, string, string, string], party: string) => [
  f(codes[0], "vatNumber", "filer VAT number", "text", 1, 15),
  f(codes[1], "period", "tax period", "period", 16, 6),
  f(codes[2], "branch", "branch number", "int", 22, 4),
  f(codes[3], "runningNumber", "running number", "int", 26, 15),
  f(codes[4], "documentType", "document type", "code", 41, 2),
  f(codes[5], "documentNumber", "document number", "text", 43, 20),
  f(codes[6], "documentDate", "document date", "date", 63, 10),
  f(codes[7], "counterpartyId", `${party} ID`, "text", 73, 15),
  f(codes[8], "counterpartyName", `${party} name`, "text", 88, 50),
  f(codes[9], "goodsDescription", "goods or services", "text", 138, 30),
] as const;

/** One amount column of {@link amountColumns}: its code's number, record property and label. */
type AmountColumn = readonly [code: string, name: string, label: string];

/** The field spec {@link amountColumns} makes of one {@link AmountColumn}. */
type AmountFieldOf<C> = C extends readonly [string, infer N extends string, string]
  ? ReturnType<typeof f<N, "amount">>
  : never;

/**
 * A run of consecutive 15-character amount columns (docs/nra-formats.md §1.2–§1.4): the i-th
 * starts at `start + 15 × i` and is coded `section-code`.
 * @param section the codes' prefix, e.g. "01"
 * @param start the first column's position
 * @param columns the columns in position order
 * @returns one field spec per column, in the same order
 * @throws nothing
 */
const amountColumns = <const C extends readonly AmountColumn[]>(
  section: string,
  start: number,
  columns: C,
) =>
  columns.map(([code, name, label], i) =>
    f(`${section}-${code}`, name, label, "amount", start + 15 * i, 15)
  ) as unknown as { readonly [K in keyof C]: AmountFieldOf<C[K]> };

/**
 * The sales columns PRODAGBI.TXT (§1.4, 02-22 … 02-19) and DEKLAR.TXT (§1.2, 01-22 … 01-19)
 * both hold, in this order, as 15-character amounts: each DEKLAR cell is the sum of the ledger's
 * column (§1.2, checked in check.ts).
 * @param section the codes' prefix: "01" (DEKLAR) or "02" (PRODAGBI)
 * @param start the first column's position (DEKLAR 227, PRODAGBI 258)
 * @returns the ten field specs
 * @throws nothing
 */
export const salesColumns = (section: string, start: number) =>
  amountColumns(section, start, [
    ["22", "vatIntraEuAcquisitionsArt82", "VAT on intra-EU acquisitions and art. 82"],
    ["23", "vatPrivateUse", "VAT on private use"],
    ["13", "base9", "base at 9%"],
    ["24", "vat9", "VAT at 9%"],
    ["14", "baseZeroChapter3", "base at 0% under chapter 3"],
    ["15", "baseZeroIntraEuSupplies", "base at 0% of intra-EU supplies"],
    ["16", "baseZeroOther", "base at 0% under art. 140, 146, 173"],
    ["17", "baseServicesArt21", "base of services under art. 21(2)"],
    ["18", "baseDistanceSales", "base of distance sales under art. 69(2)"],
    ["19", "baseExempt", "base of exempt supplies"],
  ]);

/**
 * The tax-credit columns POKUPKI.TXT (§1.3, 03-31 … 03-43) and DEKLAR.TXT (§1.2, 01-31 …
 * 01-43) both hold, in this order, as 15-character amounts: each DEKLAR cell is the sum of the
 * ledger's column (§1.2, checked in check.ts).
 * @param section the codes' prefix: "01" (DEKLAR) or "03" (POKUPKI)
 * @param start the first column's position (DEKLAR 392, POKUPKI 183)
 * @returns the five field specs
 * @throws nothing
 */
export const creditColumns = (section: string, start: number) =>
  amountColumns(section, start, [
    ["31", "baseFullCredit", "base with full tax credit"],
    ["41", "vatFullCredit", "VAT with full tax credit"],
    ["32", "basePartialCredit", "base with partial tax credit"],
    ["42", "vatPartialCredit", "VAT with partial tax credit"],
    ["43", "annualAdjustment", "annual adjustment under art. 73(8)"],
  ]);

/** A ledger's writer: `writePokupki`, `writeProdagbi`. */
export type LedgerWriter<R> = (records: readonly R[], options?: LedgerWriteOptions) => string;

/**
 * The reader and the writer of a ledger.
 *
 * `parse` reads one record per line, at the canonical width or the older one (§1.6), lines cut
 * inside the amounts read as padded; [] for an empty (0-byte) ledger. It throws AppError
 * FILE_PARSE_ERROR naming the line, field and position of the first problem, and
 * FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251.
 *
 * `write` writes one line per record at the chosen accepted width (`lineWidth`, default
 * canonical), CR LF after each (§1.1); "" for no records. It throws AppError FILE_PARSE_ERROR
 * when the width is not one the layout accepts, a value does not fit, or the last field is set
 * for the older width.
 * @param layout the ledger's compiled table
 * @param defaultName the file name in messages when the caller gives none
 * @returns `parse` and `write`
 * @throws nothing
 */
export function ledgerFile<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  defaultName: string,
): { parse: FileReader<RecordOf<F>[]>; write: LedgerWriter<RecordOf<F>> } {
  return {
    parse: fileReader(
      defaultName,
      (text, file, notes) => parseFixedLines(layout, text, file, notes),
    ),
    write: (records, options = {}) => {
      const file = options.fileName ?? defaultName;
      const width = options.lineWidth ?? layout.width;
      if (!layout.widths.includes(width)) {
        throw writeError({ file }, `line width ${width} is not one of ${layout.widths.join(", ")}`);
      }
      return formatFixedLines(layout, records, file, width);
    },
  };
}
