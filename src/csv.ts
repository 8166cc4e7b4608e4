/**
 * CSV text for exports people open in a spreadsheet (monthly statements, usage counters, the
 * agent's journal), written with `csv-stringify` (RFC 4180: comma, CRLF after every record, a
 * field is quoted when it holds a comma, a quote, CR or LF, and quotes are doubled).
 *
 * Formula injection guard (OWASP "CSV Injection"): a **string** cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return gets a leading apostrophe `'`, so Excel, LibreOffice and
 * Google Sheets show it as text instead of running it as a formula. Numbers are written as
 * numbers and never touched (`-12.5` stays `-12.5`); a negative amount that must stay a number
 * has to be passed as a number, not as a string.
 *
 * Other values: `null`/`undefined` → empty field, booleans → `true`/`false`, bigints → their
 * digits, `Date` → ISO 8601 (UTC), objects → JSON (then guarded as a string).
 * @module
 */
import { stringify } from "csv-stringify/sync";

/** First characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Neutralise a string cell that a spreadsheet would run as a formula.
 * @param s the cell text
 * @returns `s`, or `'` + `s` when it starts with `=`, `+`, `-`, `@`, a tab or a CR
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(guardFormula("=SUM(A1:A9)"), "'=SUM(A1:A9)");
 * deepStrictEqual(guardFormula("ACME Ltd"), "ACME Ltd");
 * ```
 */
export function guardFormula(s: string): string {
  return FORMULA_START.test(s) ? `'${s}` : s;
}

const OPTIONS = {
  record_delimiter: "\r\n",
  // The default quotes only on the delimiter, the quote and the whole record delimiter; RFC 4180
  // also wants a lone CR or LF inside a field quoted.
  quoted_match: /[\r\n]/,
  cast: {
    string: guardFormula,
    boolean: (v: boolean) => String(v),
    bigint: (v: bigint) => String(v),
    date: (v: Date) => guardFormula(v.toISOString()),
    object: (v: object) => guardFormula(JSON.stringify(v)),
  },
};

/**
 * A CSV document: the header line, then one line per row, each ended by CRLF.
 * @param header column names (written as the first line, guarded like any string cell)
 * @param rows the records; each row should have `header.length` cells
 * @returns the CSV text (the header line alone when `rows` is empty)
 * @throws nothing for the value types listed in the module doc
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(
 *   toCsv(["company", "tokens"], [["=cmd", 3], ["ACME, Ltd", -1]]),
 *   "company,tokens\r\n'=cmd,3\r\n\"ACME, Ltd\",-1\r\n",
 * );
 * ```
 */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return stringify([header, ...rows] as unknown[][], OPTIONS);
}
