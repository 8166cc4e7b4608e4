/**
 * The EIK / Bulstat check digits: the public Bulstat algorithm for 9- and 13-digit codes. Here,
 * in the contract, so that every layer can check an EIK (the token service's desk checks the EIK
 * an administrator verifies, docs/token-service.md § Who asks; src/formats/eik.ts re-exports it).
 * @module
 */

const W9A = [1, 2, 3, 4, 5, 6, 7, 8];
const W9B = [3, 4, 5, 6, 7, 8, 9, 10];
const W13A = [2, 7, 3, 5];
const W13B = [4, 9, 5, 7];

function checkDigit(d: number[], from: number, wa: number[], wb: number[]): number {
  let s = 0;
  // non-null: `d` holds the digits of a code its caller matched against /^\d{9}$/ or /^\d{13}$/.
  for (const [i, w] of wa.entries()) s += d[from + i]! * w;
  let r = s % 11;
  if (r !== 10) return r;
  s = 0;
  // non-null: the digits of a matched code, as above
  for (const [i, w] of wb.entries()) s += d[from + i]! * w;
  r = s % 11;
  return r === 10 ? 0 : r;
}

/**
 * Check digit of a 9-digit EIK/Bulstat from its first 8 digits.
 * @param first8 exactly 8 digits
 * @returns the 9th digit
 * @throws RangeError when `first8` is not 8 digits (a programming error)
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(eikCheckDigit("12345678"), 6); // so "123456786" is valid
 * ```
 */
export function eikCheckDigit(first8: string): number {
  if (!/^\d{8}$/.test(first8)) throw new RangeError("eikCheckDigit needs 8 digits");
  return checkDigit([...first8].map(Number), 0, W9A, W9B);
}

/**
 * True for a 9-digit EIK/Bulstat or a 13-digit branch code whose check digits are right.
 * @param eik the code
 * @returns whether the code is well formed
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(isValidEik("123456786"), true);
 * ```
 */
export function isValidEik(eik: string): boolean {
  if (!/^(\d{9}|\d{13})$/.test(eik)) return false;
  const d = [...eik].map(Number);
  if (checkDigit(d, 0, W9A, W9B) !== d[8]) return false;
  return eik.length === 9 || checkDigit(d, 8, W13A, W13B) === d[12];
}
