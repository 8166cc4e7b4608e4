/**
 * VIES.TXT — the VIES declaration: one record type per line (VHR, VDR, VTR, TTR, VIR, CHR,
 * COS), each with its own width; amounts 12 characters; periods MM/YYYY. Field tables restated
 * from docs/nra-formats.md §1.5 (widths in §5 item 4: 15/373/368/27/66/8/46). Shorter lines are
 * read as if space-padded, since trailing blank fields (e.g. the VIR period) may be trimmed.
 * @module
 */
import {
  defineLayout,
  type FieldSpec,
  fixedField,
  type FixedLayout,
  ParseCache,
  parseFixedLine,
  type RecordOf,
} from "../fixed_width.ts";
import { formatFixedLine } from "../fixed_width_write.ts";
import { parseError, showFound, writeError } from "../format_error.ts";
import { type FileReader, fileReader, parseEachLine } from "../text_lines.ts";

const f = fixedField;

/** Field 1 of every record type: its 3-letter marker. */
const rt = <const T extends string>(t: T) => f(`${t}-1`, "recordType", "record type", "code", 1, 3);

// deno-fmt-ignore
const VHR_FIELDS = [
  rt("VHR"),
  f("VHR-2", "period", "reporting period", "period", 4, 7),
  f("VHR-3", "lineCount", "number of lines", "int", 11, 5),
] as const;
// deno-fmt-ignore
const VDR_FIELDS = [
  rt("VDR"),
  f("VDR-2", "declarantId", "declarant EGN/LNCh", "text", 4, 15),
  f("VDR-3", "name", "declarant name", "text", 19, 150),
  f("VDR-4", "city", "city", "text", 169, 50),
  f("VDR-5", "postcode", "postcode", "text", 219, 4),
  f("VDR-6", "address", "address", "text", 223, 150),
  f("VDR-7", "capacity", "capacity A/R", "code", 373, 1),
] as const;
// deno-fmt-ignore
const VTR_FIELDS = [
  rt("VTR"),
  f("VTR-2", "vatNumber", "filer VAT number", "text", 4, 15),
  f("VTR-3", "name", "filer name", "text", 19, 150),
  f("VTR-4", "address", "filer address", "text", 169, 200),
] as const;
// deno-fmt-ignore
const TTR_FIELDS = [
  rt("TTR"),
  f("TTR-2", "totalBase", "total base", "amount", 4, 12),
  f("TTR-3", "goodsBase", "base of intra-EU supplies of goods", "amount", 16, 12),
] as const;
// deno-fmt-ignore
const VIR_FIELDS = [
  rt("VIR"),
  f("VIR-2", "lineNumber", "line number", "int", 4, 5),
  f("VIR-3", "counterpartyVat", "counterparty VAT number", "text", 9, 15),
  f("VIR-4", "goodsBase", "base of goods", "amount", 24, 12),
  f("VIR-5", "triangularBase", "base of triangular operations", "amount", 36, 12),
  f("VIR-6", "servicesBase", "base of services under art. 21(2)", "amount", 48, 12),
  f("VIR-7", "period", "period of the line", "period", 60, 7),
] as const;
// deno-fmt-ignore
const CHR_FIELDS = [
  rt("CHR"),
  f("CHR-2", "cosCount", "number of COS lines", "int", 4, 5),
] as const;
// deno-fmt-ignore
const COS_FIELDS = [
  rt("COS"),
  f("COS-2", "lineNumber", "line number", "int", 4, 5),
  f("COS-3", "vin", "VAT number", "text", 9, 15),
  f("COS-4", "code", "call-off stock code", "code", 24, 1),
  f("COS-5", "intendedAcquirerVin", "VAT number of the intended acquirer", "text", 25, 15),
  f("COS-6", "period", "period of the line", "period", 40, 7),
] as const;

/** A VIES record's layout: shorter lines are read as if space-padded (trimmed blank fields). */
const viesLayout = <const F extends readonly FieldSpec[]>(fields: F) =>
  defineLayout(fields, { padShort: true });

/** The VIES layouts by record type (docs/nra-formats.md §1.5), in TEMPO's record order. */
export const VIES_LAYOUTS = {
  VHR: viesLayout(VHR_FIELDS),
  VDR: viesLayout(VDR_FIELDS),
  VTR: viesLayout(VTR_FIELDS),
  TTR: viesLayout(TTR_FIELDS),
  VIR: viesLayout(VIR_FIELDS),
  CHR: viesLayout(CHR_FIELDS),
  COS: viesLayout(COS_FIELDS),
} as const;

/** A VIES record type marker. */
export type ViesRecordType = keyof typeof VIES_LAYOUTS;

/** VHR — main record: period (normalised to YYYYMM) and the declared number of lines. */
export type VhrRecord = RecordOf<typeof VHR_FIELDS> & { recordType: "VHR" };
/** VDR — the declarant (person submitting). */
export type VdrRecord = RecordOf<typeof VDR_FIELDS> & { recordType: "VDR" };
/** VTR — the registered person (filer). */
export type VtrRecord = RecordOf<typeof VTR_FIELDS> & { recordType: "VTR" };
/** TTR — totals. */
export type TtrRecord = RecordOf<typeof TTR_FIELDS> & { recordType: "TTR" };
/** VIR — one counterparty line. */
export type VirRecord = RecordOf<typeof VIR_FIELDS> & { recordType: "VIR" };
/** CHR — call-off stock header. */
export type ChrRecord = RecordOf<typeof CHR_FIELDS> & { recordType: "CHR" };
/** COS — one call-off stock line. */
export type CosRecord = RecordOf<typeof COS_FIELDS> & { recordType: "COS" };
/** Any VIES record, discriminated by `recordType`. */
export type ViesRecord =
  | VhrRecord
  | VdrRecord
  | VtrRecord
  | TtrRecord
  | VirRecord
  | ChrRecord
  | CosRecord;

// deno-lint-ignore no-explicit-any
type AnyLayout = FixedLayout<any>;

function layoutFor(marker: string): AnyLayout | undefined {
  return Object.hasOwn(VIES_LAYOUTS, marker)
    ? VIES_LAYOUTS[marker as ViesRecordType] as AnyLayout
    : undefined;
}

/**
 * Parse VIES.TXT (docs/nra-formats.md §1.5): each line starts with its record type.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages (default "VIES.TXT")
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines)
 * @returns the records in file order (order is not enforced; see `checkVatSet`)
 * @throws AppError FILE_PARSE_ERROR for an unknown record type, a line longer than its type's
 *   width (spaces past it are fine), a line cut inside a right-aligned value, or a malformed
 *   field; FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const rows = parseVies(await Deno.readFile("fixtures/formats/vies/VIES.TXT"));
 * equal(rows.filter((r) => r.recordType === "VIR").length, 3);
 * ```
 */
export const parseVies: FileReader<ViesRecord[]> = fileReader("VIES.TXT", (text, file, notes) => {
  const cache = new ParseCache();
  return parseEachLine(
    text,
    file,
    notes,
    (a, b, line) => parseViesLine(text, a, b, file, line, cache),
  );
});

/** Parse the record `text[a, b)` with the layout its first 3 characters name. */
function parseViesLine(
  text: string,
  a: number,
  b: number,
  file: string,
  line: number,
  cache: ParseCache,
): ViesRecord {
  const marker = text.slice(a, Math.min(a + 3, b));
  const layout = layoutFor(marker);
  if (layout === undefined) {
    throw parseError(
      { file, line, field: { code: "1", label: "record type" }, position: 1 },
      `is not one of VHR, VDR, VTR, TTR, VIR, CHR, COS (found "${showFound(marker)}")`,
    );
  }
  return parseFixedLine(layout, text, a, b, file, line, cache) as ViesRecord;
}

/**
 * Write VIES.TXT text: each record at its type's full width, CR LF after each.
 * @param records the records, in the order to write (TEMPO: VHR, VDR, VTR, TTR, VIR…, CHR, COS…)
 * @param options `fileName` for messages
 * @returns the file text; encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR for an unknown record type or a value that does not fit
 */
export function writeVies(
  records: readonly ViesRecord[],
  options: { fileName?: string } = {},
): string {
  const file = options.fileName ?? "VIES.TXT";
  let out = "";
  for (const [i, record] of records.entries()) {
    const layout = layoutFor(record.recordType);
    if (layout === undefined) {
      throw writeError(
        { file, line: i + 1, field: { code: "1", label: "record type" }, position: 1 },
        `is not one of VHR, VDR, VTR, TTR, VIR, CHR, COS`,
      );
    }
    out += formatFixedLine(layout, record, file, i + 1) + "\r\n";
  }
  return out;
}
