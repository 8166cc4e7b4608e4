/**
 * Deterministic fictitious data for the test portal: a seeded PRNG over pure-rand, Bulgarian
 * identifiers with valid check digits, and one generator per result family, each a pure
 * function of its request (plus an injected "now" where time matters). Nothing here calls
 * Math.random, Date.now or crypto.randomUUID, and nothing imports src/formats: portal files
 * take an injected {@link NraFileKit}. Implements docs/test-portal.md § Determinism.
 * @module
 */
export { type KeyPart, Rng, rngFor, seedFromKey } from "./rng.ts";
export {
  BGN_PER_EUR,
  type Currency,
  currencyOf,
  EURO_YEAR,
  inCurrency,
  sumCents,
  toAmount,
  toCents,
} from "./money.ts";
export {
  completeEik,
  egnBirthDate,
  egnCheckDigit,
  eikCheckDigit13,
  eikCheckDigit9,
  isValidEgn,
  isValidEik,
  randomEgn,
  randomEik,
} from "./ids.ts";
export { type CompanyProfile, companyProfile, isTaxpayerId, vatNumberOf } from "./profile.ts";
export {
  SPECIAL_EIKS,
  type SpecialBehaviour,
  specialBehaviour,
  type SpecialEik,
} from "./special_eiks.ts";
export { DEBT_TYPES, debtPaymentsTypes, type DebtType, debtTypeById } from "./debt_types.ts";
export { debtPayments, type DebtPaymentsInput } from "./debt_payments.ts";
export { ALL_YEARS_SPAN, dueAmounts, type DueAmountsInput } from "./due_amounts.ts";
export {
  cutoffOf,
  DEBT_FREE_SHARE,
  INTEREST_BP_PER_YEAR,
  type Obligation,
  yearObligations,
} from "./obligations.ts";
export { DEFAULT_TEST_SENDER, taxpayers } from "./taxpayers.ts";
export { catalogEntryMatches, NAP_CATALOG, napCatalog } from "./nap_catalog.ts";
export {
  type DocumentIdParts,
  INCOME_PREFIX,
  incomeNumberOf,
  instantOfSeq,
  issueDocumentId,
  seqOfInstant,
  verifyDocumentId,
} from "./document_id.ts";
export { type Verdict } from "./protocol_html.ts";
export {
  PROTOCOL_URL_BASE,
  type SubmissionInputData,
  submissionResult,
  submitDeclaration,
  type SubmittedFile,
} from "./submissions.ts";
export {
  currentFiling,
  type Filing,
  filingsAsOf,
  FIRST_DATA_YEAR,
  inDataRange,
  LAST_DATA_YEAR,
  periodFilings,
  type PeriodicKind,
} from "./filings.ts";
export { type VatReturnData, vatReturnData } from "./vat_records.ts";
export { type PayrollLine, type PayrollMonth, payrollMonth } from "./payroll_records.ts";
export {
  dec16PortalFiles,
  type NraFileKit,
  type PeriodInput,
  type RenderedFile,
  type VatFileType,
  vatMonthlyFiles,
  vatPortalFiles,
} from "./portal_files.ts";
export { type AnswerEnv, answerReport, REPORT_ANSWERS, type ReportAnswers } from "./answers.ts";
