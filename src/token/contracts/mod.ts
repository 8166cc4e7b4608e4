/**
 * Applications, contracts and billing (docs/token-service.md § Access phases, phases 2 and 3):
 * the contract operations (`contracts.ts`), the billing counts of issued tokens per month
 * (`billing_counts.ts`) and the monthly statements built from them (`statement.ts`).
 * @module
 */
export { BillingCounter, monthOf, PeriodicFlush } from "./billing_counts.ts";
export {
  applicationView,
  applicationViews,
  approveApplication,
  contractNow,
  type ContractView,
  contractView,
  contractViews,
  type IntegratorFilter,
  rejectApplication,
  submitApplication,
  terminateContract,
} from "./contracts.ts";
export {
  buildStatement,
  requireMonth,
  type Statement,
  statementCsv,
  usageCsv,
} from "./statement.ts";
