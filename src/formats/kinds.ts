/**
 * The NRA file formats this project reads, one row each: how a line of it looks (fixed width,
 * comma-separated with a field count, or typed records with their widths), the file-name
 * prefixes it is known by, a label for messages, and its parser. `detect.ts` and
 * `parse_any.ts` work from this table only, so adding a format is its layout module plus one
 * row here (docs/architecture.md § Adding a file format). Layouts: docs/nra-formats.md §1.5 (VIES
 * record markers), §1.6 (590 / 274 / 424, older 272 / 422), §2.1 (D1: 53 fields) and §2.2
 * (D6: 59 fields).
 * @module
 */
import type { NraFileKind } from "../contract/mod.ts";
import type { ReadOptions } from "./file_warnings.ts";
import type { FixedLayout } from "./fixed_width.ts";
import { type D1Record, type D6Record, parseD1, parseD6 } from "./payroll/mod.ts";
import {
  DEKLAR_LAYOUT,
  type DeklarRecord,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
  parseVies,
  POKUPKI_LAYOUT,
  type PokupkiRecord,
  PRODAGBI_LAYOUT,
  type ProdagbiRecord,
  type ViesRecord,
} from "./vat/mod.ts";

/** How one line of a format looks, for detection by content. */
export type LineShape =
  /** Fixed-width records: the layout, whose `widths` are the accepted widths (the current,
   * widest, first) and whose `padFrom` is the width from which a shorter line may be one whose
   * trailing spaces were trimmed. */
  | { readonly shape: "fixed"; readonly layout: AnyFixedLayout }
  /** Comma-separated records with a field count; the first byte is a digit or a quote. */
  | { readonly shape: "delimited"; readonly fields: number; readonly first: "digit" | "quote" }
  /** Typed records: a 3-letter marker at the start and each record type's full width. */
  | { readonly shape: "records"; readonly widths: Readonly<Record<string, number>> };

/** A fixed-width layout of any field table. */
// deno-lint-ignore no-explicit-any
export type AnyFixedLayout = FixedLayout<any>;

/** One format of {@link NRA_FORMATS}. */
export interface NraFormat<R> {
  /** For messages: what the file is, in the accountant's words. */
  readonly label: string;
  /** The file's canonical name (what NRA programs write). */
  readonly fileName: string;
  /** Upper-case file-name prefixes the format is known by (the basename starts with one). */
  readonly namePrefixes: readonly string[];
  readonly line: LineShape;
  /**
   * Parse the whole file; `options.warnings` receives what was tolerated.
   * @throws AppError FILE_PARSE_ERROR naming the file, line and field;
   *   FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
   */
  readonly parse: (bytes: Uint8Array, fileName: string, options?: ReadOptions) => R[];
}

/** The record type of each kind (one line per format). */
interface RecordTypes {
  vies: ViesRecord;
  d1: D1Record;
  d6: D6Record;
  deklar: DeklarRecord;
  pokupki: PokupkiRecord;
  prodagbi: ProdagbiRecord;
}

/** The kinds of file this project reads: one format each (the contract names them). */
export type { NraFileKind };
/** RecordTypes has exactly one entry per {@link NraFileKind} (a compile-time check). */
const _oneFormatPerKind: [keyof RecordTypes] extends [NraFileKind]
  ? [NraFileKind] extends [keyof RecordTypes] ? true : never
  : never = true;

/** The records a kind's parser returns. */
export type RecordsOf<K extends NraFileKind> = RecordTypes[K][];

/** The formats, in the order detection prefers them when content alone cannot tell. */
export const NRA_FORMATS: { readonly [K in NraFileKind]: NraFormat<RecordTypes[K]> } = {
  vies: {
    fileName: "VIES.TXT",
    label: "a VIES declaration",
    namePrefixes: ["VIES"],
    line: {
      shape: "records",
      widths: { VHR: 15, VDR: 373, VTR: 368, TTR: 27, VIR: 66, CHR: 8, COS: 46 },
    },
    parse: parseVies,
  },
  d1: {
    fileName: "EMPL2021.TXT",
    label: "a payroll declaration 1 (EMPL2021)",
    namePrefixes: ["EMPL"],
    line: { shape: "delimited", fields: 53, first: "digit" },
    parse: parseD1,
  },
  d6: {
    fileName: "NRA62007.TXT",
    label: "a payroll declaration 6 (NRA62007)",
    namePrefixes: ["NRA6"],
    line: { shape: "delimited", fields: 59, first: "quote" },
    parse: parseD6,
  },
  deklar: {
    fileName: "DEKLAR.TXT",
    label: "a VAT return (DEKLAR)",
    namePrefixes: ["DEKLAR"],
    line: { shape: "fixed", layout: DEKLAR_LAYOUT },
    parse: (bytes, fileName, options) => [parseDeklar(bytes, fileName, options)],
  },
  pokupki: {
    fileName: "POKUPKI.TXT",
    label: "a purchase ledger (POKUPKI)",
    namePrefixes: ["POKUPKI"],
    line: { shape: "fixed", layout: POKUPKI_LAYOUT },
    parse: parsePokupki,
  },
  prodagbi: {
    fileName: "PRODAGBI.TXT",
    label: "a sales ledger (PRODAGBI)",
    namePrefixes: ["PRODAGBI"],
    line: { shape: "fixed", layout: PRODAGBI_LAYOUT },
    parse: parseProdagbi,
  },
};

/** The kinds, in detection order. */
export const NRA_FILE_KINDS = Object.keys(NRA_FORMATS) as NraFileKind[];
