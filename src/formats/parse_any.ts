/**
 * Parse any NRA file: detect its kind by content (detect.ts) and run the matching reader.
 * Implements nra-formats.md "How to use this" (detect by content, not name).
 * @module
 */
import { AppError } from "../contract/mod.ts";
import { detectFileKind } from "./detect.ts";
import { NRA_FILE_KINDS, NRA_FORMATS, type NraFileKind, type RecordsOf } from "./kinds.ts";

/** A parsed file of one kind: the kind and its parser's records. */
export interface ParsedAs<K extends NraFileKind> {
  readonly kind: K;
  readonly records: RecordsOf<K>;
}

/** A parsed NRA file, discriminated by `kind`. */
export type ParsedNraFile = { [K in NraFileKind]: ParsedAs<K> }[NraFileKind];

/** Parse as one kind, with the registry's parser (src/formats/kinds.ts). */
function parseAs<K extends NraFileKind>(kind: K, bytes: Uint8Array, name: string): ParsedAs<K> {
  return { kind, records: NRA_FORMATS[kind].parse(bytes, name) };
}

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
  // ParsedAs<one kind> is a member of the union; TypeScript cannot see that for a union K.
  if (kind !== "unknown") return parseAs(kind, bytes, fileName) as ParsedNraFile;
  const names = NRA_FILE_KINDS.map((k) => NRA_FORMATS[k].fileName);
  const known = `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  throw new AppError(
    "FILE_KIND_UNKNOWN",
    `Cannot read "${fileName}": it is not a recognised NRA file (${known})`,
    { file: fileName },
  );
}
