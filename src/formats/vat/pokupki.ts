/**
 * POKUPKI.TXT — the purchase ledger (дневник за покупките): one 274-character line per
 * document; older files without the last 2-character field 03-45 are 272 wide. Field table
 * restated from docs/nra-formats.md §1.3 (width check in §1.6: 167 + 7×15 + 2 = 274).
 * @module
 */
import { defineLayout, fixedField, type RecordOf } from "../fixed_width.ts";
import type { FileReader } from "../text_lines.ts";
import { creditColumns, ledgerFile, ledgerHead, type LedgerWriter } from "./ledger.ts";

export type { LedgerWriteOptions } from "./ledger.ts";

const f = fixedField;

/** POKUPKI.TXT field table (docs/nra-formats.md §1.3), in position order. Codes 03-02/03-01 of
 * the first two fields follow VATTOOL (§1.3 footnote: positions are what matter). */
// deno-fmt-ignore
export const POKUPKI_FIELDS = [
  ...ledgerHead(["03-02", "03-01", "03-03", "03-04", "03-05", "03-06", "03-07", "03-08", "03-09", "03-10"], "supplier"),
  f("03-30", "baseAndVatNoCredit", "base and VAT without tax credit", "amount", 168, 15),
  ...creditColumns("03", 183),
  f("03-44", "baseTriangular", "base as intermediary in a triangular operation", "amount", 258, 15),
  f("03-45", "specialCode", "art. 163a / 167a code", "code", 273, 2),
] as const;

/** The compiled POKUPKI layout: 274 characters, 272 accepted (docs/nra-formats.md §1.6); lines
 * reaching into the amounts (≥ 168) whose trailing spaces were trimmed are read padded. */
export const POKUPKI_LAYOUT = defineLayout(POKUPKI_FIELDS, { widths: [274, 272], padFrom: 168 });

/** One POKUPKI.TXT line; blank numbers/dates are null, blank text "". */
export type PokupkiRecord = RecordOf<typeof POKUPKI_FIELDS>;

const POKUPKI_FILE = ledgerFile(POKUPKI_LAYOUT, "POKUPKI.TXT");

/**
 * Parse POKUPKI.TXT (docs/nra-formats.md §1.3): lines of 274 or 272 characters.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages (default "POKUPKI.TXT")
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines, short
 *   lines padded)
 * @returns one record per line; [] for an empty (0-byte) ledger
 * @throws AppError FILE_PARSE_ERROR naming the line, field and position of the first problem;
 *   FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const rows = parsePokupki(await Deno.readFile("fixtures/formats/pokupki/POKUPKI.TXT"));
 * equal(rows[0]?.counterpartyName, "БАЛКАН СТРОЙ ЕООД");
 * ```
 */
export const parsePokupki: FileReader<PokupkiRecord[]> = POKUPKI_FILE.parse;

/**
 * Write POKUPKI.TXT text: one line per record, CR LF after each (docs/nra-formats.md §1.1).
 * @param records the records
 * @param options `lineWidth` 274 (default) or 272; `fileName` for messages (default "POKUPKI.TXT")
 * @returns the file text ("" for no records); encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR when a value does not fit, or 03-45 is set for 272
 */
export const writePokupki: LedgerWriter<PokupkiRecord> = POKUPKI_FILE.write;
