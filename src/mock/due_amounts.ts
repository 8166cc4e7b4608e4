/**
 * The `due_amounts` generator: a taxpayer's unpaid obligations (outstandingAmount > 0) with the
 * totals of outstanding amounts and interest. The rows are exactly the unpaid rows of
 * `debt_payments` for the same years. These are balances as at "now", so every amount is in the
 * currency of now (BGN before 2026-01-01, EUR from then; a BGN debt is converted at 1.95583 per
 * amount, rounded to the cent). Without a year the result covers the current year and the 4
 * before it (within 2020–2049), and its `year` field says the year the balances are for: the
 * last year covered (the current year, or 2049 past the data's range). Implements
 * docs/test-portal.md § due_amounts (DueAmountsResult) ("totals are sums over items") and
 * README.md § Operations (DueAmountsRequest: year optional).
 * @module
 */
import type { ReportItemOf, ReportResultOf } from "../contract/mod.ts";
import { FIRST_DATA_YEAR, LAST_DATA_YEAR } from "./filings.ts";
import { currencyOf, inCurrency, sumCents, toAmount } from "./money.ts";
import { yearObligations } from "./obligations.ts";

/** Years covered without a year: the current one and the 4 before it (the 5-year limitation
 * period of public claims, ДОПК art. 171). */
export const ALL_YEARS_SPAN = 5;

/** The request as the generator reads it (a validated DueAmountsRequest). */
export interface DueAmountsInput {
  readonly eik: string;
  /** Omitted: the last {@link ALL_YEARS_SPAN} years up to now. */
  readonly year?: number | undefined;
}

/**
 * Unpaid obligations of (eik, year or all years) with exact totals.
 *
 * Implements docs/test-portal.md § due_amounts (DueAmountsResult).
 * @param req eik and an optional year
 * @param now the injected clock's instant (balances and currency as at now)
 * @returns status ok; year = the asked year, or without one the last year covered (the
 *   balances' year: 2026 on 2026-03-15, items of 2022–2026); totals = Σ items (in cents)
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const r = dueAmounts({ eik: "121212121" }, new Date("2026-03-15T10:00:00Z"));
 * deepStrictEqual(r.year, 2026);
 * ```
 */
export function dueAmounts(req: DueAmountsInput, now: Date): ReportResultOf<"dueAmounts"> {
  const nowCurrency = currencyOf(now.getUTCFullYear());
  const years: number[] = [];
  // The year the result is for: the asked one, or the last year covered.
  const last = req.year ?? Math.min(now.getUTCFullYear(), LAST_DATA_YEAR);
  if (req.year !== undefined) years.push(req.year);
  else {
    const first = Math.max(FIRST_DATA_YEAR, last - ALL_YEARS_SPAN + 1);
    for (let y = first; y <= last; y++) years.push(y);
  }
  const rows: Array<{ item: ReportItemOf<"dueAmounts">; outstanding: number; interest: number }> =
    [];
  for (const year of years) {
    const convert = (cents: number) =>
      currencyOf(year) === nowCurrency ? cents : inCurrency(cents, nowCurrency);
    for (const o of yearObligations(req.eik, year, now)) {
      const outstanding = convert(o.dueCents - (o.payment?.cents ?? 0));
      if (o.dueCents - (o.payment?.cents ?? 0) <= 0) continue;
      const interest = convert(o.interestCents);
      rows.push({
        outstanding,
        interest,
        item: {
          debtTypeName: o.debtTypeName,
          documentType: o.documentType,
          documentNumber: o.documentNumber,
          dueAmount: toAmount(convert(o.dueCents)),
          outstandingAmount: toAmount(outstanding),
          outstandingInterest: toAmount(interest),
          debtPeriod: o.debtPeriod,
          documentDate: o.documentDate,
          dueDate: o.dueDate,
        },
      });
    }
  }
  return {
    status: "ok",
    rowCount: rows.length,
    year: last,
    totalOutstanding: toAmount(sumCents(rows.map((r) => r.outstanding))),
    totalInterest: toAmount(sumCents(rows.map((r) => r.interest))),
    items: rows.map((r) => r.item),
    error: null,
  };
}
