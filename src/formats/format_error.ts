/**
 * The one way this module builds errors: `AppError("FILE_PARSE_ERROR", …)` with
 * `details = { file, line, field, position }` and a message that names the file, the line and
 * the field, e.g. `Cannot parse "POKUPKI.TXT" line 12: field 03-07 (document date) at
 * position 63 is not a date dd/mm/yyyy`. Implements architecture.md "One error model".
 * @module
 */
import { AppError } from "../contract/mod.ts";

/** A field as named in messages: its code (e.g. "03-07" or "3") and English label. */
export interface FieldRef {
  /** Code from docs/nra-formats.md, e.g. "03-07", or the 1-based field number for D1/D6. */
  readonly code: string;
  /** English label, e.g. "document date". */
  readonly label: string;
}

/** Where an error happened; every member is optional because not all errors have all. */
export interface ErrorWhere {
  /** File name shown in quotes, e.g. "POKUPKI.TXT". */
  readonly file: string;
  /** 1-based line (record) number, or null for whole-file errors. */
  readonly line?: number | null;
  /** The field, or null for line-level errors. */
  readonly field?: FieldRef | null;
  /** 1-based character position of the field in its line, or null. */
  readonly position?: number | null | undefined;
}

function build(verb: "parse" | "write", where: ErrorWhere, reason: string): AppError {
  const line = where.line ?? null;
  const field = where.field ?? null;
  const position = where.position ?? null;
  let msg = `Cannot ${verb} "${where.file}"`;
  if (line !== null) msg += ` line ${line}`;
  msg += ": ";
  if (field !== null) {
    msg += `field ${field.code} (${field.label})`;
    if (position !== null) msg += ` at position ${position}`;
    msg += " ";
  }
  msg += reason;
  return new AppError("FILE_PARSE_ERROR", msg, {
    file: where.file,
    line,
    field: field === null ? null : field.code,
    position,
  });
}

/**
 * Build the FILE_PARSE_ERROR for input that cannot be read.
 * @param where file, line, field and position of the problem
 * @param reason the tail of the message, e.g. "is not a date dd/mm/yyyy"
 * @returns the error (the caller throws it)
 * @throws nothing
 */
export function parseError(where: ErrorWhere, reason: string): AppError {
  return build("parse", where, reason);
}

/**
 * Build the FILE_PARSE_ERROR for a record that cannot be written (overflow, bad value).
 * @param where file, line, field and position of the problem
 * @param reason the tail of the message, e.g. "is 57 characters long; the field holds 50"
 * @returns the error (the caller throws it)
 * @throws nothing
 */
export function writeError(where: ErrorWhere, reason: string): AppError {
  return build("write", where, reason);
}

/**
 * A field's text as quoted in messages: at most 20 characters (then "…"), with invisible
 * control characters shown as ⟨U+XXXX⟩ so that a stray 0x1A or NUL is named, not hidden.
 * @param s the field's raw text
 * @returns the text to put between quotes
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(showFound("\x1a3"), "⟨U+001A⟩3");
 * ```
 */
export function showFound(s: string): string {
  const cut = s.length > 20 ? s.slice(0, 20) + "…" : s;
  let out = "";
  for (const c of cut) {
    const n = c.charCodeAt(0);
    out += n < 0x20 || n === 0x7f ? `⟨U+${n.toString(16).toUpperCase().padStart(4, "0")}⟩` : c;
  }
  return out;
}
