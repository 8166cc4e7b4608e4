/**
 * Tax periods of request bodies, in the two forms the agent uses: `"YYYYMM"` as the NRA files
 * write it (DEKLAR 00-03, D1 fields 1–2) and `"YYYY-MM"` (or `"YYYY"`) for people (confirmation
 * page, journal).
 * @module
 */

/**
 * The fields of a validated request body that name its period (the registry's request schemas:
 * `year`, `month`); any body of the registry is one.
 */
export type PeriodFields = {
  readonly year?: number | undefined;
  readonly month?: number | undefined;
  readonly [field: string]: unknown;
};

/**
 * The NRA form of a period.
 * @param year e.g. 2026
 * @param month 1–12
 * @returns "YYYYMM", e.g. "202609"
 */
export function taxPeriod(year: number, month: number): string {
  return `${year}${String(month).padStart(2, "0")}`;
}

/**
 * The NRA form of a body's period.
 * @param body a validated request body
 * @returns "YYYYMM", or null when the body has no year and month
 */
export function bodyTaxPeriod(body: PeriodFields): string | null {
  return typeof body.year === "number" && typeof body.month === "number"
    ? taxPeriod(body.year, body.month)
    : null;
}

/**
 * The readable form of a body's period.
 * @param body a validated request body
 * @returns "YYYY-MM", "YYYY" for a yearly request, or null
 */
export function displayPeriod(body: PeriodFields): string | null {
  if (typeof body.year !== "number") return null;
  return typeof body.month === "number"
    ? `${body.year}-${String(body.month).padStart(2, "0")}`
    : String(body.year);
}

/**
 * The readable form of a period the NRA files write.
 * @param period "YYYYMM", e.g. "202609"
 * @returns "YYYY-MM", e.g. "2026-09"
 */
export function displayTaxPeriod(period: string): string {
  return `${period.slice(0, 4)}-${period.slice(4)}`;
}
