/**
 * EIK / Bulstat identifiers and VAT numbers. The check-digit rule is the public Bulstat
 * algorithm for 9- and 13-digit codes; VAT numbers are "BG" + 9 or 10 digits
 * (docs/nra-formats.md §1.1 "Filer VAT number").
 * @module
 */
export { eikCheckDigit, isValidEik } from "../contract/mod.ts";

/**
 * The EIK inside a Bulgarian VAT number: "BG123456786" → "123456786" (trimmed, upper-cased
 * prefix removed). A value without the "BG" prefix is returned trimmed.
 * @param vatNumber the VAT number (DEKLAR 00-01, ledger field 1, VIES VTR)
 * @returns the EIK (or EGN for a 10-digit VAT number)
 * @throws nothing
 */
export function vatNumberToEik(vatNumber: string): string {
  const v = vatNumber.trim();
  return v.toUpperCase().startsWith("BG") ? v.slice(2) : v;
}
