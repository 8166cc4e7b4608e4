/**
 * The fictitious company behind an EIK: name, legal form, manager, address, size, staff and
 * VAT registration. Every generator that needs "who is this taxpayer" asks here, so the name in
 * DEKLAR.TXT, the staff count behind the D1 file and the size of the debts agree for one EIK.
 * Seed: `${eik}|profile` (stable across years). Implements docs/test-portal.md § Determinism
 * (realistic fictitious data for any EIK).
 * @module
 */
import { type Currency, inCurrency } from "./money.ts";
import {
  type Address,
  companyName,
  type LegalForm,
  type Person,
  randomAddress,
  randomLegalForm,
  randomPerson,
  slug,
} from "./names.ts";
import { randomEgn } from "./ids.ts";
import { rngFor } from "./rng.ts";

/** Activity codes (КИД-2008) with a short Bulgarian label. */
const ACTIVITIES: ReadonlyArray<readonly [string, string]> = [
  ["4690", "Неспециализирана търговия на едро"],
  ["4711", "Търговия на дребно в неспециализирани магазини"],
  ["6201", "Компютърно програмиране"],
  ["6920", "Счетоводни и одиторски дейности"],
  ["4120", "Строителство на жилищни и нежилищни сгради"],
  ["4941", "Товарен автомобилен транспорт"],
  ["5610", "Дейност на ресторанти"],
  ["7022", "Консултантска дейност по управление"],
];

/** The fictitious taxpayer of an EIK. */
export interface CompanyProfile {
  readonly eik: string;
  /** Registered name, e.g. `"Вега Консулт" ЕООД`. */
  readonly name: string;
  readonly legalForm: LegalForm;
  /** Manager / owner (the person who signs and files). */
  readonly manager: Person;
  /** The manager's EGN (declarant of VIES, signer of filings). */
  readonly managerEgn: string;
  readonly address: Address;
  /** E-mail for correspondence with the NRA. */
  readonly email: string;
  /** Phone, e.g. "02 9876543". */
  readonly phone: string;
  /** Registered under the VAT Act. */
  readonly vatRegistered: boolean;
  /** Number of employees on payroll (0 for a company without staff). */
  readonly employees: number;
  /** Turnover scale, 1 (micro) to 20 (mid-size); multiplies the monthly amounts. */
  readonly scale: number;
  /** Makes intra-EU supplies (so it files VIES.TXT). */
  readonly euTrader: boolean;
  /** Main activity code (КИД-2008), 4 digits. */
  readonly activityCode: string;
  readonly activityName: string;
  /** Pays some obligations late, partly or not at all (about 30 % of taxpayers). */
  readonly latePayer: boolean;
  /** Gross monthly salary of a typical employee in BGN cents (converted per period). */
  readonly baseSalaryBgnCents: number;
}

/**
 * The profile of an EIK: a pure function of the EIK (memoised).
 *
 * Implements docs/test-portal.md § Determinism.
 * @param eik 9 to 13 digits
 * @returns the profile
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(companyProfile("121212121").name === companyProfile("121212121").name, true);
 * ```
 */
export function companyProfile(eik: string): CompanyProfile {
  const hit = memo.get(eik);
  if (hit) return hit;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  const profile = drawProfile(eik);
  memo.set(eik, profile);
  return profile;
}

/** A small memo: one request asks for the same profile dozens of times. Pure, so safe. */
const memo = new Map<string, CompanyProfile>();
const MEMO_LIMIT = 1024;

function drawProfile(eik: string): CompanyProfile {
  const rng = rngFor(eik, "profile");
  const legalForm = randomLegalForm(rng);
  const manager = randomPerson(rng);
  const name = companyName(rng, legalForm, manager);
  const address = randomAddress(rng);
  const brand = slug(name.replace(/ЕООД|ООД|АД|ЕТ/g, "")).slice(0, 24) || "firma";
  const [activityCode, activityName] = rng.pick(ACTIVITIES);
  const small = legalForm === "ЕТ" || rng.chance(0.4);
  const employees = small ? rng.int(0, 4) : rng.int(3, 45);
  return {
    eik,
    name,
    legalForm,
    manager,
    managerEgn: randomEgn(rng, manager.female),
    address,
    email: `${rng.pick(["office", "info", "schetovodstvo", "nap"])}@${brand}.bg`,
    phone: `0${rng.int(2, 98)} ${rng.digits(6)}`,
    vatRegistered: !small || rng.chance(0.5),
    employees,
    scale: small ? rng.int(1, 3) : rng.int(3, 20),
    euTrader: rng.chance(0.3),
    activityCode,
    activityName,
    baseSalaryBgnCents: rng.int(1200, 3800) * 100,
    latePayer: rng.chance(0.3),
  };
}

/**
 * True for an identifier shape a Bulgarian taxpayer can have: a 9- or 13-digit EIK / Bulstat,
 * or a 10-digit EGN (a natural person registered under the Bulstat). The contract accepts 9–13
 * digits; 11- and 12-digit values name no taxpayer, so the test portal has no data for them.
 * @param eik the request's EIK
 * @returns whether the test portal generates filings and debts for it
 * @throws nothing
 */
export function isTaxpayerId(eik: string): boolean {
  return /^(?:[0-9]{9}|[0-9]{10}|[0-9]{13})$/.test(eik);
}

/**
 * The VAT number of a taxpayer: "BG" + the 9-digit EIK (the first 9 digits of a 13-digit
 * branch code) or "BG" + the 10-digit EGN.
 * @param eik the EIK / EGN
 * @returns the VAT number
 * @throws nothing
 */
export function vatNumberOf(eik: string): string {
  return `BG${eik.length === 10 ? eik : eik.slice(0, 9)}`;
}

/**
 * A BGN range for one document (an invoice), which grows more slowly than the company:
 * × (1 + scale / 4).
 * @param profile the company
 * @param minBgn lower bound for a micro company, BGN
 * @param maxBgn upper bound for a micro company, BGN
 * @param currency the period's currency
 * @returns `[minCents, maxCents]` in that currency
 * @throws nothing
 */
export function ticketRange(
  profile: CompanyProfile,
  minBgn: number,
  maxBgn: number,
  currency: Currency,
): [number, number] {
  const f = 4 + profile.scale;
  return [inCurrency(minBgn * 25 * f, currency), inCurrency(maxBgn * 25 * f, currency)];
}

/**
 * A BGN range scaled by the company size and expressed in the period's currency.
 * @param profile the company
 * @param minBgn lower bound per scale unit, BGN
 * @param maxBgn upper bound per scale unit, BGN
 * @param currency the period's currency
 * @returns `[minCents, maxCents]` in that currency
 * @throws nothing
 */
export function scaledRange(
  profile: CompanyProfile,
  minBgn: number,
  maxBgn: number,
  currency: Currency,
): [number, number] {
  return [
    inCurrency(minBgn * 100 * profile.scale, currency),
    inCurrency(maxBgn * 100 * profile.scale, currency),
  ];
}
