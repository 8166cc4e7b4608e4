/**
 * Bulgarian identifier check digits: the EIK / Bulstat (9 and 13 digits) and the EGN (10
 * digits), with validators and generators for fictitious, valid identifiers. The algorithms are
 * the official ones (Закон за търговския регистър и регистъра на ЮЛНЦ / Bulstat register for the
 * EIK; Закон за гражданската регистрация for the EGN). Implements README.md § Operations
 * (`eik`, 9 to 13 digits) and docs/test-portal.md § taxpayers (pinType BUS_BULSTAT, IND_EGN).
 * @module
 */
import type { Rng } from "./rng.ts";

const EIK9_W1 = [1, 2, 3, 4, 5, 6, 7, 8];
const EIK9_W2 = [3, 4, 5, 6, 7, 8, 9, 10];
const EIK13_W1 = [2, 7, 3, 5];
const EIK13_W2 = [4, 9, 5, 7];
const EGN_W = [2, 4, 8, 5, 10, 9, 7, 3, 6];

function weighted(digits: string, weights: readonly number[]): number {
  let s = 0;
  for (const [i, w] of weights.entries()) s += Number(digits[i]) * w;
  return s % 11;
}

function twoPass(digits: string, w1: readonly number[], w2: readonly number[]): number {
  const r = weighted(digits, w1);
  if (r !== 10) return r;
  const r2 = weighted(digits, w2);
  return r2 === 10 ? 0 : r2;
}

function assertDigits(s: string, n: number, what: string): void {
  if (!new RegExp(`^[0-9]{${n}}$`).test(s)) {
    throw new RangeError(`${what} must be ${n} digits, got "${s}"`);
  }
}

/**
 * The 9th digit of a 9-digit EIK: weights 1…8 mod 11; on 10, weights 3…10 mod 11; on 10
 * again, 0.
 * @param first8 the first 8 digits
 * @returns the check digit 0–9
 * @throws RangeError when first8 is not 8 digits
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(eikCheckDigit9("12121212"), 1); // so "121212121" is valid
 * ```
 */
export function eikCheckDigit9(first8: string): number {
  assertDigits(first8, 8, "The EIK prefix");
  return twoPass(first8, EIK9_W1, EIK9_W2);
}

/**
 * The 13th digit of a 13-digit EIK (a branch): digits 9–12 with weights 2, 7, 3, 5 mod 11; on
 * 10, weights 4, 9, 5, 7; on 10 again, 0.
 * @param first12 the first 12 digits
 * @returns the check digit 0–9
 * @throws RangeError when first12 is not 12 digits
 */
export function eikCheckDigit13(first12: string): number {
  assertDigits(first12, 12, "The EIK prefix");
  return twoPass(first12.slice(8), EIK13_W1, EIK13_W2);
}

/**
 * True for a valid 9-digit EIK, or a 13-digit EIK whose first 9 digits are a valid EIK and
 * whose 13th digit is right.
 * @param eik the candidate
 * @returns validity
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(isValidEik("121212121"), true);
 * deepStrictEqual(isValidEik("121212122"), false);
 * ```
 */
export function isValidEik(eik: string): boolean {
  if (/^[0-9]{9}$/.test(eik)) return eikCheckDigit9(eik.slice(0, 8)) === Number(eik[8]);
  if (/^[0-9]{13}$/.test(eik)) {
    return isValidEik(eik.slice(0, 9)) && eikCheckDigit13(eik.slice(0, 12)) === Number(eik[12]);
  }
  return false;
}

/**
 * Complete an 8-digit prefix to a valid 9-digit EIK.
 * @param first8 the first 8 digits
 * @returns the 9-digit EIK
 * @throws RangeError when first8 is not 8 digits
 */
export function completeEik(first8: string): string {
  return first8 + String(eikCheckDigit9(first8));
}

/**
 * The 10th digit of an EGN: weights 2, 4, 8, 5, 10, 9, 7, 3, 6 mod 11; 10 becomes 0.
 * @param first9 the first 9 digits
 * @returns the check digit 0–9
 * @throws RangeError when first9 is not 9 digits
 */
export function egnCheckDigit(first9: string): number {
  assertDigits(first9, 9, "The EGN prefix");
  const r = weighted(first9, EGN_W);
  return r === 10 ? 0 : r;
}

/**
 * The birth date coded in an EGN (month + 20 for 1800–1899, + 40 for 2000–2099), or null.
 * @param egn 10 digits
 * @returns `[year, month, day]`, or null when the date part is impossible
 * @throws nothing
 */
export function egnBirthDate(egn: string): [number, number, number] | null {
  if (!/^[0-9]{10}$/.test(egn)) return null;
  const yy = Number(egn.slice(0, 2));
  let mm = Number(egn.slice(2, 4));
  const dd = Number(egn.slice(4, 6));
  let year = 1900 + yy;
  if (mm > 40) [year, mm] = [2000 + yy, mm - 40];
  else if (mm > 20) [year, mm] = [1800 + yy, mm - 20];
  if (mm < 1 || mm > 12 || dd < 1) return null;
  if (dd > new Date(Date.UTC(year, mm, 0)).getUTCDate()) return null;
  return [year, mm, dd];
}

/**
 * True for a valid EGN: a real birth date and the right check digit.
 * @param egn the candidate
 * @returns validity
 * @throws nothing
 */
export function isValidEgn(egn: string): boolean {
  return egnBirthDate(egn) !== null && egnCheckDigit(egn.slice(0, 9)) === Number(egn[9]);
}

/**
 * A random valid 9-digit EIK (first digit 1–9, the usual shape of company EIKs).
 * @param rng the stream
 * @returns the EIK
 * @throws nothing
 */
export function randomEik(rng: Rng): string {
  return completeEik(String(rng.int(1, 9)) + rng.digits(7));
}

/**
 * A random valid EGN for a person born between 1950 and 2004; the 9th digit is even for a man
 * and odd for a woman, as in real EGNs.
 * @param rng the stream
 * @param female whether the person is a woman
 * @returns the EGN
 * @throws nothing
 */
export function randomEgn(rng: Rng, female: boolean): string {
  const year = rng.int(1950, 2004);
  const month = rng.int(1, 12);
  const day = rng.int(1, new Date(Date.UTC(year, month, 0)).getUTCDate());
  const mm = year >= 2000 ? month + 40 : month;
  const region = rng.int(0, 99);
  const sexDigit = rng.int(0, 4) * 2 + (female ? 1 : 0);
  const first9 = String(year % 100).padStart(2, "0") + String(mm).padStart(2, "0") +
    String(day).padStart(2, "0") + String(region).padStart(2, "0") + String(sexDigit);
  return first9 + String(egnCheckDigit(first9));
}
