/**
 * PRODAGBI.TXT — the sales ledger (дневник за продажбите): one 424-character line per
 * document; older files without the last 2-character field 02-27 are 422 wide. Field table
 * restated from docs/nra-formats.md §1.4 (width check in §1.6: 167 + 17×15 + 2 = 424).
 * @module
 */
import { defineLayout, fixedField, type RecordOf } from "../fixed_width.ts";
import type { FileReader } from "../text_lines.ts";
import { ledgerFile, ledgerHead, type LedgerWriter, salesColumns } from "./ledger.ts";

const f = fixedField;

/** PRODAGBI.TXT field table (docs/nra-formats.md §1.4), in position order; fields 1–10 sit at the
 * same positions as in POKUPKI. */
// deno-fmt-ignore
export const PRODAGBI_FIELDS = [
  ...ledgerHead(["02-00", "02-01", "02-02", "02-03", "02-04", "02-05", "02-06", "02-07", "02-08", "02-09"], "customer"),
  f("02-10", "totalBase", "total taxable base", "amount", 168, 15),
  f("02-20", "totalVat", "total VAT charged", "amount", 183, 15),
  f("02-11", "base20", "base at 20%", "amount", 198, 15),
  f("02-21", "vat20", "VAT at 20%", "amount", 213, 15),
  f("02-12", "baseIntraEuAcquisitions", "base of intra-EU acquisitions", "amount", 228, 15),
  f("02-26", "baseArt82", "base under art. 82(2)-(5)", "amount", 243, 15),
  ...salesColumns("02", 258),
  f("02-25", "baseTriangular", "base as intermediary in a triangular operation", "amount", 408, 15),
  f("02-27", "specialCode", "art. 163a / 167a code", "code", 423, 2),
] as const;

/** The compiled PRODAGBI layout: 424 characters, 422 accepted (docs/nra-formats.md §1.6); lines
 * reaching into the amounts (≥ 168) whose trailing spaces were trimmed are read padded. */
export const PRODAGBI_LAYOUT = defineLayout(PRODAGBI_FIELDS, {
  widths: [424, 422],
  padFrom: 168,
});

/** One PRODAGBI.TXT line; blank numbers/dates are null, blank text "". */
export type ProdagbiRecord = RecordOf<typeof PRODAGBI_FIELDS>;

const PRODAGBI_FILE = ledgerFile(PRODAGBI_LAYOUT, "PRODAGBI.TXT");

/**
 * Parse PRODAGBI.TXT (docs/nra-formats.md §1.4): lines of 424 or 422 characters.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages (default "PRODAGBI.TXT")
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines, short
 *   lines padded)
 * @returns one record per line; [] for an empty (0-byte) ledger
 * @throws AppError FILE_PARSE_ERROR naming the line, field and position of the first problem;
 *   FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const rows = parseProdagbi(await Deno.readFile("fixtures/formats/prodagbi/PRODAGBI.TXT"));
 * equal(rows[0]?.totalBase, 2000);
 * ```
 */
export const parseProdagbi: FileReader<ProdagbiRecord[]> = PRODAGBI_FILE.parse;

/**
 * Write PRODAGBI.TXT text: one line per record, CR LF after each (docs/nra-formats.md §1.1).
 * @param records the records
 * @param options `lineWidth` 424 (default) or 422; `fileName` for messages (default "PRODAGBI.TXT")
 * @returns the file text ("" for no records); encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR when a value does not fit, or 02-27 is set for 422
 */
export const writeProdagbi: LedgerWriter<ProdagbiRecord> = PRODAGBI_FILE.write;
