/**
 * The monthly declarations a fictitious taxpayer has filed: for each VAT period (VAT-registered
 * companies) and each payroll period (companies with staff) one original filing between the
 * 1st and the deadline of the next month (VAT: 14th, D1/D6: 25th), sometimes followed by a
 * correction. Portal files, VAT monthly files and the debts report all read their filing date,
 * documentId and incoming number from here, so the reports agree with one another. A filing
 * exists for a caller only once its instant is not after the injected "now". Seed:
 * `${eik}|filing|${kind}|${year}|${month}`. Implements docs/test-portal.md
 * § Portal files (incomeNumber, submittedAt, ids of the portal files and monthly files).
 * @module
 */
import { nextMonth } from "./dates.ts";
import { incomeNumberOf, issueDocumentId, seqOfInstant } from "./document_id.ts";
import { fullName } from "./names.ts";
import { companyProfile, isTaxpayerId } from "./profile.ts";
import { rngFor } from "./rng.ts";

/** The periodic declarations the test portal keeps files for. */
export type PeriodicKind = "vat" | "dec1_6";

/** One filing of a periodic declaration. */
export interface Filing {
  readonly kind: PeriodicKind;
  readonly eik: string;
  readonly year: number;
  readonly month: number;
  /** When the portal received it. */
  readonly submittedAt: Date;
  /** A documentId that `<kind>_result` accepts for this EIK. */
  readonly documentId: string;
  /** Incoming number, e.g. "22E004217765". */
  readonly incomeNumber: string;
  /** Who filed it (name of the signing person). */
  readonly user: string;
  /** True for a corrective filing that replaced an earlier one. */
  readonly correction: boolean;
}

/** First and last year the test portal holds data for (documentIds need 2020–2050). */
export const FIRST_DATA_YEAR = 2020;
/** Last year with data. */
export const LAST_DATA_YEAR = 2049;

/**
 * True for a year the test portal holds data for (2020–2049).
 * @param year the year
 * @returns whether reports for it can have rows
 * @throws nothing
 */
export function inDataRange(year: number): boolean {
  return year >= FIRST_DATA_YEAR && year <= LAST_DATA_YEAR;
}

/** Deadline day of the month after the period. */
const DEADLINE_DAY: Readonly<Record<PeriodicKind, number>> = { vat: 14, dec1_6: 25 };

/**
 * Whether the taxpayer files this kind at all (VAT: registered; D1/D6: has staff).
 * @param eik the EIK
 * @param kind vat or dec1_6
 * @returns true when monthly filings exist
 * @throws nothing
 */
export function filesPeriodically(eik: string, kind: PeriodicKind): boolean {
  if (!isTaxpayerId(eik)) return false;
  const p = companyProfile(eik);
  return kind === "vat" ? p.vatRegistered : p.employees > 0;
}

/**
 * Every filing of a period, independent of "now": the original first, then any correction.
 *
 * Implements docs/test-portal.md § Portal files.
 * @param eik the EIK
 * @param kind vat or dec1_6
 * @param year the period's year
 * @param month the period's month 1–12
 * @returns 0 (the taxpayer does not file this kind), 1 or 2 filings
 * @throws nothing
 */
export function periodFilings(
  eik: string,
  kind: PeriodicKind,
  year: number,
  month: number,
): Filing[] {
  if (!filesPeriodically(eik, kind) || !inDataRange(year)) return [];
  const rng = rngFor(eik, "filing", kind, year, month);
  const profile = companyProfile(eik);
  const [fy, fm] = nextMonth(year, month);
  const deadline = DEADLINE_DAY[kind];
  const day = rng.int(1, deadline - 3);
  const count = kind === "vat" ? (profile.euTrader ? 4 : 3) : profile.employees + 1;
  const make = (d: number, correction: boolean): Filing => {
    const submittedAt = new Date(
      Date.UTC(fy, fm - 1, d, rng.int(6, 16), rng.int(0, 59), rng.int(0, 59)),
    );
    const seq = seqOfInstant(submittedAt) + rng.int(0, 99);
    const parts = { kind, eik, seq, count };
    return {
      kind,
      eik,
      year,
      month,
      submittedAt,
      documentId: issueDocumentId(parts),
      incomeNumber: incomeNumberOf(parts),
      user: fullName(profile.manager),
      correction,
    };
  };
  const filings = [make(day, false)];
  if (rng.chance(0.1)) filings.push(make(rng.int(day + 1, deadline), true));
  return filings;
}

/**
 * The filings of a period that exist at `now` (submitted at or before it).
 * @param eik the EIK
 * @param kind vat or dec1_6
 * @param year the period's year
 * @param month the period's month 1–12
 * @param now the injected clock's instant
 * @returns the filings, oldest first
 * @throws nothing
 */
export function filingsAsOf(
  eik: string,
  kind: PeriodicKind,
  year: number,
  month: number,
  now: Date,
): Filing[] {
  return periodFilings(eik, kind, year, month).filter((f) => f.submittedAt <= now);
}

/**
 * The filing in force for a period at `now`: the latest one (a correction replaces the
 * original).
 * @param eik the EIK
 * @param kind vat or dec1_6
 * @param year the period's year
 * @param month the period's month 1–12
 * @param now the injected clock's instant
 * @returns the filing, or null when nothing was filed by then
 * @throws nothing
 */
export function currentFiling(
  eik: string,
  kind: PeriodicKind,
  year: number,
  month: number,
  now: Date,
): Filing | null {
  const list = filingsAsOf(eik, kind, year, month, now);
  return list.at(-1) ?? null;
}
