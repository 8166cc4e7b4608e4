/**
 * The one fixed-width engine for the VAT files (DEKLAR, POKUPKI, PRODAGBI, VIES), driven by
 * declarative field tables. Implements docs/nra-formats.md §1.1 (fixed width, text left-aligned
 * and space-padded, numbers right-aligned, amounts 2 decimals, dates dd/mm/yyyy, periods
 * YYYYMM) and the "How to use this" rules (1-based positions, trim every field).
 *
 * Field tables and layouts live in fixed_layout.ts, writing in fixed_width_write.ts. The
 * per-file intern tables stay here, beside the loop that calls them: moved to another module,
 * that call cost ~7 % of POKUPKI parse time (measured, BENCHMARKS.md § Parsing).
 *
 * Empty-field rule: a blank numeric, date or period field parses to `null` and `null` writes
 * back as blanks, so files round-trip byte for byte; blank text and code fields parse to "".
 * @module
 */
import {
  dateKeyAt,
  isCodeAt,
  isoDateOfKey,
  parseAmountAt,
  parseIntAt,
  periodKeyAt,
  trimEndAt,
  trimStartAt,
} from "./field_values.ts";
import { AppError } from "../contract/mod.ts";
import type { LineNotes } from "./file_warnings.ts";
import { parseError, showFound } from "./format_error.ts";
import { parseEachLine } from "./text_lines.ts";
import { cutFieldOf, type FieldSpec, type FixedLayout, type RecordOf } from "./fixed_layout.ts";

export {
  type Align,
  cutFieldOf,
  defineLayout,
  type FieldSpec,
  type FieldType,
  type FieldValue,
  fixedField,
  type FixedLayout,
  type RecordOf,
} from "./fixed_layout.ts";

const REASONS = [
  "",
  "is not a whole number",
  "is not an amount with at most 2 decimals",
  "is not a date dd/mm/yyyy",
  "is not a period YYYYMM",
  "is not a decimal number with at most 2 decimals",
  "is not a code of Latin letters and digits",
];

function maxOf(xs: readonly number[]): number {
  let m = 0;
  for (const x of xs) if (x > m) m = x;
  return m;
}

/** Slots of each per-field intern table (a power of two). */
const INTERN_SLOTS = 1024;

/**
 * Per-file parse state that saves allocations in the hot loop: per text/code field a small
 * hash table of strings already seen (so repeated names, VAT numbers and codes share one
 * string instead of one copy per line; switched off for a field whose values turn out to be
 * mostly unique), and the ISO strings of dates and periods already seen.
 */
export class ParseCache {
  /** Per field index: its intern table, or null once interning was switched off. */
  readonly tables: Array<Array<string | undefined> | null | undefined> = [];
  /** Per field index: lookups and hits, to decide whether interning pays. */
  readonly lookups: number[] = [];
  /** Per field index: hits. */
  readonly hits: number[] = [];
  /** yyyymmdd → "YYYY-MM-DD". */
  readonly dates = new Map<number, string>();
  /** yyyymm → "YYYYMM". */
  readonly periods = new Map<number, string>();
}

/**
 * The trimmed text of `text[a, b)`, shared with earlier equal values of field `i`.
 * @param text decoded file text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @param cache the file's parse state
 * @param i the field's index in its layout
 * @returns the trimmed text, "" when blank
 * @throws nothing
 */
function internText(
  text: string,
  a: number,
  b: number,
  cache: ParseCache,
  i: number,
): string {
  a = trimStartAt(text, a, b);
  b = trimEndAt(text, a, b);
  const n = b - a;
  if (n === 0) return "";
  let table = cache.tables[i];
  if (table === null) return text.slice(a, b);
  if (table === undefined) {
    table = cache.tables[i] = new Array<string | undefined>(INTERN_SLOTS);
    cache.lookups[i] = 0;
    cache.hits[i] = 0;
  }
  let h = n;
  for (let k = a; k < b; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
  const slot = h & (INTERN_SLOTS - 1);
  const seen = table[slot];
  // non-null: lookups[i] and hits[i] were set with the table above.
  const lookups = ++cache.lookups[i]!;
  if (seen !== undefined && seen.length === n) {
    let k = 0;
    while (k < n && text.charCodeAt(a + k) === seen.charCodeAt(k)) k++;
    if (k === n) {
      // non-null: lookups[i] and hits[i] were set with the table
      cache.hits[i]!++;
      return seen;
    }
  }
  // After 1024 lookups with under a quarter of hits, the values are mostly unique: stop.
  // non-null: lookups[i] and hits[i] were set with the table
  if (lookups === INTERN_SLOTS && cache.hits[i]! < INTERN_SLOTS / 4) cache.tables[i] = null;
  const s = text.slice(a, b);
  table[slot] = s;
  return s;
}

/**
 * The text of a date or period key, shared with earlier equal values of the file.
 * @param key from `dateKeyAt` / `periodKeyAt`: > 0 a value, 0 blank, < 0 malformed
 * @param seen the file's texts by key (`ParseCache.dates` or `.periods`)
 * @param textOf the text of a key not seen yet
 * @returns the text, `null` when blank, `undefined` when malformed
 * @throws nothing
 */
function keyText(
  key: number,
  seen: Map<number, string>,
  textOf: (key: number) => string,
): string | null | undefined {
  if (key <= 0) return key === 0 ? null : undefined;
  let s = seen.get(key);
  if (s === undefined) seen.set(key, s = textOf(key));
  return s;
}

/**
 * Parse one record occupying `text[start, end)`.
 * @param layout the compiled table
 * @param text the whole decoded file
 * @param start offset of the line's first character
 * @param end offset after its last character (line break excluded)
 * @param file file name for messages
 * @param line 1-based line number for messages
 * @param cache allocation-saving state shared by the lines of one file
 * @param notes where a short line read as padded is noted (optional)
 * @returns the typed record
 * @throws AppError FILE_PARSE_ERROR when the width or a field value is wrong, or a short line
 *   ends inside a right-aligned value (cut, not trimmed)
 */
export function parseFixedLine<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  text: string,
  start: number,
  end: number,
  file: string,
  line: number,
  cache: ParseCache = new ParseCache(),
  notes?: LineNotes,
): RecordOf<F> {
  const { starts, lengths, types, empty, make, scratch } = layout.compiled;
  let len = end - start;
  if (!layout.widths.includes(len)) {
    const max = maxOf(layout.widths);
    let extra = end;
    while (extra > start + max && text.charCodeAt(extra - 1) === 0x20) extra--;
    if (len > max && extra === start + max) {
      len = max;
    } else if (len > 0 && len < max && (layout.padShort || len >= layout.padFrom)) {
      checkTrimmed(layout, text, start, len, file, line);
      if (!layout.padShort) notes?.padded(line, len, max);
    } else {
      const expected = layout.widths.join(" or ");
      throw parseError(
        { file, line },
        len === 0
          ? `is empty; expected a record of ${expected} characters`
          : `is ${len} characters wide; expected ${expected}`,
      );
    }
  }
  const limit = start + len;
  const n = types.length;
  // starts, lengths, types and empty are compiled from one field table: i < n is in range of each.
  for (let i = 0; i < n; i++) {
    // non-null: i < n, in range of each table compiled from the one field table (the comment above)
    const a = start + starts[i]!;
    if (a >= limit) {
      scratch[i] = empty[i]; // a field past the end of a shorter line (272/422, VIES) is empty
      continue;
    }
    // non-null: i < n, in range of each compiled table
    let b = a + lengths[i]!;
    if (b > limit) b = limit;
    let v: unknown;
    switch (types[i]) {
      case 0:
        v = internText(text, a, b, cache, i);
        break;
      case 1:
        v = parseIntAt(text, a, b);
        break;
      case 2:
      case 5:
        v = parseAmountAt(text, a, b);
        break;
      case 3:
        v = keyText(dateKeyAt(text, a, b), cache.dates, isoDateOfKey);
        break;
      case 4:
        v = keyText(periodKeyAt(text, a, b), cache.periods, String);
        break;
      default:
        v = isCodeAt(text, a, b) ? internText(text, a, b, cache, i) : undefined;
    }
    if (v === undefined) throw fieldParseError(layout, i, text, a, b, file, line);
    scratch[i] = v;
  }
  return make(scratch) as RecordOf<F>;
}

/** Throw the error for a short line that was cut (see {@link cutFieldOf}). */
function checkTrimmed<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  text: string,
  start: number,
  len: number,
  file: string,
  line: number,
): void {
  const i = cutFieldOf(layout, text, start, len);
  const f = i < 0 ? undefined : layout.fields[i];
  if (f === undefined) return;
  const found = showFound(text.slice(start + f.start - 1, start + len));
  throw new AppError(
    "FILE_PARSE_ERROR",
    `Cannot parse "${file}" line ${line}: is ${len} characters wide; expected ` +
      `${layout.widths.join(" or ")}. It ends ${len - f.start + 1} characters into field ` +
      `${f.code} (${f.label}) at position ${f.start} (found "${found}"): cut off, not trimmed, ` +
      `so the value cannot be known`,
    { file, line, field: f.code, position: f.start },
  );
}

function fieldParseError<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  i: number,
  text: string,
  a: number,
  b: number,
  file: string,
  line: number,
) {
  const f = layout.fields[i]!; // non-null: i is the index of the field being parsed
  // non-null: i is the index of the field being parsed, in range of the compiled types too
  let reason = REASONS[layout.compiled.types[i]!];
  if (f.type === "period" && f.length === 7) reason = "is not a period MM/YYYY";
  return parseError(
    { file, line, field: f, position: f.start },
    `${reason} (found "${showFound(text.slice(a, b).trim())}")`,
  );
}

/**
 * Parse every line of a decoded file with one layout.
 * @param layout the compiled table
 * @param text decoded file text (CRLF or LF, optional trailing break and 0x1A)
 * @param file file name for messages
 * @param notes where skipped blank lines and padded short lines are noted (optional)
 * @returns one record per line that is not blank; [] for an empty file
 * @throws AppError FILE_PARSE_ERROR at the first bad line, or for a 0x1A before the end
 */
export function parseFixedLines<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  text: string,
  file: string,
  notes?: LineNotes,
): RecordOf<F>[] {
  const cache = new ParseCache();
  return parseEachLine(
    text,
    file,
    notes,
    (a, b, line) => parseFixedLine(layout, text, a, b, file, line, cache, notes),
    Math.min(...layout.widths),
  );
}
