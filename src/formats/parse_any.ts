/**
 * Parse any NRA file: detect its kind by content (detect.ts) and run the matching reader.
 * Implements docs/nra-formats.md "How to use this" (detect by content, not name); when the content
 * fits no format but the name says one, that format's reader runs, so its error — line,
 * field, what was found and what was expected — reaches the caller (docs/formats.md § Errors).
 * @module
 */
import { AppError } from "../contract/mod.ts";
import { detectFileKind, kindFromFileName } from "./detect.ts";
import type { FileWarning } from "./file_warnings.ts";
import { NRA_FILE_KINDS, NRA_FORMATS, type NraFileKind, type RecordsOf } from "./kinds.ts";

/** A parsed file of one kind: the kind, its parser's records, and what was tolerated. */
export interface ParsedAs<K extends NraFileKind> {
  readonly kind: K;
  readonly records: RecordsOf<K>;
  /** Encoding, blank lines, short lines padded (file_warnings.ts); [] for a clean file. */
  readonly warnings: FileWarning[];
}

/** A parsed NRA file, discriminated by `kind`. */
export type ParsedNraFile = { [K in NraFileKind]: ParsedAs<K> }[NraFileKind];

/** Parse as one kind, with the registry's parser (src/formats/kinds.ts). */
function parseAs<K extends NraFileKind>(kind: K, bytes: Uint8Array, name: string): ParsedAs<K> {
  const warnings: FileWarning[] = [];
  return { kind, records: NRA_FORMATS[kind].parse(bytes, name, { warnings }), warnings };
}

/**
 * Detect the kind of a file and parse it. When the content fits no format, the kind its name
 * suggests (POKUPKI*, NRA62007*, …) is read, and that reader's error is thrown.
 * @param bytes raw file content (Windows-1251, or UTF-8/UTF-16: read, with a warning)
 * @param fileName name for messages and detection (default "file")
 * @returns the kind, its records (DEKLAR as a one-element array) and the reading warnings
 * @throws AppError FILE_KIND_UNKNOWN when neither the content nor the name matches a format;
 *   FILE_PARSE_ERROR when the file is of a format but malformed; FILE_ENCODING_UNSUPPORTED for
 *   a file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const bytes = await Deno.readFile("fixtures/formats/d1/EMPL2021.TXT");
 * const f = parseNraFile(bytes, "EMPL2021.TXT");
 * equal(f.kind, "d1");
 * ```
 */
export function parseNraFile(bytes: Uint8Array, fileName = "file"): ParsedNraFile {
  let kind = detectFileKind(bytes, fileName);
  if (kind === "unknown") kind = kindFromFileName(fileName);
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
