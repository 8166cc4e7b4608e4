/**
 * Checks of the solid payroll fields (docs/nra-formats.md §2.1 "Key fields for a scanner" and §2.2
 * "Rely only on fields 1, 2, 7 and 8"): EIK/Bulstat digits, month and year.
 * @module
 */
import type { DelimCheck } from "./delimited.ts";

function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Check: an EIK/Bulstat of 9 or 13 digits, or a 10-digit EGN (self-insured person).
 * @param v the parsed value
 * @returns a reason, or null when the value is fine
 * @throws nothing
 */
export const checkEik: DelimCheck = (v) =>
  typeof v === "string" && isDigits(v) && (v.length === 9 || v.length === 10 || v.length === 13)
    ? null
    : "is not an EIK/Bulstat of 9, 10 or 13 digits";

/**
 * Build a month check for the range 1..max (D1: 12; D6 also allows 13, §2.2).
 * @param max highest month accepted
 * @returns the check
 * @throws nothing
 */
export function checkMonth(max: number): DelimCheck {
  return (v) => typeof v === "number" && v >= 1 && v <= max ? null : `is not a month 1-${max}`;
}

/**
 * Check: a 4-digit year.
 * @param v the parsed value
 * @returns a reason, or null when the value is fine
 * @throws nothing
 */
export const checkYear: DelimCheck = (v) =>
  typeof v === "number" && v >= 1000 && v <= 9999 ? null : "is not a 4-digit year";

/**
 * Check: non-empty text (a name).
 * @param v the parsed value
 * @returns a reason, or null when the value is fine
 * @throws nothing
 */
export const checkNonEmpty: DelimCheck = (v) =>
  typeof v === "string" && v.length > 0 ? null : "is empty";
