/**
 * Money in the test portal: integer cents inside, a 2-decimal number on the wire, and the
 * currency rule of the period (BGN up to 2025-12-31, EUR from 2026-01-01, the day Bulgaria
 * adopted the euro). Implements docs/test-portal.md § debt_payments (DebtPaymentsResult) /
 * docs/test-portal.md § due_amounts (DueAmountsResult) ("double" amounts) and src/contract/common.ts `Amount` ("EUR or BGN, 2 decimals").
 * @module
 */

/** The currency of a tax period. */
export type Currency = "BGN" | "EUR";

/** The fixed conversion rate: 1 EUR = 1.95583 BGN. */
export const BGN_PER_EUR = 1.95583;

/** First year whose amounts are in EUR. */
export const EURO_YEAR = 2026;

/**
 * The currency of a period: BGN for periods up to 2025-12, EUR from 2026-01.
 *
 * Implements docs/test-portal.md § Currency.
 * @param year the period's year
 * @returns "BGN" or "EUR"
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(currencyOf(2025), "BGN");
 * deepStrictEqual(currencyOf(2026), "EUR");
 * ```
 */
export function currencyOf(year: number): Currency {
  return year >= EURO_YEAR ? "EUR" : "BGN";
}

/**
 * Convert cents to the wire amount (a number with at most 2 decimals).
 * @param cents integer cents
 * @returns cents / 100
 * @throws RangeError when cents is not a safe integer
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(toAmount(123456), 1234.56);
 * ```
 */
export function toAmount(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`${cents} is not a whole number of cents`);
  return cents / 100;
}

/**
 * Convert a wire amount back to integer cents (rounding away float noise).
 * @param amount a number with at most 2 decimals
 * @returns integer cents
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(toCents(0.1 + 0.2), 30);
 * ```
 */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/**
 * Sum of integer cents.
 * @param values cents
 * @returns the exact sum
 * @throws nothing
 */
export function sumCents(values: Iterable<number>): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/**
 * A share of an amount: cents × basisPoints / 10 000, rounded half up.
 * @param cents the base in cents (≥ 0)
 * @param basisPoints the rate in hundredths of a percent (e.g. 2000 = 20 %)
 * @returns integer cents
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(shareCents(10000, 2000), 2000); // (20 % of 100.00)
 * ```
 */
export function shareCents(cents: number, basisPoints: number): number {
  return Math.round((cents * basisPoints) / 10_000);
}

/**
 * Express a BGN magnitude in the period's currency: BGN cents stay, EUR cents are the BGN
 * cents divided by 1.95583 and rounded. Used for ranges ("a VAT payment of 300–25 000 BGN"),
 * so that EUR periods get plausible euro figures.
 * @param bgnCents a magnitude in BGN cents
 * @param currency the target currency
 * @returns integer cents in that currency
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(inCurrency(195583, "EUR"), 100000); // (1 000.00 EUR)
 * ```
 */
export function inCurrency(bgnCents: number, currency: Currency): number {
  return currency === "BGN" ? bgnCents : Math.round(bgnCents / BGN_PER_EUR);
}

/**
 * Format cents as a plain decimal string with 2 decimals ("1234.56", "-20.00").
 * @param cents integer cents
 * @returns the text
 * @throws nothing
 */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/**
 * Format cents the Bulgarian way for HTML protocols: space-grouped thousands, decimal comma
 * ("12 345,67").
 * @param cents integer cents
 * @returns the text
 * @throws nothing
 */
export function formatCentsBg(cents: number): string {
  const [whole = "", frac] = formatCents(cents).split(".");
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, " ")},${frac}`;
}
