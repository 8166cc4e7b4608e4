/**
 * The public obligations of a fictitious taxpayer whose due date falls in one year, with their
 * payments and interest as at a cut-off date: VAT from the monthly VAT returns, income tax and
 * social contributions from the D6 totals, annual corporate (or sole-trader) tax, and now and
 * then a dividend tax, an assessment act or a fine. `debt_payments` lists them; `due_amounts`
 * lists the unpaid ones. The cut-off is min(now, 31 December of the year): obligations declared
 * after it and payments made after it are not shown, and interest runs to it. Everything is
 * drawn before filtering, so a later "now" only reveals rows, never changes them. Seed:
 * `${eik}|debt_payments|${year}`. Implements docs/test-portal.md § debt_payments
 * (DebtPaymentsResult) and § due_amounts (DueAmountsResult) (the rows behind them).
 * @module
 */
import { addDays, daysBetween, isoDate, minDate, nextMonth, pad2, toIsoDate } from "./dates.ts";
import { debtTypeById } from "./debt_types.ts";
import { inDataRange, periodFilings, type PeriodicKind } from "./filings.ts";
import { currencyOf, inCurrency } from "./money.ts";
import { payrollMonth, type PayrollTotals } from "./payroll_records.ts";
import { companyProfile, isTaxpayerId, scaledRange } from "./profile.ts";
import { type Rng, rngFor } from "./rng.ts";
import { vatReturnTotals } from "./vat_records.ts";

/** A payment against an obligation. */
export interface Payment {
  readonly date: string;
  readonly cents: number;
  readonly typeName: string;
}

/** One obligation as at the cut-off; amounts in cents of the year's currency. */
export interface Obligation {
  readonly typeId: string;
  readonly debtTypeName: string;
  readonly documentType: string;
  readonly documentNumber: string;
  readonly documentDate: string;
  readonly dueDate: string;
  readonly debtPeriod: string | null;
  readonly dueCents: number;
  /** null when nothing was paid by the cut-off. */
  readonly payment: Payment | null;
  readonly interestCents: number;
}

/** Share of (EIK, year) pairs without any obligation. */
export const DEBT_FREE_SHARE = 0.1;
/** Statutory interest on late public debts, simplified to a flat 13.5 % a year (in bp). */
export const INTEREST_BP_PER_YEAR = 1350;

const PAYROLL_TYPES: ReadonlyArray<readonly [string, keyof PayrollTotals]> = [
  ["6", "incomeTax"],
  ["11", "doo"],
  ["12", "gvrs"],
  ["15", "zo"],
  ["17", "upf"],
];

type Draft = Omit<Obligation, "debtTypeName" | "payment" | "interestCents"> & {
  readonly risky: boolean;
};

/**
 * The cut-off date of a year's report: min(now, 31 December), or null for a year that has not
 * begun at `now`.
 * @param year the report year
 * @param now the injected clock's instant
 * @returns an ISO date or null
 * @throws nothing
 */
export function cutoffOf(year: number, now: Date): string | null {
  const today = toIsoDate(now);
  return today < isoDate(year, 1, 1) ? null : minDate(today, isoDate(year, 12, 31));
}

/**
 * The obligations due in `year`, as at its cut-off, sorted by due date.
 *
 * Implements docs/test-portal.md § debt_payments (DebtPaymentsResult).
 * @param eik the taxpayer's EIK
 * @param year the year of the due dates
 * @param now the injected clock's instant
 * @returns the obligations; [] for a debt-free year, a year outside 2020–2049 or not begun,
 *   and an 11- or 12-digit EIK (no taxpayer has one)
 * @throws nothing
 */
export function yearObligations(eik: string, year: number, now: Date): Obligation[] {
  const cutoff = cutoffOf(year, now);
  if (cutoff === null || !inDataRange(year) || !isTaxpayerId(eik)) return [];
  const rng = rngFor(eik, "debt_payments", year);
  if (rng.chance(DEBT_FREE_SHARE)) return [];
  const latePayer = companyProfile(eik).latePayer;
  const drafts = [...periodicDrafts(eik, year), ...annualDrafts(eik, year, rng)];
  drafts.sort((a, b) =>
    a.dueDate.localeCompare(b.dueDate) || Number(a.typeId) - Number(b.typeId) ||
    a.documentNumber.localeCompare(b.documentNumber)
  );
  const out: Obligation[] = [];
  for (const d of drafts) {
    const payment = drawPayment(rng, d, year, latePayer);
    if (d.documentDate > cutoff) continue;
    const paid = payment && payment.date <= cutoff ? payment : null;
    const outstanding = d.dueCents - (paid?.cents ?? 0);
    const late = outstanding > 0 && d.dueDate < cutoff;
    const { risky: _, ...rest } = d;
    out.push({
      ...rest,
      debtTypeName: debtTypeById(d.typeId)?.name ?? d.typeId,
      payment: paid,
      interestCents: late ? interestCents(outstanding, daysBetween(d.dueDate, cutoff)) : 0,
    });
  }
  return out;
}

/**
 * Interest on an outstanding amount for a number of days at {@link INTEREST_BP_PER_YEAR}.
 * @param outstandingCents cents owed
 * @param days days late (> 0)
 * @returns interest in cents, rounded
 * @throws nothing
 */
export function interestCents(outstandingCents: number, days: number): number {
  return Math.round((outstandingCents * INTEREST_BP_PER_YEAR * days) / (10_000 * 365));
}

function periodicDrafts(eik: string, year: number): Draft[] {
  const currency = currencyOf(year);
  const out: Draft[] = [];
  const periods: Array<[number, number]> = [[year - 1, 12]];
  for (let m = 1; m <= 11; m++) periods.push([year, m]);
  for (const [py, pm] of periods) {
    const [ny, nm] = nextMonth(py, pm);
    const debtPeriod = `${pad2(pm)}.${py}`;
    const convert = (cents: number) =>
      currencyOf(py) === currency ? cents : inCurrency(cents, currency);
    const filed = (kind: PeriodicKind) => periodFilings(eik, kind, py, pm).at(-1);
    const vat = filed("vat");
    if (vat) {
      const payable = convert(vatReturnTotals(eik, py, pm).vatPayable);
      if (payable > 0) {
        out.push({
          typeId: "1",
          documentType: "Справка-декларация по ЗДДС",
          documentNumber: vat.incomeNumber,
          documentDate: toIsoDate(vat.submittedAt),
          dueDate: isoDate(ny, nm, 14),
          debtPeriod,
          dueCents: payable,
          risky: false,
        });
      }
    }
    const d6 = filed("dec1_6");
    if (d6) {
      const totals = payrollMonth(eik, py, pm).totals;
      for (const [typeId, key] of PAYROLL_TYPES) {
        const cents = convert(totals[key]);
        if (cents <= 0) continue;
        out.push({
          typeId,
          documentType: "Декларация обр. 6",
          documentNumber: d6.incomeNumber,
          documentDate: toIsoDate(d6.submittedAt),
          dueDate: isoDate(ny, nm, 25),
          debtPeriod,
          dueCents: cents,
          risky: false,
        });
      }
    }
  }
  return out;
}

function incoming(rng: Rng, prefix: string): string {
  return `${prefix}E${rng.digits(9)}`;
}

function annualDrafts(eik: string, year: number, rng: Rng): Draft[] {
  const profile = companyProfile(eik);
  const currency = currencyOf(year);
  const out: Draft[] = [];
  const soleTrader = profile.legalForm === "ЕТ";
  if (rng.chance(0.75)) {
    const [lo, hi] = scaledRange(profile, 200, 6000, currency);
    const due = isoDate(year, soleTrader ? 4 : 6, 30);
    out.push({
      typeId: soleTrader ? "8" : "2",
      documentType: soleTrader
        ? "Годишна данъчна декларация по чл. 50 ЗДДФЛ"
        : "Годишна данъчна декларация по чл. 92 ЗКПО",
      documentNumber: incoming(rng, soleTrader ? "20" : "03"),
      documentDate: addDays(due, -rng.int(0, 100)),
      dueDate: due,
      debtPeriod: String(year - 1),
      dueCents: rng.cents(lo, hi),
      risky: false,
    });
  }
  if (!soleTrader && rng.chance(0.25)) {
    const quarter = rng.int(1, 3);
    const [lo, hi] = scaledRange(profile, 100, 3000, currency);
    const due = addDays(isoDate(year, quarter * 3 + 2, 1), -1);
    out.push({
      typeId: "7",
      documentType: "Декларация по чл. 55, ал. 1 ЗДДФЛ",
      documentNumber: incoming(rng, "20"),
      documentDate: addDays(due, -rng.int(0, 20)),
      dueDate: due,
      debtPeriod: `${quarter} тримесечие ${year}`,
      dueCents: rng.cents(lo, hi),
      risky: false,
    });
  }
  if (rng.chance(0.06)) {
    const [lo, hi] = scaledRange(profile, 300, 8000, currency);
    const documentDate = isoDate(year, rng.int(2, 11), rng.int(1, 28));
    out.push({
      typeId: rng.pick(["1", soleTrader ? "8" : "2"]),
      documentType: "Акт за установяване на задължение",
      documentNumber: `П-2200${String(year).slice(2)}${rng.digits(8)}-004-001`,
      documentDate,
      dueDate: addDays(documentDate, 14),
      debtPeriod: `01.01.${year - 2} – 31.12.${year - 2}`,
      dueCents: rng.cents(lo, hi),
      risky: true,
    });
  }
  if (rng.chance(0.05)) {
    const documentDate = isoDate(year, rng.int(1, 11), rng.int(1, 28));
    out.push({
      typeId: "19",
      documentType: "Наказателно постановление",
      documentNumber: `${rng.int(100000, 999999)}-F${rng.digits(6)}`,
      documentDate,
      dueDate: addDays(documentDate, 14),
      debtPeriod: null,
      dueCents: inCurrency(rng.int(5, 100) * 5000, currency),
      risky: true,
    });
  }
  return out;
}

const PAYMENT_TYPES = [
  "Плащане по банков път",
  "Плащане по банков път",
  "Плащане по банков път",
  "Плащане с ПОС терминал",
  "Прихващане",
  "Плащане с карта през портала на НАП",
];

function drawPayment(rng: Rng, d: Draft, year: number, latePayer: boolean): Payment | null {
  const u = rng.int(0, 99);
  const typeName = rng.pick(PAYMENT_TYPES);
  const yearEnd = isoDate(year, 12, 31);
  const early = rng.int(0, 7);
  const lateBy = rng.int(1, 45);
  const share = rng.int(20, 80);
  const onTime = d.dueDate < d.documentDate
    ? d.documentDate
    : addDays(d.dueDate, -Math.min(early, daysBetween(d.documentDate, d.dueDate)));
  const [full, late, partial] = d.risky ? [40, 10, 20] : latePayer ? [82, 12, 3] : [95, 5, 0];
  if (u < full) return { date: onTime, cents: d.dueCents, typeName };
  if (u < full + late) {
    return { date: minDate(addDays(d.dueDate, lateBy), yearEnd), cents: d.dueCents, typeName };
  }
  const part = Math.round((d.dueCents * share) / 100);
  if (u < full + late + partial && part > 0) return { date: onTime, cents: part, typeName };
  return null;
}
