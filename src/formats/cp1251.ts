/**
 * Windows-1251 (cp1251) decoding and encoding for NRA files. Implements nra-formats.md §1.1
 * ("Encoding: Windows-1251") and §2.1/§2.2 (D1/D6 are "ANSI Windows-1251"); the tool choice
 * (TextDecoder to decode, iconv-lite to encode) follows toolchain.md §2.
 * @module
 */
import iconv from "iconv-lite";
import { AppError } from "../contract/errors.ts";

const DECODER = new TextDecoder("windows-1251");
const QUESTION_MARK = 0x3f;

/**
 * Decode Windows-1251 bytes to a string. Every byte maps to a character, so decoding never
 * fails; the result has exactly one UTF-16 code unit per input byte.
 *
 * Implements nra-formats.md §1.1 (encoding) with `TextDecoder("windows-1251")`.
 * @param bytes raw file content
 * @returns the decoded text
 * @throws nothing
 * @example
 * ```ts
 * decodeCp1251(new Uint8Array([0xcf, 0xf0, 0xe8])); // "При"
 * ```
 */
export function decodeCp1251(bytes: Uint8Array): string {
  return DECODER.decode(bytes);
}

/**
 * Encode a string as Windows-1251 bytes with iconv-lite, refusing characters that have no
 * Windows-1251 byte instead of writing "?" for them.
 *
 * Implements nra-formats.md §1.1 (encoding); canonical NRA files are cp1251.
 * @param text the text to encode (for example the output of a `writeX()` function)
 * @param fileName file name used in error messages (default "file")
 * @returns a plain Uint8Array (not a Node Buffer) with one byte per character
 * @throws AppError FILE_PARSE_ERROR when a character cannot be encoded; `details` name the
 *   file, line, 1-based position and the code point
 * @example
 * ```ts
 * encodeCp1251("При"); // Uint8Array [0xcf, 0xf0, 0xe8]
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
    if (out[i] === QUESTION_MARK && text.charCodeAt(i) !== QUESTION_MARK) {
      throw unencodable(text, i, fileName);
    }
  }
  return out;
}

function unencodable(text: string, index: number, fileName: string): AppError {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  const cp = text.codePointAt(index) ?? 0;
  const hex = "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
  const position = index - lineStart + 1;
  return new AppError(
    "FILE_PARSE_ERROR",
    `Cannot write "${fileName}" line ${line}: character "${
      String.fromCodePoint(cp)
    }" (${hex}) at position ${position} has no Windows-1251 encoding`,
    { file: fileName, line, field: null, position, character: hex },
  );
}
