/**
 * The test portal's answer to each report operation, keyed by the registry's `answer` name
 * (src/contract/operations.ts): one typed generator per report, each a pure function of the
 * validated request and {@link AnswerEnv}. Adding a report operation adds its schemas, its
 * registry entry and one generator here (docs/architecture.md § Adding an operation).
 * @module
 */
import type { ReportAnswer, ReportRequestOf, ReportResultOf } from "../contract/mod.ts";
import { debtPayments } from "./debt_payments.ts";
import { debtPaymentsTypes } from "./debt_types.ts";
import { dueAmounts } from "./due_amounts.ts";
import { napCatalog } from "./nap_catalog.ts";
import {
  dec16PortalFiles,
  type NraFileKit,
  vatMonthlyFiles,
  vatPortalFiles,
} from "./portal_files.ts";
import { taxpayers } from "./taxpayers.ts";

/** What a generator may use besides the request: the injected "now", the sender, the file kit. */
export interface AnswerEnv {
  /** The test portal's clock. */
  readonly now: Date;
  /** The confirmed sender's id (taxpayers depends on it), or null. */
  readonly senderId: string | null;
  /** Renders NRA files (src/formats, passed in by the portal: mock does not import formats). */
  readonly files: NraFileKit;
}

/** One generator per {@link ReportAnswer}, typed by the registry's request and result schemas. */
export type ReportAnswers = {
  readonly [A in ReportAnswer]: (req: ReportRequestOf<A>, env: AnswerEnv) => ReportResultOf<A>;
};

/** The test portal's report generators. */
export const REPORT_ANSWERS: ReportAnswers = {
  debtPayments: (req, env) => debtPayments(req, env.now),
  debtPaymentsTypes: () => debtPaymentsTypes(),
  dueAmounts: (req, env) => dueAmounts(req, env.now),
  taxpayers: (_req, env) => taxpayers(env.senderId),
  napCatalog: (req) => napCatalog(req),
  vatPortalFiles: (req, env) => vatPortalFiles(req, env.now, env.files),
  dec16PortalFiles: (req, env) => dec16PortalFiles(req, env.now, env.files),
  vatMonthlyFiles: (req, env) => vatMonthlyFiles(req, env.now, env.files),
};

/**
 * Answer one report.
 * @param answer the registry entry's generator name
 * @param req the validated request (the registry's request schema, parsed once by the agent)
 * @param env now, sender, file kit
 * @returns the result (the registry's result schema)
 * @throws nothing of its own (generators are total over valid requests)
 */
export function answerReport<A extends ReportAnswer>(
  answer: A,
  req: ReportRequestOf<A>,
  env: AnswerEnv,
): ReportResultOf<A> {
  const generate: ReportAnswers[A] = REPORT_ANSWERS[answer];
  return generate(req, env);
}
