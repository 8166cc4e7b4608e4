/**
 * Excel workbooks (`.xlsx`, Office Open XML) for exports people open in a spreadsheet, written
 * with `write-excel-file` (its universal build: a `Blob`, no file system). One sheet: a bold
 * header row that stays in view while scrolling, then the rows.
 *
 * Every string is written as a text cell (a shared or inline string, never a `<f>` formula), so
 * a cell that starts with `=` is shown, not run: the CSV's apostrophe guard (src/csv.ts) is not
 * needed here and would show as a stray `'`. Numbers stay numbers, dates are date cells (Excel
 * sorts, filters and computes with them); null/undefined → empty cell.
 * @module
 */
import writeXlsxFile, { type SheetData } from "write-excel-file/universal";

/** A cell value of {@link toXlsx}: a `Date` is a real date cell (its UTC fields shown, as
 * `yyyy-mm-dd hh:mm:ss`: pass local wall-clock time, src/local_time.ts `localWallClock`). */
export type XlsxValue = string | number | boolean | Date | null | undefined;

/** How a date cell is shown. */
const DATE_FORMAT = "yyyy-mm-dd hh:mm:ss";

/**
 * An `.xlsx` workbook of one sheet.
 * @param sheet the sheet's name (Excel allows at most 31 characters; longer is cut)
 * @param header the column titles (bold, frozen)
 * @param rows the records, `header.length` cells each
 * @param widths column widths in characters (optional, per column)
 * @returns the workbook's bytes (a ZIP archive)
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const bytes = await toXlsx("Декларации", ["Фирма", "Брой"], [["=cmd", 3]]);
 * deepStrictEqual([bytes[0], bytes[1]], [0x50, 0x4b]); // "PK": a ZIP archive
 * ```
 */
export async function toXlsx(
  sheet: string,
  header: readonly string[],
  rows: readonly (readonly XlsxValue[])[],
  widths: readonly number[] = [],
): Promise<Uint8Array> {
  const cell = (v: XlsxValue) =>
    v === null || v === undefined
      ? null
      : typeof v === "number"
      ? { value: v, type: Number }
      : typeof v === "boolean"
      ? { value: v, type: Boolean }
      : v instanceof Date
      ? { value: v, type: Date, format: DATE_FORMAT }
      : { value: v, type: String };
  const data = [
    header.map((h) => ({ value: h, type: String, fontWeight: "bold" as const })),
    ...rows.map((r) => r.map(cell)),
  ];
  const blob = await writeXlsxFile(data as SheetData, {
    sheet: sheet.slice(0, 31),
    stickyRowsCount: 1,
    columns: header.map((_, i) => ({ width: widths[i] ?? 16 })),
  }).toBlob();
  return new Uint8Array(await blob.arrayBuffer());
}
