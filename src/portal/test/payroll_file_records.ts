/**
 * Maps the mock's structured payroll (src/mock/payroll_records.ts, integer cents, rates in
 * basis points) to the format module's D1 (EMPL2021.TXT) and D6 (NRA62007.TXT) records:
 * upper-case text without quotes or commas, rates in percent, the NRA program's source flags.
 * Implements the data side of docs/test-portal.md § Portal files with the layouts of
 * docs/nra-formats.md §2.1 and §2.2.
 * @module
 */
import type { D1Record, D6Record } from "../../formats/mod.ts";
import { type PayrollLine, type PayrollMonth, toAmount } from "../../mock/mod.ts";

/** Source flag of D1 records written by the NRA's own program (docs/nra-formats.md §2.1). */
const D1_SOURCE = "NRAD12008";
/** Source flag of D6 records (docs/nra-formats.md §2.2). */
const D6_SOURCE = "NRAD62007";

/** Upper case without the quotes and commas D1/D6 text may not hold (docs/nra-formats.md §2.1). */
function payrollText(s: string): string {
  return s.replace(/["„“,]/g, "").replace(/\s+/g, " ").trim().toUpperCase();
}

const pct = (bp: number) => bp / 100;

function d1RecordOf(m: PayrollMonth, l: PayrollLine): D1Record {
  return {
    month: m.month,
    year: m.year,
    employerEik: m.eik,
    personId: l.egn,
    personIdType: 0,
    surname: payrollText(l.person.last),
    initials: payrollText(l.person.first.charAt(0) + l.person.middle.charAt(0)),
    insuredType: 1,
    insuranceStartDay1: 1,
    insuranceEndDay1: new Date(Date.UTC(m.year, m.month, 0)).getUTCDate(),
    insuranceStartDay2: 0,
    insuranceEndDay2: 0,
    insuranceStartDay3: 0,
    insuranceEndDay3: 0,
    insuranceStartDay4: 0,
    insuranceEndDay4: 0,
    insuranceStartDay5: 0,
    insuranceEndDay5: 0,
    insuredDaysTotal: `${String(l.workingDays).padStart(2, "0")}00`,
    daysWorked: l.workedDays,
    daysSickness: l.sickDays,
    daysChildcare: 0,
    daysNoContributions: 0,
    daysUnpaidLeave: 0,
    daysSickPaidByEmployer: Math.min(l.sickDays, 3),
    hoursWorked: l.hoursWorked,
    hoursOvertime: 0,
    qualificationGroup: l.qualificationGroup,
    activityCode: m.activityCode,
    insurerMainActivity: Number(m.activityCode.slice(0, 2)),
    summedWorkingTimeCode: "0000",
    incomeArt40: 0,
    healthRateArt40: 0,
    insurableIncome: toAmount(l.insurableIncome),
    pensionRateEmployer: pct(l.rates.dooEmployer),
    pensionRateInsured: pct(l.rates.dooInsured),
    healthRateEmployer: pct(l.rates.zoEmployer),
    healthRateInsured: pct(l.rates.zoInsured),
    accidentRate: pct(l.rates.tzpb),
    teachersFundRate: 0,
    professionalFundRate: 0,
    universalFundRateEmployer: pct(l.rates.upfEmployer),
    universalFundRateInsured: pct(l.rates.upfInsured),
    healthOnlyIncome: 0,
    healthOnlyRate: 0,
    grossSalary: toAmount(l.gross),
    guaranteeFundRate: pct(l.rates.gvrs),
    taxableIncome: toAmount(l.taxableIncome),
    monthlyTax: toAmount(l.incomeTax),
    netSalary: toAmount(l.net),
    fundCode: 0,
    correctionCode: 0,
    sourceFlag: D1_SOURCE,
  };
}

/**
 * The D6 record of a payroll month: block 1 holds the month's amounts owed, blocks 2–4 are
 * empty (zeros, no payment date).
 * @param m the structured payroll
 * @param paymentDate the payment date of block 1 (ISO)
 * @returns the record for `writeD6`
 * @throws nothing
 */
export function d6RecordOf(m: PayrollMonth, paymentDate: string): D6Record {
  const t = m.totals;
  const empty = (b: 2 | 3 | 4) => ({
    [`block${b}Month`]: 0,
    [`block${b}Year`]: 0,
    [`block${b}PaymentDate`]: null,
    [`block${b}CorrectionCode`]: 0,
    [`block${b}PaymentType`]: 0,
    [`block${b}PensionInsurance`]: 0,
    [`block${b}TeachersPensionFund`]: 0,
    [`block${b}UniversalPensionFund`]: 0,
    [`block${b}ProfessionalPensionFund`]: 0,
    [`block${b}HealthInsurance`]: 0,
    [`block${b}GuaranteeFund`]: 0,
    [`block${b}IncomeTax1`]: 0,
    [`block${b}IncomeTax2`]: 0,
  });
  return {
    eik: m.eik,
    name: payrollText(m.name).slice(0, 60),
    fundMember: 0,
    email: m.email.toUpperCase(),
    phone: m.phone,
    mobile: "",
    block1Month: m.month,
    block1Year: m.year,
    block1PaymentDate: paymentDate,
    block1CorrectionCode: 0,
    block1PaymentType: 1,
    block1PensionInsurance: toAmount(t.doo),
    block1TeachersPensionFund: toAmount(t.uchpf),
    block1UniversalPensionFund: toAmount(t.upf),
    block1ProfessionalPensionFund: toAmount(t.ppf),
    block1HealthInsurance: toAmount(t.zo),
    block1GuaranteeFund: toAmount(t.gvrs),
    block1IncomeTax1: toAmount(t.incomeTax),
    block1IncomeTax2: 0,
    ...empty(2),
    ...empty(3),
    ...empty(4),
    sourceFlag: D6_SOURCE,
  } as D6Record;
}

/**
 * The D1 records of a payroll month (one per employee).
 * @param m the structured payroll
 * @returns the records for `writeD1`
 * @throws nothing
 */
export function d1RecordsOf(m: PayrollMonth): D1Record[] {
  return m.lines.map((l) => d1RecordOf(m, l));
}
