/**
 * Windows-1251 (cp1251) encoding with iconv-lite (docs/nra-formats.md §1.1), for writing NRA files.
 * Implements docs/nra-formats.md §1.1 (encoding); canonical NRA files are cp1251. Kept apart from
 * `cp1251.ts` so that only writers load iconv-lite.
 * @module
 */
import iconv from "iconv-lite";
import { unencodable } from "../cp1251.ts";

const QUESTION_MARK = 0x3f;
const UNASSIGNED = 0x98;

/**
 * Encode a string as Windows-1251 bytes with iconv-lite, refusing characters that have no
 * Windows-1251 byte instead of writing "?" (or the unassigned byte 0x98, for U+FFFD) for them.
 *
 * Implements docs/nra-formats.md §1.1 (encoding); canonical NRA files are cp1251.
 * @param text the text to encode (for example the output of a `writeX()` function)
 * @param fileName file name used in error messages (default "file")
 * @returns a plain Uint8Array (not a Node Buffer) with one byte per character
 * @throws AppError FILE_PARSE_ERROR when a character cannot be encoded; `details` name the
 *   file, line, 1-based position and the code point
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(encodeCp1251("При"), new Uint8Array([0xcf, 0xf0, 0xe8]));
 * ```
 */
export function encodeCp1251(text: string, fileName = "file"): Uint8Array<ArrayBuffer> {
  const buf = iconv.encode(text, "win1251");
  const out = new Uint8Array(buf.length);
  out.set(buf);
  if (out.length !== text.length) {
    // Astral characters (surrogate pairs) never exist in cp1251: find the first one.
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdfff) throw unencodable(text, i, fileName);
    }
    throw unencodable(text, 0, fileName);
  }
  for (let i = 0; i < out.length; i++) {
    // "?" is iconv-lite's stand-in for a character it cannot encode; 0x98 is unassigned in
    // Windows-1251 (iconv-lite writes it for U+FFFD, the replacement character).
    if (
      (out[i] === QUESTION_MARK && text.charCodeAt(i) !== QUESTION_MARK) || out[i] === UNASSIGNED
    ) {
      throw unencodable(text, i, fileName);
    }
  }
  return out;
}
