/**
 * VIES.TXT — the VIES declaration: one record type per line (VHR, VDR, VTR, TTR, VIR, CHR,
 * COS), each with its own width; amounts 12 characters; periods MM/YYYY. Field tables restated
 * from nra-formats.md §1.5 (widths in §5 item 4: 15/373/368/27/66/8/46). Shorter lines are read
 * as if space-padded, since trailing blank fields (e.g. the VIR period) may be trimmed.
 * @module
 */
import {
  defineLayout,
  type FieldSpec,
  type FixedLayout,
  ParseCache,
  parseFixedLine,
  type RecordOf,
} from "../fixed_width.ts";
import { formatFixedLine } from "../fixed_width_write.ts";
import { LineNotes, type ReadOptions } from "../file_warnings.ts";
import { parseError, showFound, writeError } from "../format_error.ts";
import { ctrlZInside, lineSpans, toText } from "../text_lines.ts";

const rt = <const T extends string>(t: T) =>
  ({
    code: `${t}-1`,
    name: "recordType",
    label: "record type",
    start: 1,
    length: 3,
    type: "code",
    align: "L",
  }) as const;

// deno-fmt-ignore
const VHR_FIELDS = [
  rt("VHR"),
  { code: "VHR-2", name: "period", label: "reporting period", start: 4, length: 7, type: "period", align: "L" },
  { code: "VHR-3", name: "lineCount", label: "number of lines", start: 11, length: 5, type: "int", align: "R" },
] as const satisfies readonly FieldSpec[];
// deno-fmt-ignore
const VDR_FIELDS = [
  rt("VDR"),
  { code: "VDR-2", name: "declarantId", label: "declarant EGN/LNCh", start: 4, length: 15, type: "text", align: "L" },
  { code: "VDR-3", name: "name", label: "declarant name", start: 19, length: 150, type: "text", align: "L" },
  { code: "VDR-4", name: "city", label: "city", start: 169, length: 50, type: "text", align: "L" },
  { code: "VDR-5", name: "postcode", label: "postcode", start: 219, length: 4, type: "text", align: "L" },
  { code: "VDR-6", name: "address", label: "address", start: 223, length: 150, type: "text", align: "L" },
  { code: "VDR-7", name: "capacity", label: "capacity A/R", start: 373, length: 1, type: "code", align: "L" },
] as const satisfies readonly FieldSpec[];
// deno-fmt-ignore
const VTR_FIELDS = [
  rt("VTR"),
  { code: "VTR-2", name: "vatNumber", label: "filer VAT number", start: 4, length: 15, type: "text", align: "L" },
  { code: "VTR-3", name: "name", label: "filer name", start: 19, length: 150, type: "text", align: "L" },
  { code: "VTR-4", name: "address", label: "filer address", start: 169, length: 200, type: "text", align: "L" },
] as const satisfies readonly FieldSpec[];
// deno-fmt-ignore
const TTR_FIELDS = [
  rt("TTR"),
  { code: "TTR-2", name: "totalBase", label: "total base", start: 4, length: 12, type: "amount", align: "R" },
  { code: "TTR-3", name: "goodsBase", label: "base of intra-EU supplies of goods", start: 16, length: 12, type: "amount", align: "R" },
] as const satisfies readonly FieldSpec[];
// deno-fmt-ignore
const VIR_FIELDS = [
  rt("VIR"),
  { code: "VIR-2", name: "lineNumber", label: "line number", start: 4, length: 5, type: "int", align: "R" },
  { code: "VIR-3", name: "counterpartyVat", label: "counterparty VAT number", start: 9, length: 15, type: "text", align: "L" },
  { code: "VIR-4", name: "goodsBase", label: "base of goods", start: 24, length: 12, type: "amount", align: "R" },
  { code: "VIR-5", name: "triangularBase", label: "base of triangular operations", start: 36, length: 12, type: "amount", align: "R" },
  { code: "VIR-6", name: "servicesBase", label: "base of services under art. 21(2)", start: 48, length: 12, type: "amount", align: "R" },
  { code: "VIR-7", name: "period", label: "period of the line", start: 60, length: 7, type: "period", align: "L" },
] as const satisfies readonly FieldSpec[];
// deno-fmt-ignore
const CHR_FIELDS = [
  rt("CHR"),
  { code: "CHR-2", name: "cosCount", label: "number of COS lines", start: 4, length: 5, type: "int", align: "R" },
] as const satisfies readonly FieldSpec[];
// deno-fmt-ignore
const COS_FIELDS = [
  rt("COS"),
  { code: "COS-2", name: "lineNumber", label: "line number", start: 4, length: 5, type: "int", align: "R" },
  { code: "COS-3", name: "vin", label: "VAT number", start: 9, length: 15, type: "text", align: "L" },
  { code: "COS-4", name: "code", label: "call-off stock code", start: 24, length: 1, type: "code", align: "L" },
  { code: "COS-5", name: "intendedAcquirerVin", label: "VAT number of the intended acquirer", start: 25, length: 15, type: "text", align: "L" },
  { code: "COS-6", name: "period", label: "period of the line", start: 40, length: 7, type: "period", align: "L" },
] as const satisfies readonly FieldSpec[];

/** The VIES layouts by record type (nra-formats.md §1.5), in TEMPO's record order. */
export const VIES_LAYOUTS = {
  VHR: defineLayout(VHR_FIELDS, { padShort: true }),
  VDR: defineLayout(VDR_FIELDS, { padShort: true }),
  VTR: defineLayout(VTR_FIELDS, { padShort: true }),
  TTR: defineLayout(TTR_FIELDS, { padShort: true }),
  VIR: defineLayout(VIR_FIELDS, { padShort: true }),
  CHR: defineLayout(CHR_FIELDS, { padShort: true }),
  COS: defineLayout(COS_FIELDS, { padShort: true }),
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
 * Parse VIES.TXT (nra-formats.md §1.5): each line starts with its record type.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF, optional final break and 0x1A
 * @param fileName name used in error messages
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines)
 * @returns the records in file order (order is not enforced; see `checkVatSet`)
 * @throws AppError FILE_PARSE_ERROR for an unknown record type, a line longer than its type's
 *   width (spaces past it are fine), a line cut inside a right-aligned value, or a malformed
 *   field; FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * parseVies(bytes).filter((r) => r.recordType === "VIR").length;
 * ```
 */
export function parseVies(
  input: Uint8Array | string,
  fileName = "VIES.TXT",
  options: ReadOptions = {},
): ViesRecord[] {
  const text = toText(input, fileName, options.warnings);
  const notes = new LineNotes();
  const { count, starts, ends, lines } = lineSpans(text, fileName, notes);
  const out: ViesRecord[] = new Array(count);
  const cache = new ParseCache();
  let i = 0;
  try {
    for (; i < count; i++) {
      const line = lines === null ? i + 1 : lines[i];
      const marker = text.slice(starts[i], Math.min(starts[i] + 3, ends[i]));
      const layout = layoutFor(marker);
      if (layout === undefined) {
        throw parseError(
          { file: fileName, line, field: { code: "1", label: "record type" }, position: 1 },
          `is not one of VHR, VDR, VTR, TTR, VIR, CHR, COS (found "${showFound(marker)}")`,
        );
      }
      out[i] = parseFixedLine(
        layout,
        text,
        starts[i],
        ends[i],
        fileName,
        line,
        cache,
      ) as ViesRecord;
    }
  } catch (e) {
    throw ctrlZInside(text, starts[i], ends[i], fileName) ?? e;
  }
  notes.flush(fileName, options.warnings);
  return out;
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
  for (let i = 0; i < records.length; i++) {
    const layout = layoutFor(records[i].recordType);
    if (layout === undefined) {
      throw writeError(
        { file, line: i + 1, field: { code: "1", label: "record type" }, position: 1 },
        `is not one of VHR, VDR, VTR, TTR, VIR, CHR, COS`,
      );
    }
    out += formatFixedLine(layout, records[i], file, i + 1) + "\r\n";
  }
  return out;
}
