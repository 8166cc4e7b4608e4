/**
 * Writing side of the fixed-width engine (see fixed_width.ts): pads and aligns every field
 * exactly, and refuses — never truncates — values that do not fit. Implements docs/nra-formats.md
 * §1.1 (text left-aligned and space-padded; numbers right-aligned; amounts with 2 decimals and
 * a leading "-"; CR LF after every record).
 * @module
 */
import {
  formatAmount,
  formatDate,
  formatInt,
  formatPeriod,
  isWritableText,
  parseCodeAt,
} from "./field_values.ts";
import type { FieldSpec, FixedLayout, RecordOf } from "./fixed_width.ts";
import { writeError } from "./format_error.ts";

function isEmptyValue(v: unknown): boolean {
  return v === null || v === undefined || v === "";
}

/**
 * Format one record as a fixed-width line (no line break).
 * @param layout the compiled table
 * @param rec the record; `null`/`undefined`/"" write blanks
 * @param file file name for messages
 * @param line 1-based line number for messages
 * @param width the line width to write: the canonical width or another accepted width, in
 *   which case the fields past it must be empty
 * @returns the line, exactly `width` characters
 * @throws AppError FILE_PARSE_ERROR when a value has the wrong type, does not fit (no silent
 *   truncation), has more than 2 decimals, or contains a control character
 */
export function formatFixedLine<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  rec: RecordOf<F>,
  file: string,
  line: number,
  width: number = layout.width,
): string {
  const r = rec as Record<string, unknown>;
  let out = "";
  for (const f of layout.fields) {
    const v = r[f.name];
    const where = { file, line, field: f, position: f.start };
    if (f.start - 1 >= width) {
      if (!isEmptyValue(v)) {
        throw writeError(where, `cannot be written in a ${width}-character line; it must be empty`);
      }
      continue;
    }
    let s: string | undefined;
    if (v === null || v === undefined) {
      s = "";
    } else {
      switch (f.type) {
        case "text":
        case "code":
          s = typeof v === "string" && isWritableText(v) ? v : undefined;
          if (s !== undefined && f.type === "code" && parseCodeAt(s, 0, s.length) !== s) {
            s = undefined;
          }
          break;
        case "int":
          s = formatInt(v as number);
          break;
        case "amount":
        case "decimal":
          s = formatAmount(v as number);
          break;
        case "date":
          s = formatDate(v as string);
          break;
        default:
          s = formatPeriod(v as string, f.length);
      }
    }
    if (s === undefined) {
      throw writeError(where, `cannot hold ${JSON.stringify(v)}: ${writeReason(f)}`);
    }
    if (s.length > f.length) {
      throw writeError(
        where,
        `value "${s}" is ${s.length} characters long; the field holds ${f.length}`,
      );
    }
    out += f.align === "L" ? s.padEnd(f.length, " ") : s.padStart(f.length, " ");
  }
  return out;
}

function writeReason(f: FieldSpec): string {
  switch (f.type) {
    case "text":
      return "expected text without control characters";
    case "code":
      return "expected a code of Latin letters and digits";
    case "int":
      return "expected a non-negative whole number";
    case "amount":
    case "decimal":
      return "expected a finite number with at most 2 decimals";
    case "date":
      return "expected an ISO date YYYY-MM-DD";
    default:
      return "expected a period YYYYMM";
  }
}

/**
 * Format records as canonical file text: one line per record, each followed by CR LF
 * (docs/nra-formats.md §1.1; SKLADNIK expects CR LF after the last record too). No records give "".
 * @param layout the compiled table
 * @param records the records
 * @param file file name for messages
 * @param width line width to write (default canonical)
 * @returns the file text (encode it with `encodeCp1251`)
 * @throws AppError FILE_PARSE_ERROR as {@link formatFixedLine}
 */
export function formatFixedLines<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  records: readonly RecordOf<F>[],
  file: string,
  width: number = layout.width,
): string {
  let out = "";
  for (const [i, record] of records.entries()) {
    out += formatFixedLine(layout, record, file, i + 1, width) + "\r\n";
  }
  return out;
}
