/**
 * Which NRA file is this? Detection by content, following docs/nra-formats.md "How to use this"
 * ("Detect VAT files by line width … not by file name"), §1.5 (VIES record markers), §1.6
 * (590 / 274 / 424, older 272 / 422), §2.1 (D1: 53 fields) and §2.2 (D6: 59 fields; names
 * starting NRA62007). The name weighs more than width heuristics (lines padded past their
 * width, or shorter as if trimmed): when the content allows the kind the name says, the name
 * wins (docs/formats.md § Detection rules).
 * @module
 */
import { decodeCp1251 } from "./cp1251.ts";
import { cutFieldOf } from "./fixed_layout.ts";
import { type AnyFixedLayout, NRA_FILE_KINDS, NRA_FORMATS, type NraFileKind } from "./kinds.ts";
import { isBlankAt } from "./text_lines.ts";
import { decodeNraBytes } from "./text_encoding.ts";

export type { NraFileKind };

/** A detected kind, or "unknown". */

/** One fixed-width kind of the registry: its layout and widest width. */
interface FixedKind {
  readonly kind: NraFileKind;
  readonly layout: AnyFixedLayout;
  readonly widest: number;
}

const FIXED: readonly FixedKind[] = NRA_FILE_KINDS.flatMap((kind) => {
  const line = NRA_FORMATS[kind].line;
  if (line.shape !== "fixed") return [];
  return [{ kind, layout: line.layout, widest: Math.max(...line.layout.widths) }];
});

/** How many lines that are not blank are examined. */
const SAMPLE_LINES = 5;
/** Bytes of a file decoded for detection (5 records are far shorter). */
const HEAD_BYTES = 64 * 1024;

/**
 * Kind suggested by a file name alone (basename, case-insensitive), from the registry's
 * name prefixes: DEKLAR*, POKUPKI*, PRODAGBI*, VIES*, EMPL* (D1, §2.1) and NRA6* (D6, §2.2).
 * @param fileName a file name or path
 * @returns the kind the name suggests, or "unknown"
 * @throws nothing
 */
export function kindFromFileName(fileName: string): NraFileKind | "unknown" {
  // non-null: split always answers at least one part
  const base = fileName.split(/[\\/]/).pop()!.toUpperCase();
  return NRA_FILE_KINDS.find((k) => NRA_FORMATS[k].namePrefixes.some((p) => base.startsWith(p))) ??
    "unknown";
}

/** Comma-separated field count of `text[a, b)` honouring double quotes; -1 if malformed. */
function csvFieldCount(text: string, a: number, b: number): number {
  let n = 1;
  let inQuotes = false;
  for (let i = a; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) inQuotes = !inQuotes; // "" inside quotes toggles twice: fine
    else if (c === 0x2c && !inQuotes) n++;
  }
  return inQuotes ? -1 : n;
}

/** Whether `text[a, b)` holds only spaces. */
function spacesOnly(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (text.charCodeAt(i) !== 0x20) return false;
  return true;
}

/**
 * The kinds one line `text[a, b)` may belong to, record and delimited shapes first; `exact`
 * holds those it fits by content (record markers, field counts, an exact width), the others
 * fit only by a width heuristic (padded past the width, or shorter as if trimmed).
 */
function kindsOfLine(
  text: string,
  a: number,
  b: number,
): { kinds: NraFileKind[]; exact: NraFileKind[] } {
  const kinds: NraFileKind[] = [];
  const len = b - a;
  const marker = text.slice(a, Math.min(a + 3, b));
  const fields = text.indexOf('"', a) !== -1 && text.indexOf('"', a) < b
    ? csvFieldCount(text, a, b)
    : -1;
  for (const kind of NRA_FILE_KINDS) {
    const line = NRA_FORMATS[kind].line;
    if (line.shape === "records") {
      // A record no wider than its type, or padded with spaces past it (VIES.TXT padded to
      // 373, the VDR width, by some writers).
      const w = Object.hasOwn(line.widths, marker) ? line.widths[marker] : undefined;
      if (w !== undefined && (len <= w || spacesOnly(text, a + w, b))) kinds.push(kind);
    } else if (line.shape === "delimited" && fields === line.fields) {
      const c = text.charCodeAt(a);
      if (line.first === "digit" ? c >= 0x30 && c <= 0x39 : c === 0x22) kinds.push(kind);
    }
  }
  const width = FIXED.find((f) => f.layout.widths.includes(len));
  if (width !== undefined) kinds.push(width.kind);
  const exact = [...kinds];
  if (width !== undefined) return { kinds, exact };
  // Longer than a canonical width with only spaces after it: the widest such width wins (a
  // 590 line padded further is DEKLAR, not POKUPKI followed by spaces). Shorter, but wide
  // enough to be a record whose trailing spaces were trimmed (not cut inside a value): every
  // such kind, the narrowest width first.
  let longer: FixedKind | null = null;
  const shorter: FixedKind[] = [];
  for (const f of FIXED) {
    if (len > f.widest) {
      if ((longer === null || f.widest > longer.widest) && spacesOnly(text, a + f.widest, b)) {
        longer = f;
      }
    } else if (len >= f.layout.padFrom && cutFieldOf(f.layout, text, a, len) < 0) {
      shorter.push(f);
    }
  }
  if (longer !== null) kinds.push(longer.kind);
  shorter.sort((x, y) => x.widest - y.widest);
  for (const f of shorter) kinds.push(f.kind);
  return { kinds, exact };
}

/** The text examined: a decoded head of the file, whatever its encoding. */
function headText(input: Uint8Array | string): { text: string; capped: boolean } {
  if (typeof input === "string") return { text: input, capped: false };
  const capped = input.length > HEAD_BYTES;
  const head = capped ? input.subarray(0, HEAD_BYTES) : input;
  try {
    return { text: decodeNraBytes(head, "", { partial: capped }).text, capped };
  } catch {
    return { text: decodeCp1251(head), capped }; // mixed encodings: the parser will say so
  }
}

/**
 * The kinds the content allows, in the registry's order of preference: every one of the
 * first 5 lines that are not blank must allow the kind. `exact` are those every line fits by
 * content (record markers, field counts, exact widths), not only by a width heuristic.
 * Leading 0x1A characters of a line (files joined with `copy /b`) are ignored here; the
 * parser names them.
 * @param input raw file content, or text already decoded
 * @returns the kinds (`all`, [] when none fits or the file is empty) and the `exact` ones
 * @throws nothing
 */
export function contentKinds(
  input: Uint8Array | string,
): { all: NraFileKind[]; exact: NraFileKind[] } {
  const { text, capped } = headText(input);
  let end = text.length;
  while (end > 0) {
    const c = text.charCodeAt(end - 1);
    if (c !== 0x0a && c !== 0x0d && c !== 0x1a) break;
    end--;
  }
  let candidates: NraFileKind[] | null = null;
  let exact: NraFileKind[] | null = null;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let seen = 0;
  while (pos < end && seen < SAMPLE_LINES) {
    let nl = text.indexOf("\n", pos);
    // The last line of a capped head may be cut: only use it when it is the only one.
    if ((nl === -1 || nl > end) && capped && seen > 0) break;
    if (nl === -1 || nl > end) nl = end;
    let a = pos;
    let b = nl;
    pos = nl + 1;
    if (b > a && text.charCodeAt(b - 1) === 0x0d) b--;
    while (a < b && text.charCodeAt(a) === 0x1a) a++;
    if (isBlankAt(text, a, b)) continue;
    seen++;
    const line = kindsOfLine(text, a, b);
    candidates = candidates === null
      ? line.kinds
      : candidates.filter((k) => line.kinds.includes(k));
    exact = exact === null ? line.exact : exact.filter((k) => line.exact.includes(k));
    if (candidates.length === 0) return { all: [], exact: [] };
  }
  return { all: candidates ?? [], exact: exact ?? [] };
}

/**
 * Detect the kind of an NRA file from its content: VIES record markers with their widths
 * (records padded with spaces past them too), D1 (53 comma-separated fields) and D6 (59
 * fields), and the VAT line widths 590 / 274 / 272 / 424 / 422 (lines padded with spaces past
 * them, or shorter as if trimmed). The first 5 lines that are not blank must agree. Bytes are
 * decoded in whatever encoding they were saved in. The name weighs more than the width
 * heuristics: it wins when the content allows its kind, and when the content fits other kinds
 * only by a heuristic; a kind the content fits exactly wins over the name. The name alone
 * names an empty file (a 0-byte ledger).
 * @param input raw file content, or text already decoded
 * @param fileName optional name or path
 * @returns the kind, or "unknown"
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(detectFileKind(await Deno.readFile("fixtures/formats/pokupki/POKUPKI.TXT")), "pokupki");
 * ```
 */
export function detectFileKind(
  input: Uint8Array | string,
  fileName?: string,
): NraFileKind | "unknown" {
  const byName = fileName === undefined ? "unknown" : kindFromFileName(fileName);
  let empty = true;
  for (let i = 0; i < input.length && empty; i++) {
    const c = typeof input === "string" ? input.charCodeAt(i) : input[i];
    empty = c === 0x0a || c === 0x0d || c === 0x1a;
  }
  if (empty) return byName; // e.g. a 0-byte ledger (§1.1); the parser decides if it is valid
  const { all, exact } = contentKinds(input);
  if (byName !== "unknown" && (all.includes(byName) || (all.length > 0 && exact.length === 0))) {
    return byName;
  }
  return exact[0] ?? all[0] ?? "unknown";
}
