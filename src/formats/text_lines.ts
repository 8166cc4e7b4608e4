/**
 * Splits decoded file text into records without copying: one `[start, end)` span per line.
 * Accepts CRLF and LF, with or without a line break after the last record, and a trailing
 * CTRL+Z (0x1A) end marker (docs/nra-formats.md "How to use this", §1.1 and §2.1). Blank lines
 * between records are skipped and noted (a warning, docs/formats.md); a 0x1A anywhere but at
 * the end — files joined with `copy /b` — is refused, naming the byte and its line: found at a
 * line's start here, and inside a line by {@link ctrlZInside} when that line fails to parse
 * (so the happy path does not scan the text once more).
 * @module
 */
import { AppError } from "../contract/mod.ts";
import { type FileWarning, LineNotes, type ReadOptions } from "./file_warnings.ts";
import { decodeNraBytes, encodingWarning } from "./text_encoding.ts";

/** Line spans of a text: `starts[i]`/`ends[i]` bound the i-th record, without its line break. */
export interface LineSpans {
  /** Number of records (lines that are not blank). */
  readonly count: number;
  /** Start offsets (inclusive) into the text. */
  readonly starts: readonly number[];
  /** End offsets (exclusive), before CR LF / LF. */
  readonly ends: readonly number[];
  /**
   * The 1-based line number of each record as an editor shows it, when blank lines were
   * skipped; null when none was, so record `i` is on line `i + 1`.
   */
  readonly lines: readonly number[] | null;
}

/**
 * End of the content: the text length minus any trailing CR, LF and 0x1A characters.
 * @param text decoded file text
 * @returns the offset after the last character of the last record
 * @throws nothing
 */
export function contentEnd(text: string): number {
  let end = text.length;
  while (end > 0) {
    const c = text.charCodeAt(end - 1);
    if (c !== 0x0a && c !== 0x0d && c !== 0x1a) break;
    end--;
  }
  return end;
}

/**
 * Whether `text[a, b)` holds only spaces and tabs (or nothing).
 * @param text decoded text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns true for a blank line
 * @throws nothing
 */
export function isBlankAt(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/**
 * The error for a CTRL+Z (0x1A) before the end of a file.
 * @param text decoded file text
 * @param at its offset
 * @param file file name for the message
 * @returns AppError FILE_PARSE_ERROR with `details` { file, line, field: null, position,
 *   character: "U+001A" }
 * @throws nothing
 */
export function ctrlZError(text: string, at: number, file: string): AppError {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  const position = at - lineStart + 1;
  return new AppError(
    "FILE_PARSE_ERROR",
    `Cannot parse "${file}" line ${line}: character 0x1A (Ctrl-Z, the end-of-file marker) at ` +
      `position ${position} is in the middle of the file. Were files joined with "copy /b"? ` +
      `Keep one file per declaration, or delete the character`,
    { file, line, field: null, position, character: "U+001A" },
  );
}

/**
 * The Ctrl-Z error for a line that failed to parse, when a 0x1A is what broke it.
 * @param text decoded file text
 * @param a the line's start (inclusive)
 * @param b its end (exclusive)
 * @param file file name for the message
 * @returns the error of {@link ctrlZError}, or null when the line holds no 0x1A
 * @throws nothing
 */
export function ctrlZInside(text: string, a: number, b: number, file: string): AppError | null {
  const z = text.indexOf("\x1a", a);
  return z !== -1 && z < b ? ctrlZError(text, z, file) : null;
}

/**
 * Split text into record spans. Blank lines (empty, or only spaces and tabs, narrower than
 * `keepFrom`) are skipped and counted in `notes`; line numbers stay those an editor shows;
 * trailing line breaks and 0x1A markers are dropped.
 * @param text decoded file text
 * @param file file name for messages
 * @param notes where skipped blank lines are counted (optional)
 * @param keepFrom a blank line at least this wide is a record whose fields are all empty (a
 *   fixed-width layout's narrowest width; default: never)
 * @returns the spans; `count` is 0 for an empty file (an empty ledger, §1.1)
 * @throws AppError FILE_PARSE_ERROR for a line starting with 0x1A before the end of the content
 */
export function lineSpans(
  text: string,
  file: string,
  notes?: LineNotes,
  keepFrom = Infinity,
): LineSpans {
  const end = contentEnd(text);
  const starts: number[] = [];
  const ends: number[] = [];
  let lines: number[] | null = null;
  let pos = 0;
  let line = 0;
  while (pos < end) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    let e = nl;
    if (e > pos && text.charCodeAt(e - 1) === 0x0d) e--;
    line++;
    const c = text.charCodeAt(pos);
    if (c === 0x1a) throw ctrlZError(text, pos, file);
    if ((e === pos || c === 0x20 || c === 0x09) && e - pos < keepFrom && isBlankAt(text, pos, e)) {
      if (lines === null) lines = Array.from({ length: starts.length }, (_, i) => i + 1);
      if (notes !== undefined && notes.blankCount++ === 0) notes.blankFirst = line;
    } else {
      starts.push(pos);
      ends.push(e);
      if (lines !== null) lines.push(line);
    }
    pos = nl + 1;
  }
  return { count: starts.length, starts, ends, lines };
}

/**
 * Parse every record of a decoded text with one function, in file order. When a line fails to
 * parse because a 0x1A inside it cut it, the Ctrl-Z error is thrown instead of the parser's.
 * @param text decoded file text
 * @param file file name for messages
 * @param notes where skipped blank lines are counted (optional)
 * @param parseLine parses the record `text[start, end)` on 1-based line `line`
 * @param keepFrom a blank line at least this wide is a record (see {@link lineSpans}; default:
 *   never, as in the comma-separated and VIES files)
 * @returns one result per record; [] for an empty file
 * @throws AppError the first error of `parseLine`, or the error of {@link ctrlZError} when the
 *   failing line holds a 0x1A; FILE_PARSE_ERROR for a line starting with 0x1A
 */
export function parseEachLine<R>(
  text: string,
  file: string,
  notes: LineNotes | undefined,
  parseLine: (start: number, end: number, line: number) => R,
  keepFrom = Infinity,
): R[] {
  const { count, starts, ends, lines } = lineSpans(text, file, notes, keepFrom);
  const out: R[] = new Array(count);
  let i = 0;
  // starts, ends and lines (when set) hold `count` entries each.
  try {
    for (; i < count; i++) {
      // non-null: i < count, and starts, ends (and lines when given) have count entries
      out[i] = parseLine(starts[i]!, ends[i]!, lines === null ? i + 1 : lines[i]!);
    }
  } catch (e) {
    // non-null: i < count, and starts and ends have count entries
    throw ctrlZInside(text, starts[i]!, ends[i]!, file) ?? e;
  }
  return out;
}

/**
 * A file kind's public reader (`parsePokupki`, `parseD1`, …): the file's bytes (any encoding
 * text_encoding.ts knows) or its decoded text in, what the kind's parser makes of it out.
 * `fileName` names the file in messages and warnings (default: the kind's usual name);
 * `options.warnings` collects what was tolerated.
 */
export type FileReader<R> = (
  input: Uint8Array | string,
  fileName?: string,
  options?: ReadOptions,
) => R;

/**
 * The reader of one file kind: it decodes the file ({@link toText}), runs the kind's text
 * parser, and appends what was tolerated — encoding, blank lines, short lines padded — to
 * `options.warnings`.
 * @param defaultName the file name when the caller gives none (e.g. "POKUPKI.TXT")
 * @param parse parses the decoded text of the file named `file`, noting in `notes` what it
 *   tolerated
 * @returns the reader; it throws what `parse` throws, and AppError FILE_ENCODING_UNSUPPORTED
 *   for a file mixing UTF-8 and Windows-1251
 * @throws nothing
 */
export function fileReader<R>(
  defaultName: string,
  parse: (text: string, file: string, notes: LineNotes) => R,
): FileReader<R> {
  return (input, fileName = defaultName, options = {}) => {
    const notes = new LineNotes();
    const result = parse(toText(input, fileName, options.warnings), fileName, notes);
    notes.flush(fileName, options.warnings);
    return result;
  };
}

/**
 * Decode input for a parser: bytes in whatever encoding they were saved in
 * (text_encoding.ts), strings as they are (less a leading U+FEFF).
 * @param input raw bytes of the file, or text already decoded
 * @param file file name for messages and warnings
 * @param warnings where to append an encoding warning (optional)
 * @returns the text
 * @throws AppError FILE_ENCODING_UNSUPPORTED for a file mixing UTF-8 and Windows-1251
 */
export function toText(input: Uint8Array | string, file: string, warnings?: FileWarning[]): string {
  if (typeof input === "string") return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const d = decodeNraBytes(input, file);
  if (warnings !== undefined) {
    const w = encodingWarning(d, file);
    if (w !== null) warnings.push(w);
  }
  return d.text;
}
