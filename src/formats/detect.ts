/**
 * Which NRA file is this? Detection by content first, name only as a tie-breaker, following
 * nra-formats.md "How to use this" ("Detect VAT files by line width … not by file name"),
 * §1.5 (VIES record markers), §1.6 (590 / 274 / 424, older 272 / 422), §2.1 (D1: 53 fields)
 * and §2.2 (D6: 59 fields; names starting NRA62007).
 * @module
 */
import { NRA_FILE_KINDS, NRA_FORMATS, type NraFileKind } from "./kinds.ts";

export type { NraFileKind };

/** A detected kind, or "unknown". */
export type DetectedKind = NraFileKind | "unknown";

/** Fixed-width kinds: [width, kind, widest width of that kind], from the registry. */
const FIXED_WIDTHS: ReadonlyArray<readonly [number, NraFileKind, number]> = NRA_FILE_KINDS
  .flatMap((kind) => {
    const line = NRA_FORMATS[kind].line;
    if (line.shape !== "fixed") return [];
    const widest = Math.max(...line.widths);
    return line.widths.map((w) => [w, kind, widest] as const);
  });

/** How many lines are examined for detection. */
const SAMPLE_LINES = 5;

/**
 * Kind suggested by a file name alone (basename, case-insensitive), from the registry's
 * name prefixes: DEKLAR*, POKUPKI*, PRODAGBI*, VIES*, EMPL* (D1, §2.1) and NRA6* (D6, §2.2).
 * @param fileName a file name or path
 * @returns the kind the name suggests, or "unknown"
 * @throws nothing
 */
export function kindFromFileName(fileName: string): DetectedKind {
  const base = fileName.split(/[\\/]/).pop()!.toUpperCase();
  return NRA_FILE_KINDS.find((k) => NRA_FORMATS[k].namePrefixes.some((p) => base.startsWith(p))) ??
    "unknown";
}

function lineBounds(bytes: Uint8Array, end: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let pos = 0;
  while (pos < end && out.length < SAMPLE_LINES) {
    let nl = bytes.indexOf(0x0a, pos);
    if (nl === -1 || nl > end) nl = end;
    let e = nl;
    if (e > pos && bytes[e - 1] === 0x0d) e--;
    out.push([pos, e]);
    pos = nl + 1;
  }
  return out;
}

/** Comma-separated field count of `bytes[a, b)` honouring double quotes; -1 if malformed. */
function csvFieldCount(bytes: Uint8Array, a: number, b: number): number {
  let n = 1;
  let inQuotes = false;
  for (let i = a; i < b; i++) {
    const c = bytes[i];
    if (c === 0x22) inQuotes = !inQuotes; // "" inside quotes toggles twice: fine
    else if (c === 0x2c && !inQuotes) n++;
  }
  return inQuotes ? -1 : n;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function kindOfLine(bytes: Uint8Array, a: number, b: number): NraFileKind[] {
  const kinds: NraFileKind[] = [];
  const len = b - a;
  const marker = len >= 3 ? String.fromCharCode(bytes[a], bytes[a + 1], bytes[a + 2]) : "";
  const fields = bytes.subarray(a, b).includes(0x22) ? csvFieldCount(bytes, a, b) : -1;
  for (const kind of NRA_FILE_KINDS) {
    const line = NRA_FORMATS[kind].line;
    if (line.shape === "records") {
      const w = Object.hasOwn(line.widths, marker) ? line.widths[marker] : undefined;
      if (w !== undefined && len <= w) kinds.push(kind);
    } else if (line.shape === "delimited" && fields === line.fields) {
      if (line.first === "digit" ? isDigit(bytes[a]) : bytes[a] === 0x22) kinds.push(kind);
    }
  }
  const exact = FIXED_WIDTHS.find(([width]) => width === len);
  if (exact !== undefined) {
    kinds.push(exact[1]);
  } else {
    // Longer than a canonical width with only spaces after it: the widest such width wins
    // (a 590 line padded further is DEKLAR, not POKUPKI followed by spaces).
    let best: NraFileKind | null = null;
    let bestWidth = 0;
    for (const [width, kind, widest] of FIXED_WIDTHS) {
      if (width !== widest || len <= width || width <= bestWidth) continue;
      let allSpaces = true;
      for (let i = a + width; i < b && allSpaces; i++) allSpaces = bytes[i] === 0x20;
      if (allSpaces) {
        best = kind;
        bestWidth = width;
      }
    }
    if (best !== null) kinds.push(best);
  }
  return kinds;
}

/**
 * Detect the kind of an NRA file from its bytes: VIES record markers with their widths, D1
 * (53 comma-separated fields) and D6 (59 fields), and the VAT line widths 590 / 274 / 272 /
 * 424 / 422. Up to the first 5 lines must agree. The file name only breaks ties (and names
 * an empty file, e.g. a 0-byte ledger).
 * @param bytes raw file content
 * @param fileName optional name or path, used only as a tie-breaker
 * @returns the kind, or "unknown"
 * @throws nothing
 * @example
 * ```ts
 * detectFileKind(encodeCp1251(writePokupki(records))); // "pokupki"
 * ```
 */
export function detectFileKind(bytes: Uint8Array, fileName?: string): DetectedKind {
  const byName = fileName === undefined ? "unknown" : kindFromFileName(fileName);
  let end = bytes.length;
  while (
    end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d || bytes[end - 1] === 0x1a)
  ) {
    end--;
  }
  if (end === 0) return byName; // e.g. a 0-byte ledger (§1.1); the parser decides if it is valid
  let candidates: NraFileKind[] | null = null;
  for (const [a, b] of lineBounds(bytes, end)) {
    const kinds = kindOfLine(bytes, a, b);
    candidates = candidates === null ? kinds : candidates.filter((k) => kinds.includes(k));
    if (candidates.length === 0) return "unknown";
  }
  if (candidates === null || candidates.length === 0) return "unknown";
  if (candidates.length === 1) return candidates[0];
  return byName !== "unknown" && candidates.includes(byName) ? byName : candidates[0];
}
