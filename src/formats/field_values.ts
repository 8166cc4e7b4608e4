/**
 * Value codecs shared by the fixed-width engine (VAT files) and the comma-separated engine
 * (D1/D6). Parsers read `s` between `a` (inclusive) and `b` (exclusive) without slicing, trim
 * spaces and tabs first, and return `null` for an empty field and `undefined` for an invalid
 * one, so the hot loop allocates nothing for numbers and throws only once, with context.
 * Formats follow docs/nra-formats.md §1.1 (amounts with a decimal point and 2 decimals, leading
 * "-"; dates dd/mm/yyyy; periods YYYYMM, VIES MM/YYYY) and §2.1 (D1 numbers "7.2").
 * @module
 */

/** True for the padding characters trimmed from every field (space, tab). */
function isPad(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * Index of the first non-padding character in `s[a, b)`.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns `a` advanced past spaces and tabs (at most `b`)
 * @throws nothing
 */
export function trimStartAt(s: string, a: number, b: number): number {
  while (a < b && isPad(s.charCodeAt(a))) a++;
  return a;
}

/**
 * End index of `s[a, b)` without trailing spaces and tabs.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns `b` moved back past padding (at least `a`)
 * @throws nothing
 */
export function trimEndAt(s: string, a: number, b: number): number {
  while (b > a && isPad(s.charCodeAt(b - 1))) b--;
  return b;
}

/**
 * Parse a text field: the trimmed slice (docs/nra-formats.md "trim() every field").
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns the trimmed text, "" when blank
 * @throws nothing
 */
export function parseTextAt(s: string, a: number, b: number): string {
  a = trimStartAt(s, a, b);
  b = trimEndAt(s, a, b);
  return a === b ? "" : s.slice(a, b);
}

/**
 * True when `s[a, b)` trimmed holds only Latin letters and digits (a code field: document
 * type, special code, VIES capacity); blank is fine.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns whether the field is a valid code
 * @throws nothing
 */
export function isCodeAt(s: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isPad(c))) {
      return false;
    }
  }
  // Padding may only surround the code, not split it.
  const x = trimStartAt(s, a, b);
  const y = trimEndAt(s, x, b);
  for (let i = x; i < y; i++) if (isPad(s.charCodeAt(i))) return false;
  return true;
}

/**
 * Parse a code field (document type, special code, VIES capacity): letters and digits only.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns the code, "" when blank, `undefined` when another character occurs
 * @throws nothing
 */
export function parseCodeAt(s: string, a: number, b: number): string | undefined {
  return isCodeAt(s, a, b) ? parseTextAt(s, a, b) : undefined;
}

/**
 * Parse a non-negative whole number of at most 15 digits (counts, running numbers, branch).
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns the number, `null` when blank, `undefined` when not digits
 * @throws nothing
 */
export function parseIntAt(s: string, a: number, b: number): number | null | undefined {
  a = trimStartAt(s, a, b);
  b = trimEndAt(s, a, b);
  if (a === b) return null;
  if (b - a > 15) return undefined;
  let n = 0;
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return undefined;
    n = n * 10 + c;
  }
  return n;
}

/**
 * Parse an amount or decimal: optional "-", digits, optional "." and 1–2 decimals. The value is
 * computed in integer cents and divided by 100, which yields the double nearest to the decimal
 * text, so `formatAmount(parseAmountAt(x))` gives back the canonical text exactly.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns the number (never -0), `null` when blank, `undefined` when malformed
 * @throws nothing
 */
export function parseAmountAt(s: string, a: number, b: number): number | null | undefined {
  a = trimStartAt(s, a, b);
  b = trimEndAt(s, a, b);
  if (a === b) return null;
  let neg = false;
  if (s.charCodeAt(a) === 45) {
    neg = true;
    a++;
  }
  let whole = 0;
  let wholeDigits = 0;
  let c = 0;
  while (a < b) {
    c = s.charCodeAt(a) - 48;
    if (c < 0 || c > 9) break;
    whole = whole * 10 + c;
    wholeDigits++;
    a++;
  }
  let frac = 0;
  let fracDigits = 0;
  if (a < b) {
    if (s.charCodeAt(a) !== 46) return undefined;
    a++;
    while (a < b) {
      c = s.charCodeAt(a) - 48;
      if (c < 0 || c > 9 || fracDigits === 2) return undefined;
      frac = frac * 10 + c;
      fracDigits++;
      a++;
    }
    if (fracDigits === 0) return undefined;
  }
  if (wholeDigits === 0 && fracDigits === 0) return undefined;
  if (wholeDigits > 13) return undefined;
  if (fracDigits === 1) frac *= 10;
  const cents = whole * 100 + frac;
  if (cents === 0) return 0;
  return neg ? -cents / 100 : cents / 100;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1000;
}

/**
 * True when year/month/day is a real calendar date (1000–9999, Gregorian leap years).
 * @param y year
 * @param m month 1–12
 * @param d day of month
 * @returns whether the date exists
 * @throws nothing
 */
export function isCalendarDate(y: number, m: number, d: number): boolean {
  if (!(y >= 1000 && y <= 9999 && m >= 1 && m <= 12 && d >= 1)) return false;
  // A fractional month has no entry: no such day.
  return d <= (m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1] ?? 0);
}

/**
 * Read a date `dd/mm/yyyy` (docs/nra-formats.md §1.1) as the number yyyymmdd, without allocating.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns yyyymmdd, 0 when blank, -1 when not a real date
 * @throws nothing
 */
export function dateKeyAt(s: string, a: number, b: number): number {
  a = trimStartAt(s, a, b);
  b = trimEndAt(s, a, b);
  if (a === b) return 0;
  if (b - a !== 10 || s.charCodeAt(a + 2) !== 47 || s.charCodeAt(a + 5) !== 47) return -1;
  const d1 = s.charCodeAt(a) - 48, d2 = s.charCodeAt(a + 1) - 48;
  const m1 = s.charCodeAt(a + 3) - 48, m2 = s.charCodeAt(a + 4) - 48;
  const y1 = s.charCodeAt(a + 6) - 48, y2 = s.charCodeAt(a + 7) - 48;
  const y3 = s.charCodeAt(a + 8) - 48, y4 = s.charCodeAt(a + 9) - 48;
  // `x >>> 0 > 9` is true for every non-digit (negatives wrap to large numbers).
  if (
    d1 >>> 0 > 9 || d2 >>> 0 > 9 || m1 >>> 0 > 9 || m2 >>> 0 > 9 || y1 >>> 0 > 9 ||
    y2 >>> 0 > 9 || y3 >>> 0 > 9 || y4 >>> 0 > 9
  ) return -1;
  const d = d1 * 10 + d2;
  const m = m1 * 10 + m2;
  const y = y1 * 1000 + y2 * 100 + y3 * 10 + y4;
  return isCalendarDate(y, m, d) ? y * 10000 + m * 100 + d : -1;
}

/**
 * ISO date text of a yyyymmdd number from {@link dateKeyAt}.
 * @param key yyyymmdd
 * @returns "YYYY-MM-DD"
 * @throws nothing
 */
export function isoDateOfKey(key: number): string {
  const y = Math.floor(key / 10000);
  const m = Math.floor(key / 100) % 100;
  const d = key % 100;
  return y + (m < 10 ? "-0" : "-") + m + (d < 10 ? "-0" : "-") + d;
}

/**
 * Parse a date `dd/mm/yyyy` (docs/nra-formats.md §1.1) into ISO `YYYY-MM-DD`.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns the ISO date, `null` when blank, `undefined` when not a real date
 * @throws nothing
 */
export function parseDateAt(s: string, a: number, b: number): string | null | undefined {
  const key = dateKeyAt(s, a, b);
  return key === 0 ? null : key < 0 ? undefined : isoDateOfKey(key);
}

/**
 * Read a tax period `YYYYMM` (VAT ledgers, DEKLAR) or `MM/YYYY` (VIES) as the number yyyymm
 * (docs/nra-formats.md §1.1 and §1.5), without allocating.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns yyyymm, 0 when blank, -1 when malformed or the month is not 01–12
 * @throws nothing
 */
export function periodKeyAt(s: string, a: number, b: number): number {
  a = trimStartAt(s, a, b);
  b = trimEndAt(s, a, b);
  if (a === b) return 0;
  let yAt: number;
  let mAt: number;
  if (b - a === 6) {
    yAt = a;
    mAt = a + 4;
  } else if (b - a === 7 && s.charCodeAt(a + 2) === 47) {
    mAt = a;
    yAt = a + 3;
  } else {
    return -1;
  }
  const y = digit(s, yAt) * 1000 + digit(s, yAt + 1) * 100 + digit(s, yAt + 2) * 10 +
    digit(s, yAt + 3);
  const m = digit(s, mAt) * 10 + digit(s, mAt + 1);
  return y >= 1000 && m >= 1 && m <= 12 ? y * 100 + m : -1;
}

/**
 * Parse a tax period (see {@link periodKeyAt}) normalised to `YYYYMM`.
 * @param s text
 * @param a start (inclusive)
 * @param b end (exclusive)
 * @returns "YYYYMM", `null` when blank, `undefined` when malformed
 * @throws nothing
 */
export function parsePeriodAt(s: string, a: number, b: number): string | null | undefined {
  const key = periodKeyAt(s, a, b);
  return key === 0 ? null : key < 0 ? undefined : String(key);
}

/**
 * Format an amount with exactly 2 decimals and a leading "-" for negatives.
 * @param v the amount
 * @returns the text, or `undefined` when `v` is not finite or has more than 2 decimals
 * @throws nothing
 */
export function formatAmount(v: number): string | undefined {
  if (typeof v !== "number" || !Number.isFinite(v)) return undefined;
  const t = v.toFixed(2);
  if (Number(t) !== v || Math.abs(v) >= 1e13) return undefined;
  return t === "-0.00" ? "0.00" : t;
}

/**
 * Format a non-negative safe integer.
 * @param v the number
 * @returns decimal digits, or `undefined` when `v` is not a non-negative safe integer
 * @throws nothing
 */
export function formatInt(v: number): string | undefined {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) return undefined;
  return String(v);
}

/**
 * Format an ISO date `YYYY-MM-DD` as `dd/mm/yyyy`.
 * @param iso the date
 * @returns the NRA text, or `undefined` when `iso` is not a real ISO date
 * @throws nothing
 */
export function formatDate(iso: string): string | undefined {
  if (typeof iso !== "string" || iso.length !== 10 || iso[4] !== "-" || iso[7] !== "-") {
    return undefined;
  }
  const y = digit(iso, 0) * 1000 + digit(iso, 1) * 100 + digit(iso, 2) * 10 + digit(iso, 3);
  const m = digit(iso, 5) * 10 + digit(iso, 6);
  const d = digit(iso, 8) * 10 + digit(iso, 9);
  if (!isCalendarDate(y, m, d)) return undefined;
  return iso.slice(8, 10) + "/" + iso.slice(5, 7) + "/" + iso.slice(0, 4);
}

/**
 * Format a period `YYYYMM` for a field of `width` characters: 6 → `YYYYMM`, 7 → `MM/YYYY`.
 * @param p the period
 * @param width the field width (6 or 7)
 * @returns the NRA text, or `undefined` when `p` is not a valid period
 * @throws nothing
 */
export function formatPeriod(p: string, width: number): string | undefined {
  if (typeof p !== "string" || p.length !== 6) return undefined;
  const y = digit(p, 0) * 1000 + digit(p, 1) * 100 + digit(p, 2) * 10 + digit(p, 3);
  const m = digit(p, 4) * 10 + digit(p, 5);
  if (!(y >= 1000 && m >= 1 && m <= 12)) return undefined;
  return width === 7 ? p.slice(4, 6) + "/" + p.slice(0, 4) : p;
}

/**
 * True when a text value can be written into a record: no line breaks, no 0x1A end marker
 * and no other C0 control character.
 * @param v the text
 * @returns whether `v` is safe to write
 * @throws nothing
 */
export function isWritableText(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v.charCodeAt(i) < 0x20) return false;
  }
  return true;
}
