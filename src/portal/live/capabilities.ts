/**
 * What the NRA public API offers, and the clear refusal for what it does not: D1/D6
 * (`DEC_1_6`), ETZ art. 62 notices (`DEC_ETZ62`) and, unverified, high-fiscal-risk goods
 * notifications (`DEC_HIGH_FISC_RISK`) and VAT returns (`DEC_VAT`: no public client shows a VAT
 * service, nra-public-api.md §9; the service and file types are our assumption, isolated here
 * and in submit_body.ts so they change in one place once confirmed); no report exists there.
 * Implements nra-public-api.md §9 (coverage) and issue 5 §4 ("don't pretend").
 * @module
 */
import { AppError, type SubmissionKind } from "../../contract/mod.ts";

/** Submission kinds the live portal files through the public API. */
export const LIVE_SUBMISSION_KINDS = ["vat", "dec1_6", "etz62", "high_fisc_risk"] as const;

/** A submission kind of {@link LIVE_SUBMISSION_KINDS}. */
export type LiveSubmissionKind = typeof LIVE_SUBMISSION_KINDS[number];

/** Why each other submission kind is refused (nra-public-api.md §9). */
export const LIVE_UNSUPPORTED_SUBMISSIONS: Readonly<
  Record<Exclude<SubmissionKind, LiveSubmissionKind>, string>
> = {
  dec731: "Annual tax returns (form 731) are not a service of the NRA public API",
  dec736: "Annual tax returns (form 736) are not a service of the NRA public API",
  etz123: "Art. 123 change-of-employer notices have no known service type in the NRA public API",
  odit: "Audit files (N-18 e-shop, SAF-T) are uploaded through the NRA portal; the public API " +
    "has no service for them",
};

/**
 * True when the live portal can file this kind.
 * @param kind the submission kind
 * @returns whether it is one of {@link LIVE_SUBMISSION_KINDS}
 * @throws nothing
 */
export function isLiveKind(kind: SubmissionKind): kind is LiveSubmissionKind {
  return (LIVE_SUBMISSION_KINDS as readonly string[]).includes(kind);
}

/**
 * Refuse a submission kind the public API does not cover.
 *
 * Implements nra-public-api.md §9.
 * @param kind the submission kind
 * @param operation "submit" or "result"
 * @returns nothing when the kind is supported
 * @throws AppError PORTAL_OPERATION_UNSUPPORTED naming the operation and the reason
 */
export function assertLiveKind(
  kind: SubmissionKind,
  operation: "submit" | "result",
): asserts kind is LiveSubmissionKind {
  if (isLiveKind(kind)) return;
  const typeId = operation === "submit" ? kind : `${kind}_result`;
  throw new AppError(
    "PORTAL_OPERATION_UNSUPPORTED",
    `The live portal cannot run "${typeId}": ${LIVE_UNSUPPORTED_SUBMISSIONS[kind]}`,
    { typeId },
  );
}

/**
 * The refusal of a report: the NRA public API offers declarations only.
 *
 * Implements nra-public-api.md §9 (no report services) and PortalAdapter.report.
 * @param typeId the report typeId (debt_payments, due_amounts, taxpayers, nap_catalog, …)
 * @returns the error to throw
 * @throws nothing
 */
export function unsupportedReport(typeId: string): AppError {
  return new AppError(
    "PORTAL_OPERATION_UNSUPPORTED",
    `The live portal cannot run "${typeId}": the NRA public API offers declaration filing ` +
      "and its results only, no reports or portal files",
    { typeId },
  );
}
