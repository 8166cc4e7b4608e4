/**
 * What the two VAT ledgers share: fields 1–10, which POKUPKI.TXT (nra-formats.md §1.3) and
 * PRODAGBI.TXT (§1.4) hold at the same positions with the same types, the reader, and the
 * writer that checks the line width (canonical, or the older width without the last field,
 * §1.6).
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
export const ledgerHead = (codes: readonly string[], party: string) => [
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
