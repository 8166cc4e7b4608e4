/**
 * Calendar helpers for the test portal, all in UTC and on ISO dates (`YYYY-MM-DD`), so that
 * no answer depends on the machine's time zone. "Now" is always a parameter. Implements the
 * date fields of docs/test-portal.md § debt_payments (DebtPaymentsResult) and docs/test-portal.md § due_amounts (DueAmountsResult) (`date`).
 * @module
 */

const DAY_MS = 86_400_000;

/**
 * An ISO date from its parts.
 * @param year 4-digit year
 * @param month 1–12
 * @param day 1–31
 * @returns `YYYY-MM-DD`
 * @throws RangeError when the parts do not form a real date
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(isoDate(2025, 3, 14), "2025-03-14");
 * ```
 */
export function isoDate(year: number, month: number, day: number): string {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`${year}-${month}-${day} is not a date`);
  }
  return `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}`;
}

/**
 * Number of days in a month (Gregorian).
 * @param year year
 * @param month 1–12
 * @returns 28–31
 * @throws nothing
 */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The UTC calendar date of an instant.
 * @param instant a Date
 * @returns `YYYY-MM-DD`
 * @throws nothing
 */
export function toIsoDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/**
 * Move an ISO date by whole days.
 * @param iso `YYYY-MM-DD`
 * @param days days to add (may be negative)
 * @returns the new ISO date
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(addDays("2025-12-31", 1), "2026-01-01");
 * ```
 */
export function addDays(iso: string, days: number): string {
  return toIsoDate(new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS));
}

/**
 * Whole days from a to b (b − a).
 * @param a `YYYY-MM-DD`
 * @param b `YYYY-MM-DD`
 * @returns days, negative when b is before a
 * @throws nothing
 */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

/**
 * The smaller of two ISO dates (string order is date order).
 * @param a `YYYY-MM-DD`
 * @param b `YYYY-MM-DD`
 * @returns the earlier date
 * @throws nothing
 */
export function minDate(a: string, b: string): string {
  return a <= b ? a : b;
}

/**
 * The month after (year, month).
 * @param year year
 * @param month 1–12
 * @returns `[year, month]` of the next month
 * @throws nothing
 */
export function nextMonth(year: number, month: number): [number, number] {
  return month === 12 ? [year + 1, 1] : [year, month + 1];
}

/**
 * True when the whole month (year, month) lies before `now` (its last day is over in UTC).
 * A declaration for a month can only exist once the month has ended.
 * @param year year
 * @param month 1–12
 * @param now the injected clock's instant
 * @returns whether the period has ended
 * @throws nothing
 */
export function periodEnded(year: number, month: number, now: Date): boolean {
  const [ny, nm] = nextMonth(year, month);
  return now.getTime() >= Date.UTC(ny, nm - 1, 1);
}

/**
 * Format an ISO date the Bulgarian way: `dd.mm.yyyy`.
 * @param iso `YYYY-MM-DD`
 * @returns `dd.mm.yyyy`
 * @throws nothing
 */
export function dotDate(iso: string): string {
  return `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;
}

/**
 * Two-digit zero-padded number.
 * @param n 0–99
 * @returns e.g. "03"
 * @throws nothing
 */
export function pad2(n: number): string {
  return String(n).padStart(2, "0");
}
