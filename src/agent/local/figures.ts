/**
 * What the files of one declaration declare, for the confirmation page: a VAT return's payable
 * or refundable VAT and its ledgers' record counts, declarations 1 and 6's insured persons and
 * contribution totals, and the company name a file states. Pure: from records already parsed.
 * Amounts are in the currency of the tax period (the files carry none): BGN up to 2025-12, EUR
 * from 2026-01 (docs/test-portal.md § Currency).
 * @module
 */
import type { D1Record, D6Record, DeklarRecord } from "../../formats/mod.ts";
import type { CompanyName, PayrollFigures, PeriodCurrency, VatFigures } from "./types.ts";

/** The first period whose amounts are in euro (Bulgaria adopted the euro on 2026-01-01). */
const FIRST_EURO_PERIOD = "202601";

/**
 * The currency of a tax period's amounts.
 * @param period "YYYYMM" (or "YYYY13"), or null
 * @returns "BGN" up to 2025-12, "EUR" from 2026-01, null without a period
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(currencyOfPeriod("202512"), "BGN");
 * deepStrictEqual(currencyOfPeriod("202601"), "EUR");
 * ```
 */
export function currencyOfPeriod(period: string | null): PeriodCurrency | null {
  if (period === null || !/^\d{6}$/.test(period)) return null;
  return period >= FIRST_EURO_PERIOD ? "EUR" : "BGN";
}

/** Sum amounts in cents (no float drift), back to a 2-decimal number. */
function sum(values: readonly (number | null | undefined)[]): number {
  let cents = 0;
  for (const v of values) if (typeof v === "number") cents += Math.round(v * 100);
  return cents / 100;
}

/**
 * A company's name as a file states it (trimmed; none when blank).
 * @param eik the EIK the file is for
 * @param name the file's name field
 * @returns the name, or an empty list
 * @throws nothing
 */
export function fileCompany(eik: string, name: string | null | undefined): CompanyName[] {
  const n = (name ?? "").replace(/\s+/g, " ").trim();
  return n ? [{ eik, name: n, source: "file" }] : [];
}

/**
 * What a VAT return declares.
 * @param eik the filer's EIK
 * @param deklar the DEKLAR.TXT record
 * @param ledgers the records of POKUPKI.TXT and PRODAGBI.TXT
 * @returns the period, its currency, VAT payable (01-50) or refundable (01-60), ledger records
 * @throws nothing
 */
export function vatFigures(
  eik: string,
  deklar: DeklarRecord,
  ledgers: { purchases: number; sales: number },
): VatFigures {
  return {
    kind: "vat",
    eik,
    period: deklar.period,
    currency: currencyOfPeriod(deklar.period),
    payable: deklar.vatPayable,
    refundable: deklar.vatRefundable,
    purchaseRecords: ledgers.purchases,
    salesRecords: ledgers.sales,
  };
}

const BLOCKS = [1, 2, 3, 4] as const;
const CONTRIBUTIONS = [
  "PensionInsurance",
  "TeachersPensionFund",
  "UniversalPensionFund",
  "ProfessionalPensionFund",
  "HealthInsurance",
  "GuaranteeFund",
] as const;
const TAXES = ["IncomeTax1", "IncomeTax2"] as const;

/** Every block's amounts of the given fields, over all records of a D6. */
function d6Amounts(records: readonly D6Record[], fields: readonly string[]) {
  const r: (number | null)[] = [];
  for (const rec of records) {
    for (const b of BLOCKS) {
      for (const f of fields) r.push((rec as Record<string, unknown>)[`block${b}${f}`] as number);
    }
  }
  return r;
}

/**
 * What declarations 1 and 6 declare.
 * @param eik the employer's EIK
 * @param period the files' period "YYYYMM"
 * @param d1 the D1 records, or null without a D1
 * @param d6 the D6 records, or null without a D6
 * @returns insured persons and insurable income (D1), contributions and income tax (D6)
 * @throws nothing
 */
export function payrollFigures(
  eik: string,
  period: string | null,
  d1: readonly D1Record[] | null,
  d6: readonly D6Record[] | null,
): PayrollFigures {
  return {
    kind: "payroll",
    eik,
    period,
    currency: currencyOfPeriod(period),
    employees: d1 ? new Set(d1.map((r) => r.personId)).size : null,
    insurableIncome: d1 ? sum(d1.map((r) => r.insurableIncome)) : null,
    contributions: d6 ? sum(d6Amounts(d6, CONTRIBUTIONS)) : null,
    incomeTax: d6 ? sum(d6Amounts(d6, TAXES)) : null,
  };
}
