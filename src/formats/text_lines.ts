/**
 * Splits decoded file text into records without copying: one `[start, end)` span per line.
 * Accepts CRLF and LF, with or without a line break after the last record, and a trailing
 * CTRL+Z (0x1A) end marker (nra-formats.md "How to use this", §1.1 and §2.1).
 * @module
 */
import { decodeCp1251 } from "./cp1251.ts";

/** Line spans of a text: `starts[i]`/`ends[i]` bound line `i + 1`, without its line break. */
export interface LineSpans {
  /** Number of lines (records). */
  readonly count: number;
  /** Start offsets (inclusive) into the text. */
  readonly starts: readonly number[];
  /** End offsets (exclusive), before CR LF / LF. */
  readonly ends: readonly number[];
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
 * Split text into line spans. Blank lines in the middle are kept (as empty spans) so that
 * line numbers in errors match what an editor shows; trailing blank lines are dropped.
 * @param text decoded file text
 * @returns the spans; `count` is 0 for an empty file (an empty ledger, §1.1)
 * @throws nothing
 */
export function lineSpans(text: string): LineSpans {
  const end = contentEnd(text);
  const starts: number[] = [];
  const ends: number[] = [];
  let pos = 0;
  while (pos < end) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    let e = nl;
    if (e > pos && text.charCodeAt(e - 1) === 0x0d) e--;
    starts.push(pos);
    ends.push(e);
    pos = nl + 1;
  }
  return { count: starts.length, starts, ends };
}

/**
 * Decode input for a parser: bytes are read as Windows-1251, strings pass through.
 * @param input raw bytes of the file, or text already decoded
 * @returns the text
 * @throws nothing
 */
export function toText(input: Uint8Array | string): string {
  return typeof input === "string" ? input : decodeCp1251(input);
}
