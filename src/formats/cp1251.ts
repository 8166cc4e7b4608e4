/**
 * Windows-1251 (cp1251) decoding for NRA files, and the check that a text has a Windows-1251
 * encoding. Implements docs/nra-formats.md §1.1 (Windows-1251) and §2.1, §2.2 (D1/D6 are
 * Windows-1251 too); the tool choice (TextDecoder to decode, iconv-lite to encode) follows
 * docs/nra-formats.md §1.1. Encoding lives in `cp1251_encode.ts`, so that reading files does not
 * load iconv-lite (~4 MB and ~28 ms of the agent's start, BENCHMARKS.md § Agent cold start).
 * @module
 */
import { AppError } from "../contract/mod.ts";

const DECODER = new TextDecoder("windows-1251");
/**
 * The characters Windows-1251 has: what its decoder makes of the 256 bytes, less U+0098 (byte
 * 0x98 is unassigned in Windows-1251; the WHATWG decoder passes it through, iconv-lite does not
 * encode it).
 */
const REPERTOIRE = new Set(DECODER.decode(Uint8Array.from({ length: 256 }, (_, i) => i)));
REPERTOIRE.delete("\u0098");

/**
 * Decode Windows-1251 bytes to a string. Every byte maps to a character, so decoding never
 * fails; the result has exactly one UTF-16 code unit per input byte.
 *
 * Implements docs/nra-formats.md §1.1 (encoding) with `TextDecoder("windows-1251")`.
 * @param bytes raw file content
 * @returns the decoded text
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(decodeCp1251(new Uint8Array([0xcf, 0xf0, 0xe8])), "При");
 * ```
 */
export function decodeCp1251(bytes: Uint8Array): string {
  return DECODER.decode(bytes);
}

/**
 * Where a text stops being encodable as Windows-1251.
 * @param text the text to check
 * @returns the UTF-16 index of the first character Windows-1251 has no byte for, or -1
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(firstUnencodableCp1251("При €"), -1); // every character has a byte (0x88 is €)
 * ```
 */
export function firstUnencodableCp1251(text: string): number {
  for (let i = 0; i < text.length; i++) {
    // non-null: i < text.length
    if (!REPERTOIRE.has(text[i]!)) return i;
  }
  return -1;
}

/**
 * The error for a character without a Windows-1251 byte (shared with `encodeCp1251`).
 * @param text the text being written
 * @param index UTF-16 index of the character
 * @param fileName file name for the message
 * @returns AppError FILE_PARSE_ERROR whose `details` name the file, line, 1-based position and
 *   the code point
 */
export function unencodable(text: string, index: number, fileName: string): AppError {
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
