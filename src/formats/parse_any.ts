/**
 * Parse any NRA file: detect its kind by content (detect.ts) and run the matching reader.
 * Implements nra-formats.md "How to use this" (detect by content, not name).
 * @module
 */
import { AppError } from "../contract/mod.ts";
import { detectFileKind } from "./detect.ts";
import { type D1Record, parseD1 } from "./payroll/mod.ts";
import { type D6Record, parseD6 } from "./payroll/mod.ts";
import { type DeklarRecord, parseDeklar } from "./vat/mod.ts";
import { parsePokupki, type PokupkiRecord } from "./vat/mod.ts";
import { parseProdagbi, type ProdagbiRecord } from "./vat/mod.ts";
import { parseVies, type ViesRecord } from "./vat/mod.ts";

/** A parsed NRA file, discriminated by `kind`. */
export type ParsedNraFile =
  | { readonly kind: "deklar"; readonly records: DeklarRecord[] }
  | { readonly kind: "pokupki"; readonly records: PokupkiRecord[] }
  | { readonly kind: "prodagbi"; readonly records: ProdagbiRecord[] }
  | { readonly kind: "vies"; readonly records: ViesRecord[] }
  | { readonly kind: "d1"; readonly records: D1Record[] }
  | { readonly kind: "d6"; readonly records: D6Record[] };

/**
 * Detect the kind of a file and parse it.
 * @param bytes raw file content
 * @param fileName name for messages and as a detection tie-breaker (default "file")
 * @returns the kind and its records (DEKLAR as a one-element array)
 * @throws AppError FILE_KIND_UNKNOWN when the content matches no format; FILE_PARSE_ERROR
 *   when it matches one but is malformed
 * @example
 * ```ts
 * const f = parseNraFile(bytes, "EMPL2021.TXT"); if (f.kind === "d1") f.records.length;
 * ```
 */
export function parseNraFile(bytes: Uint8Array, fileName = "file"): ParsedNraFile {
  const kind = detectFileKind(bytes, fileName);
  switch (kind) {
    case "deklar":
      return { kind, records: [parseDeklar(bytes, fileName)] };
    case "pokupki":
      return { kind, records: parsePokupki(bytes, fileName) };
    case "prodagbi":
      return { kind, records: parseProdagbi(bytes, fileName) };
    case "vies":
      return { kind, records: parseVies(bytes, fileName) };
    case "d1":
      return { kind, records: parseD1(bytes, fileName) };
    case "d6":
      return { kind, records: parseD6(bytes, fileName) };
    default:
      throw new AppError(
        "FILE_KIND_UNKNOWN",
        `Cannot read "${fileName}": it is not a recognised NRA file (DEKLAR, POKUPKI, PRODAGBI, VIES, EMPL2021 or NRA62007)`,
        { file: fileName },
      );
  }
}
