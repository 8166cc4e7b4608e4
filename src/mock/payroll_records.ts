/**
 * The structured payroll of a fictitious employer for one month: one D1 line per employee
 * (income, contributions, tax) and the D6 totals (amounts owed per fund), in integer cents of
 * the period's currency. The staff list is stable per EIK (seed `${eik}|staff`); the month's
 * days and sick leave vary (seed `${eik}|payroll|${year}|${month}`). Rates are the 2025 rates
 * for the 3rd labour category; the minimum wage and the insurable ceiling follow the year.
 * Implements the data behind docs/test-portal.md § Portal files (files of
 * docs/nra-formats.md §2.1 EMPL2021.TXT and §2.2 NRA62007.TXT).
 * @module
 */
import { daysInMonth } from "./dates.ts";
import { randomEgn } from "./ids.ts";
import { type Currency, currencyOf, inCurrency, shareCents, sumCents } from "./money.ts";
import { type Person, randomPerson } from "./names.ts";
import { companyProfile } from "./profile.ts";
import { rngFor } from "./rng.ts";

/** Minimum monthly wage in BGN cents by year (2026+: 620.20 EUR). */
const MIN_WAGE_BGN: Readonly<Record<number, number>> = {
  2020: 61000,
  2021: 65000,
  2022: 71000,
  2023: 78000,
  2024: 93300,
  2025: 107700,
};
const MIN_WAGE_EUR_2026 = 62020;
/** Maximum insurable income in BGN cents by year (2026+: 2111.64 EUR = 4130 BGN). */
const MAX_INSURABLE_BGN: Readonly<Record<number, number>> = {
  2020: 300000,
  2021: 300000,
  2022: 340000,
  2023: 340000,
  2024: 375000,
  2025: 413000,
};
const MAX_INSURABLE_EUR_2026 = 211164;

/**
 * Contributions and income tax by fund: ДОО without ТЗПБ (employer / insured), ТЗПБ, ГВРС, ЗО
 * (employer / insured), ДЗПО-УПФ (employer / insured; only for people born after 1959) and the
 * flat 10 % income tax. As rates: basis points (1/100 %); as amounts: cents.
 */
export interface Contributions {
  readonly dooEmployer: number;
  readonly dooInsured: number;
  readonly tzpb: number;
  readonly gvrs: number;
  readonly zoEmployer: number;
  readonly zoInsured: number;
  readonly upfEmployer: number;
  readonly upfInsured: number;
  readonly incomeTax: number;
}

/** Contribution rates in basis points (1/100 %). */
export type PayrollRates = Contributions;

/** One employee's month (one D1 record); amounts (and the {@link Contributions}) in cents. */
export interface PayrollLine extends Contributions {
  readonly egn: string;
  readonly person: Person;
  readonly workingDays: number;
  readonly workedDays: number;
  readonly sickDays: number;
  readonly hoursWorked: number;
  /** Qualification group (НКПД first digit) 1–9. */
  readonly qualificationGroup: number;
  readonly rates: PayrollRates;
  readonly gross: number;
  readonly insurableIncome: number;
  readonly taxableIncome: number;
  readonly net: number;
}

/** D6 amounts owed for the month, in cents. */
export interface PayrollTotals {
  /** ДОО incl. ТЗПБ, employer and insured shares. */
  readonly doo: number;
  readonly uchpf: number;
  readonly upf: number;
  readonly ppf: number;
  readonly zo: number;
  readonly gvrs: number;
  readonly incomeTax: number;
}

/** The payroll of one month. */
export interface PayrollMonth {
  readonly eik: string;
  readonly name: string;
  readonly year: number;
  readonly month: number;
  readonly currency: Currency;
  readonly activityCode: string;
  readonly email: string;
  readonly phone: string;
  readonly lines: readonly PayrollLine[];
  readonly totals: PayrollTotals;
}

/** A member of staff. */
interface StaffMember {
  readonly person: Person;
  readonly egn: string;
  readonly bornBefore1960: boolean;
  /** Salary factor in percent of the company's base salary. */
  readonly factor: number;
  readonly qualificationGroup: number;
}

function staffOf(eik: string): StaffMember[] {
  const profile = companyProfile(eik);
  const rng = rngFor(eik, "staff");
  const staff: StaffMember[] = [];
  for (let i = 0; i < profile.employees; i++) {
    const person = randomPerson(rng);
    const egn = randomEgn(rng, person.female);
    const yy = Number(egn.slice(0, 2));
    const bornBefore1960 = Number(egn.slice(2, 4)) < 40 && yy < 60;
    staff.push({
      person,
      egn,
      bornBefore1960,
      factor: rng.int(70, 180),
      qualificationGroup: rng.int(1, 9),
    });
  }
  return staff;
}

function workingDaysOf(year: number, month: number): number {
  let n = 0;
  for (let d = 1; d <= daysInMonth(year, month); d++) {
    const wd = new Date(Date.UTC(year, month - 1, d)).getUTCDay();
    if (wd !== 0 && wd !== 6) n++;
  }
  return n;
}

function yearTable(table: Readonly<Record<number, number>>, eur2026: number, year: number) {
  if (year >= 2026) return eur2026;
  const value = table[Math.max(2020, year)];
  if (value === undefined) throw new RangeError(`No payroll table entry for the year ${year}`);
  return value;
}

/**
 * The contribution rates of a person (3rd labour category, 2025 rates).
 * @param bornBefore1960 true for people born before 1960 (no УПФ, full pension rate)
 * @returns the rates in basis points
 * @throws nothing
 */
export function payrollRates(bornBefore1960: boolean): PayrollRates {
  return {
    dooEmployer: bornBefore1960 ? 1372 : 1092,
    dooInsured: bornBefore1960 ? 1058 : 838,
    tzpb: 40,
    gvrs: 10,
    zoEmployer: 480,
    zoInsured: 320,
    upfEmployer: bornBefore1960 ? 0 : 280,
    upfInsured: bornBefore1960 ? 0 : 220,
    incomeTax: 1000,
  };
}

/**
 * The payroll of (eik, year, month); a pure function of its arguments. An employer without
 * staff has no lines and zero totals.
 *
 * Implements docs/test-portal.md § Portal files.
 * @param eik the employer's EIK
 * @param year the period's year
 * @param month the period's month 1–12
 * @returns D1 lines and D6 totals in cents
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const p = payrollMonth("121212121", 2025, 3);
 * deepStrictEqual(p.totals.zo === p.lines.reduce((s, l) => s + l.zoEmployer + l.zoInsured, 0), true);
 * ```
 */
export function payrollMonth(eik: string, year: number, month: number): PayrollMonth {
  const profile = companyProfile(eik);
  const rng = rngFor(eik, "payroll", year, month);
  const currency = currencyOf(year);
  const minWage = yearTable(MIN_WAGE_BGN, MIN_WAGE_EUR_2026, year);
  const ceiling = yearTable(MAX_INSURABLE_BGN, MAX_INSURABLE_EUR_2026, year);
  const workingDays = workingDaysOf(year, month);
  const raise = 100 + 6 * Math.max(0, year - 2020);
  const lines = staffOf(eik).map((s): PayrollLine => {
    const sickDays = rng.chance(0.08) ? rng.int(1, Math.min(10, workingDays - 1)) : 0;
    const workedDays = workingDays - sickDays;
    const monthly = Math.max(
      minWage,
      Math.round(inCurrency((profile.baseSalaryBgnCents * s.factor * raise) / 10_000, currency)),
    );
    const fullMonth = Math.round(monthly / 100) * 100;
    const gross = Math.round((fullMonth * workedDays) / workingDays);
    const insurableIncome = Math.min(gross, ceiling);
    const rates = payrollRates(s.bornBefore1960);
    const part = (bp: number) => shareCents(insurableIncome, bp);
    const dooInsured = part(rates.dooInsured);
    const zoInsured = part(rates.zoInsured);
    const upfInsured = part(rates.upfInsured);
    const taxableIncome = gross - dooInsured - zoInsured - upfInsured;
    const incomeTax = shareCents(taxableIncome, rates.incomeTax);
    return {
      egn: s.egn,
      person: s.person,
      workingDays,
      workedDays,
      sickDays,
      hoursWorked: workedDays * 8,
      qualificationGroup: s.qualificationGroup,
      rates,
      gross,
      insurableIncome,
      dooEmployer: part(rates.dooEmployer),
      dooInsured,
      tzpb: part(rates.tzpb),
      gvrs: part(rates.gvrs),
      zoEmployer: part(rates.zoEmployer),
      zoInsured,
      upfEmployer: part(rates.upfEmployer),
      upfInsured,
      taxableIncome,
      incomeTax,
      net: taxableIncome - incomeTax,
    };
  });
  return {
    eik,
    name: profile.name,
    year,
    month,
    currency,
    activityCode: profile.activityCode,
    email: profile.email,
    phone: profile.phone,
    lines,
    totals: payrollTotals(lines),
  };
}

/**
 * D6 totals of D1 lines: ДОО = Σ(employer + insured + ТЗПБ), ЗО and УПФ = Σ(both shares),
 * ГВРС and income tax summed; УчПФ and ППФ are 0 (3rd category, no teachers).
 * @param lines the month's D1 lines
 * @returns the totals in cents
 * @throws nothing
 */
export function payrollTotals(lines: readonly PayrollLine[]): PayrollTotals {
  return {
    doo: sumCents(lines.map((l) => l.dooEmployer + l.dooInsured + l.tzpb)),
    uchpf: 0,
    upf: sumCents(lines.map((l) => l.upfEmployer + l.upfInsured)),
    ppf: 0,
    zo: sumCents(lines.map((l) => l.zoEmployer + l.zoInsured)),
    gvrs: sumCents(lines.map((l) => l.gvrs)),
    incomeTax: sumCents(lines.map((l) => l.incomeTax)),
  };
}
