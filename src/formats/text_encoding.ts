/**
 * Which character encoding an NRA file is saved in, and its text. The NRA wants Windows-1251
 * (docs/nra-formats.md §1.1, §2.1, §2.2), but files re-saved by an editor or written by other
 * programs arrive as UTF-8 (with or without a byte-order mark), UTF-16, or Windows-1251 behind
 * a UTF-8 byte-order mark (docs/formats.md). Readers decode each correctly and warn
 * (`file_warnings.ts`); submissions refuse anything but plain Windows-1251 with
 * FILE_ENCODING_UNSUPPORTED ({@link requireWindows1251}): the bytes signed and sent are the
 * accountant's own, never a conversion.
 *
 * Rules, in order: a byte-order mark (EF BB BF, FF FE, FE FF) names the encoding — unless the
 * bytes after EF BB BF are not UTF-8, which is Windows-1251 behind a stray mark, or the first
 * character after FF FE / FE FF is not Latin or Cyrillic (Windows-1251 "яю…"); two NULs in
 * the first four bytes mean UTF-16 without a mark; bytes that are valid UTF-8 and hold a
 * character outside ASCII are UTF-8 (Windows-1251 Cyrillic is never valid UTF-8: two capital
 * or small letters in a row are two lead bytes); anything else is Windows-1251. A file whose
 * first non-ASCII characters are UTF-8 Cyrillic but which is not UTF-8 throughout mixes both
 * (files joined with `copy /b`) and is refused, since either reading garbles names.
 * @module
 */
import { AppError } from "../contract/mod.ts";
import { decodeCp1251 } from "./cp1251.ts";
import type { FileWarning } from "./file_warnings.ts";

/** The encodings a reader can meet. */
export type NraEncoding = "windows-1251" | "utf-8" | "utf-16le" | "utf-16be";

/** A file's text and how it was stored. */
export interface DecodedText {
  /** The text, without a byte-order mark. */
  readonly text: string;
  /** How the bytes were decoded. */
  readonly encoding: NraEncoding;
  /** Bytes of the byte-order mark skipped at the start: 0, 2 (UTF-16) or 3 (EF BB BF). */
  readonly bomLength: number;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const UTF16LE = new TextDecoder("utf-16le", { ignoreBOM: true });
const UTF16BE = new TextDecoder("utf-16be", { ignoreBOM: true });

/** UTF-8 text of `b`, or null when `b` is not UTF-8 (a cut last character is fine if partial). */
function utf8(b: Uint8Array, partial: boolean): string | null {
  try {
    return partial
      ? new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(b, { stream: true })
      : UTF8.decode(b);
  } catch {
    return null;
  }
}

/** Whether `b[i]`, `b[i + 1]` is the UTF-8 encoding of a Cyrillic letter (U+0400–U+04FF). */
function cyrillicUtf8At(b: Uint8Array, i: number): boolean {
  const c = b[i], next = b[i + 1];
  return c !== undefined && next !== undefined && c >= 0xd0 && c <= 0xd3 && (next & 0xc0) === 0x80;
}

/** Index of the first byte ≥ 0x80 in `b[i, end)`, or -1. */
function nextHigh(b: Uint8Array, i: number, end = b.length): number {
  while (i < end && b[i]! < 0x80) i++; // non-null: end <= b.length
  return i < end ? i : -1;
}

/** Whether a well-formed UTF-8 sequence (or one cut by the end of `b`) starts at `b[i]`. */
function utf8SequenceAt(b: Uint8Array, i: number): boolean {
  const c = b[i];
  if (c === undefined) return false;
  const n = c >= 0xc2 && c <= 0xdf
    ? 1
    : c >= 0xe0 && c <= 0xef
    ? 2
    : c >= 0xf0 && c <= 0xf4
    ? 3
    : -1;
  if (n < 0) return false;
  // non-null: i + k < b.length (the loop's condition)
  for (let k = 1; k <= n && i + k < b.length; k++) if ((b[i + k]! & 0xc0) !== 0x80) return false;
  return true;
}

/** Bytes looked at before asking the UTF-8 decoder (which throws, slowly, on Windows-1251). */
const SNIFF_BYTES = 4096;

function mixedError(b: Uint8Array, at: number, offset: number, file: string): AppError {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (b[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return new AppError(
    "FILE_ENCODING_UNSUPPORTED",
    `Cannot read "${file}" line ${line}: it mixes UTF-8 (from byte ${at + offset + 1}, position ${
      at - lineStart + 1
    }) and Windows-1251 text, so either reading would garble ` +
      `names. The NRA accepts only Windows-1251: save the whole file as "Windows-1251" ` +
      `("ANSI") from one program, and do not join files with "copy /b"`,
    { file, line, encoding: "mixed" },
  );
}

/** Decode bytes without a byte-order mark; `ascii` when every byte was below 0x80. */
function decodeBare(
  b: Uint8Array,
  partial: boolean,
  offset: number,
  file: string,
): { text: string; encoding: NraEncoding; ascii: boolean } {
  // The usual case — Windows-1251 Cyrillic early in the file — is told by its first non-ASCII
  // byte, without the cost of a decoder failing (an exception per file in a 20,000-file scan).
  const early = nextHigh(b, 0, Math.min(b.length, SNIFF_BYTES));
  if (early >= 0 && !utf8SequenceAt(b, early)) {
    return { text: decodeCp1251(b), encoding: "windows-1251", ascii: false };
  }
  const text = utf8(b, partial);
  if (text !== null) {
    // Equal lengths: every byte was ASCII, which reads the same in Windows-1251.
    const ascii = text.length === b.length;
    return { text, encoding: ascii ? "windows-1251" : "utf-8", ascii };
  }
  const first = nextHigh(b, 0);
  if (first >= 0 && cyrillicUtf8At(b, first)) {
    const second = nextHigh(b, first + 2);
    if (second >= 0 && cyrillicUtf8At(b, second)) throw mixedError(b, first, offset, file);
  }
  return { text: decodeCp1251(b), encoding: "windows-1251", ascii: false };
}

/**
 * Decode an NRA file's bytes in whatever encoding they were saved in (see the module notes).
 * @param bytes the file's bytes (or its first bytes, with `partial`)
 * @param fileName name for messages
 * @param options `partial`: the bytes are a head of the file, so a character may be cut at
 *   the end
 * @returns the text (without a byte-order mark), its encoding and the mark's length
 * @throws AppError FILE_ENCODING_UNSUPPORTED when the file mixes UTF-8 and Windows-1251
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(decodeNraBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0xcf]), "D.TXT"), { text: "П", encoding: "windows-1251", bomLength: 3 });
 * ```
 */
export function decodeNraBytes(
  bytes: Uint8Array,
  fileName: string,
  options: { partial?: boolean } = {},
): DecodedText {
  const partial = options.partial ?? false;
  const b0 = bytes[0], b1 = bytes[1];
  if (b0 === 0xef && b1 === 0xbb && bytes[2] === 0xbf) {
    const body = bytes.subarray(3);
    const d = decodeBare(body, partial, 3, fileName);
    // ASCII behind the mark: what an editor writes as "UTF-8 with BOM".
    return { text: d.text, encoding: d.ascii ? "utf-8" : d.encoding, bomLength: 3 };
  }
  // A UTF-16 mark is followed by a character of Latin or Cyrillic (high byte 0x00 or 0x04):
  // a Windows-1251 line starting "яю" or "юя" is not UTF-16.
  const plausible = (high: number | undefined) => high === undefined || high === 0 || high === 4;
  const le = b0 === 0xff && b1 === 0xfe && plausible(bytes[3]);
  const be = b0 === 0xfe && b1 === 0xff && plausible(bytes[2]);
  const bom = le || be ? 2 : 0;
  const bareLe = !bom && bytes.length >= 4 && b0 !== 0 && b1 === 0 && bytes[3] === 0;
  const bareBe = !bom && bytes.length >= 4 && b0 === 0 && bytes[2] === 0 && b1 !== 0;
  if (le || be || bareLe || bareBe) {
    let body = bytes.subarray(bom);
    if (body.length % 2 === 1) body = body.subarray(0, body.length - 1); // a cut code unit
    const little = le || bareLe;
    return {
      text: (little ? UTF16LE : UTF16BE).decode(body),
      encoding: little ? "utf-16le" : "utf-16be",
      bomLength: bom,
    };
  }
  const d = decodeBare(bytes, partial, 0, fileName);
  return { text: d.text, encoding: d.encoding, bomLength: 0 };
}

/**
 * How a decoded file was stored, in words: "UTF-8", "UTF-8 with a byte-order mark",
 * "UTF-16LE", "Windows-1251 behind a UTF-8 byte-order mark", or "Windows-1251".
 * @param d the decoding
 * @returns the description
 * @throws nothing
 */
export function describeEncoding(d: Pick<DecodedText, "encoding" | "bomLength">): string {
  if (d.encoding === "windows-1251") {
    return d.bomLength > 0 ? "Windows-1251 behind a UTF-8 byte-order mark" : "Windows-1251";
  }
  const name = d.encoding === "utf-8" ? "UTF-8" : d.encoding.toUpperCase();
  return d.bomLength > 0 ? `${name} with a byte-order mark` : name;
}

/**
 * The warning for a file that is not plain Windows-1251, or null.
 * @param d the decoding
 * @param file name for the message
 * @returns ENCODING_UTF8, ENCODING_UTF16 or BYTE_ORDER_MARK, or null for plain Windows-1251
 * @throws nothing
 */
export function encodingWarning(d: DecodedText, file: string): FileWarning | null {
  if (d.encoding === "windows-1251") {
    if (d.bomLength === 0) return null;
    return {
      code: "BYTE_ORDER_MARK",
      file,
      line: 1,
      message: `"${file}" is Windows-1251 behind a UTF-8 byte-order mark (bytes EF BB BF): ` +
        `the mark was skipped. The NRA accepts only plain Windows-1251: save the file as ` +
        `"Windows-1251" ("ANSI") before filing`,
      messageBg: `„${file}“ е в Windows-1251, но започва с UTF-8 маркер (BOM, байтове ` +
        `EF BB BF): маркерът е пропуснат. НАП приема само Windows-1251 без маркер — запишете ` +
        `файла като „Windows-1251“ („ANSI“) преди подаване`,
    };
  }
  const read = d.encoding === "utf-8" ? "UTF-8" : "UTF-16";
  return {
    code: d.encoding === "utf-8" ? "ENCODING_UTF8" : "ENCODING_UTF16",
    file,
    message: `"${file}" is saved as ${describeEncoding(d)}, not Windows-1251: it was read as ` +
      `${read}. The NRA accepts only Windows-1251: save it as "Windows-1251" ("ANSI") before ` +
      `filing`,
    messageBg: `„${file}“ е записан като ${describeEncoding(d)}, не като Windows-1251: ` +
      `прочетен е като ${read}. НАП приема само Windows-1251 — запишете го като ` +
      `„Windows-1251“ („ANSI“) преди подаване`,
  };
}

/**
 * Refuse a file to be filed unless it is plain Windows-1251 (or ASCII), as the NRA accepts
 * it. The agent never converts: what is signed and sent are the accountant's own bytes.
 * @param bytes the file's bytes
 * @param fileName the file, as shown to the user
 * @returns nothing
 * @throws AppError FILE_ENCODING_UNSUPPORTED naming the file, its encoding and the fix
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * const utf8 = new TextEncoder().encode("ИВАНОВ");
 * throws(() => requireWindows1251(utf8, "EMPL2021.TXT"), { code: "FILE_ENCODING_UNSUPPORTED" });
 * ```
 */
export function requireWindows1251(bytes: Uint8Array, fileName: string): void {
  const d = decodeNraBytes(bytes, fileName);
  if (d.encoding === "windows-1251" && d.bomLength === 0) return;
  const how = describeEncoding(d);
  throw new AppError(
    "FILE_ENCODING_UNSUPPORTED",
    `Cannot file "${fileName}": it is saved as ${how}, but the NRA accepts only Windows-1251. ` +
      `Save it again as "Windows-1251" ("ANSI" in Notepad's Save as → Encoding) and retry`,
    { file: fileName, encoding: how },
  );
}
