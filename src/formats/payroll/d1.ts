/**
 * D1 — Декларация обр. 1 (data on the insured person), file EMPL2021.TXT: 53 comma-separated
 * fields per record. Field table restated from docs/nra-formats.md §2.1 (source OFFICIAL-D1, the
 * NRA's own 2021 format document). Solid fields checked on read and write: 1 (month 1-12),
 * 2 (year), 3 (employer EIK/Bulstat).
 * @module
 */
import {
  defineDelimLayout,
  delimField,
  type DelimRecordOf,
  formatDelimLines,
  parseDelimLines,
} from "./delimited.ts";
import { checkEik, checkMonth, checkYear } from "./checks.ts";
import { type FileReader, fileReader } from "../text_lines.ts";

const f = delimField;

/** EMPL2021.TXT field table (docs/nra-formats.md §2.1). Sizes: text = max characters; numbers =
 * max digits before the decimal point ("7.2" → 7). */
// deno-fmt-ignore
export const D1_FIELDS = [
  f(1, "month", "month", "int", 2),
  f(2, "year", "year", "int", 4),
  f(3, "employerEik", "employer EIK", "text", 13),
  f(4, "personId", "EGN/LNCh/service number", "text", 10),
  f(5, "personIdType", "EGN/LNCh code", "int", 1),
  f(6, "surname", "surname", "text", 25),
  f(7, "initials", "initials", "text", 2),
  f(8, "insuredType", "insured type", "int", 2),
  f(9, "insuranceStartDay1", "start day of insurance 1", "int", 2),
  f(10, "insuranceEndDay1", "last day of insurance 1", "int", 2),
  f(11, "insuranceStartDay2", "start day of insurance 2", "int", 2),
  f(12, "insuranceEndDay2", "last day of insurance 2", "int", 2),
  f(13, "insuranceStartDay3", "start day of insurance 3", "int", 2),
  f(14, "insuranceEndDay3", "last day of insurance 3", "int", 2),
  f(15, "insuranceStartDay4", "start day of insurance 4", "int", 2),
  f(16, "insuranceEndDay4", "last day of insurance 4", "int", 2),
  f(17, "insuranceStartDay5", "start day of insurance 5", "int", 2),
  f(18, "insuranceEndDay5", "last day of insurance 5", "int", 2),
  f(19, "insuredDaysTotal", "days in insurance, total", "text", 4),
  f(20, "daysWorked", "days worked", "int", 2),
  f(21, "daysSickness", "days of sickness (art. 53c)", "int", 2),
  f(22, "daysChildcare", "days of childcare", "int", 2),
  f(23, "daysNoContributions", "days counted without contributions", "int", 2),
  f(24, "daysUnpaidLeave", "days of unpaid leave counted", "int", 2),
  f(25, "daysSickPaidByEmployer", "days of sickness paid by the employer", "int", 2),
  f(26, "hoursWorked", "hours worked", "int", 3),
  f(27, "hoursOvertime", "overtime hours", "int", 3),
  f(28, "qualificationGroup", "qualification group (NKPD)", "int", 1),
  f(29, "activityCode", "economic activity code (KID 2008)", "text", 4),
  f(30, "insurerMainActivity", "main economic activity of the insurer", "int", 2),
  f(31, "summedWorkingTimeCode", "summed working time code", "text", 4),
  f(32, "incomeArt40", "income under art. 40(1)5 ZZO", "amount", 7),
  f(33, "healthRateArt40", "health rate on field 32", "decimal", 5),
  f(34, "insurableIncome", "insurable income", "amount", 7),
  f(35, "pensionRateEmployer", "DOO rate without TZPB, employer", "decimal", 5),
  f(36, "pensionRateInsured", "DOO rate without TZPB, insured", "decimal", 5),
  f(37, "healthRateEmployer", "health rate, employer", "decimal", 5),
  f(38, "healthRateInsured", "health rate, insured", "decimal", 5),
  f(39, "accidentRate", "TZPB rate", "decimal", 5),
  f(40, "teachersFundRate", "teachers' pension fund rate", "decimal", 5),
  f(41, "professionalFundRate", "professional pension fund rate", "decimal", 5),
  f(42, "universalFundRateEmployer", "universal pension fund rate, employer", "decimal", 5),
  f(43, "universalFundRateInsured", "universal pension fund rate, insured", "decimal", 5),
  f(44, "healthOnlyIncome", "income for health insurance only", "amount", 7),
  f(45, "healthOnlyRate", "health rate on field 44", "decimal", 5),
  f(46, "grossSalary", "gross salary", "amount", 9),
  f(47, "guaranteeFundRate", "GVRS rate", "decimal", 5),
  f(48, "taxableIncome", "taxable income under art. 24 ZDDFL", "amount", 9),
  f(49, "monthlyTax", "monthly tax", "amount", 8),
  f(50, "netSalary", "net salary", "amount", 9),
  f(51, "fundCode", "insurance fund code", "int", 3),
  f(52, "correctionCode", "correction code", "int", 1),
  f(53, "sourceFlag", "source flag", "text", 13),
] as const;

/** The compiled D1 layout (docs/nra-formats.md §2.1). */
export const D1_LAYOUT = defineDelimLayout(D1_FIELDS, {
  checks: { 1: checkMonth(12), 2: checkYear, 3: checkEik },
  nonNegative: true,
});

/** One EMPL2021.TXT record (one insured person, month and insurance type); amounts in the
 * filing currency, rates in percent. */
export type D1Record = DelimRecordOf<typeof D1_FIELDS>;

/**
 * Parse EMPL2021.TXT (docs/nra-formats.md §2.1): 53 fields per record.
 * @param input file bytes (cp1251) or decoded text; CRLF/LF; the 0x1A end marker is optional
 * @param fileName name used in error messages (default "EMPL2021.TXT")
 * @param options `warnings`: where to append what was tolerated (encoding, blank lines)
 * @returns one record per line; [] for a file holding only the end marker
 * @throws AppError FILE_PARSE_ERROR for a wrong field count, bad quoting, a non-numeric
 *   number, a bad month/year/EIK, or a 0x1A before the end; FILE_ENCODING_UNSUPPORTED for a
 *   file mixing UTF-8 and Windows-1251
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const rows = parseD1(await Deno.readFile("fixtures/formats/d1/EMPL2021.TXT"));
 * equal(rows[0]?.employerEik, "203456783");
 * ```
 */
export const parseD1: FileReader<D1Record[]> = fileReader(
  "EMPL2021.TXT",
  (text, file, notes) => parseDelimLines(D1_LAYOUT, text, file, notes),
);

/**
 * Write EMPL2021.TXT text: canonical quoting, CR LF after each record, 0x1A at the end.
 * @param records the records
 * @param options `fileName` for messages
 * @returns the file text; encode it with `encodeCp1251`
 * @throws AppError FILE_PARSE_ERROR for a value that does not fit, a negative amount, text
 *   with a quote or comma, or a bad month/year/EIK
 */
export function writeD1(records: readonly D1Record[], options: { fileName?: string } = {}): string {
  return formatDelimLines(D1_LAYOUT, records, options.fileName ?? "EMPL2021.TXT");
}
