/**
 * Employer and period of a payroll file, from the solid fields only: D1 fields 3 (EIK),
 * 1 (month), 2 (year) (docs/nra-formats.md §2.1 "Key fields for a scanner"); D6 fields 1 (EIK),
 * 7 (month), 8 (year) (§2.2 "Period … Employer"). The record count is what the NRA API calls
 * `numRecords` (§4).
 *
 * Periods are "YYYYMM" as the files write them. A D6 may carry month **13** (§2.2: GO-D1D6
 * writes it, ODOO-NRA accepts 1–13): the annual declaration for the year as a whole, whose
 * period reads "YYYY13" and whose `annual` is true. Corrective declarations keep the period
 * they correct and say so in `correctionCode` (D1 field 52: 0 regular, 1 corrective, 8
 * deleting; D6 block 1's correction code: 0 regular, 1 corrective).
 * @module
 */
import type { D1Record } from "./d1.ts";
import type { D6Record } from "./d6.ts";

/** The month a D6 uses for the annual declaration of a year (docs/nra-formats.md §2.2). */
export const ANNUAL_MONTH = 13;

/** Employer, period and record count of one D1 or D6 file. */
export interface PayrollFileSummary {
  /** Employer EIK/Bulstat of the first record, or null for a file without records. */
  readonly eik: string | null;
  /** Year of the first record, or null. */
  readonly year: number | null;
  /** Month of the first record (D6 may use 13 for the annual declaration, §2.2), or null. */
  readonly month: number | null;
  /** "YYYYMM" built from year and month of the first record ("YYYY13": annual), or null. */
  readonly period: string | null;
  /** True for an annual D6 (month 13): the declaration covers the whole `year`. */
  readonly annual: boolean;
  /** Correction code of the first record (0 regular, 1 corrective, 8 deleting), or null when
   * the file has no records or leaves it empty. */
  readonly correctionCode: number | null;
  /** Number of records (`numRecords`). */
  readonly numRecords: number;
  /** Distinct EIKs over all records, in order of appearance. */
  readonly eiks: readonly string[];
  /** Distinct periods "YYYYMM" over all records, in order of appearance. */
  readonly periods: readonly string[];
}

interface Row {
  eik: string;
  year: number;
  month: number;
  correctionCode: number | null;
}

function summarize(rows: Row[]): PayrollFileSummary {
  const eiks: string[] = [];
  const periods: string[] = [];
  for (const r of rows) {
    const p = String(r.year).padStart(4, "0") + String(r.month).padStart(2, "0");
    if (!eiks.includes(r.eik)) eiks.push(r.eik);
    if (!periods.includes(p)) periods.push(p);
  }
  const first = rows[0];
  return {
    eik: first?.eik ?? null,
    year: first?.year ?? null,
    month: first?.month ?? null,
    period: periods[0] ?? null,
    annual: first?.month === ANNUAL_MONTH,
    correctionCode: first?.correctionCode ?? null,
    numRecords: rows.length,
    eiks,
    periods,
  };
}

/**
 * Employer EIK, period and record count of a D1 file (EMPL2021.TXT).
 * @param records the parsed records
 * @returns the summary (first record's EIK, period and correction code; all distinct values in
 *   `eiks`/`periods`)
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { parseD1 } from "./d1.ts";
 * const bytes = await Deno.readFile("fixtures/formats/d1/EMPL2021.TXT");
 * equal(summarizeD1(parseD1(bytes)).period, "202608");
 * ```
 */
export function summarizeD1(records: readonly D1Record[]): PayrollFileSummary {
  return summarize(
    records.map((r) => ({
      eik: r.employerEik,
      year: r.year,
      month: r.month,
      correctionCode: r.correctionCode,
    })),
  );
}

/**
 * Employer EIK, period and record count of a D6 file (NRA62007*.TXT), from block 1.
 * @param records the parsed records
 * @returns the summary (first record's EIK, period and correction code; all distinct values in
 *   `eiks`/`periods`); month 13 gives period "YYYY13" and `annual: true`
 * @throws nothing
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseD6 } from "./d6.ts";
 * const annualBytes = await Deno.readFile("fixtures/formats/d6/NRA62007_ANNUAL.TXT");
 * const s = summarizeD6(parseD6(annualBytes));
 * deepEqual([s.period, s.annual], ["202613", true]);
 * ```
 */
export function summarizeD6(records: readonly D6Record[]): PayrollFileSummary {
  return summarize(
    records.map((r) => ({
      eik: r.eik,
      year: r.block1Year,
      month: r.block1Month,
      correctionCode: r.block1CorrectionCode,
    })),
  );
}
