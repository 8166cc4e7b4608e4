/**
 * What the NRA public API offers, and the clear refusal for what it does not: D1/D6
 * (`DEC_1_6`), ETZ art. 62 notices (`DEC_ETZ62`) and, unverified, high-fiscal-risk goods
 * notifications (`DEC_HIGH_FISC_RISK`); no report exists there. VAT returns are refused: no
 * public client shows a VAT service (docs/nra-api.md §9). The assumed mapping (`DEC_VAT`,
 * submit_body.ts) is kept behind the explicit agent.json setting
 * `portal.experimentalVatService` (default false) until a real one is known. The agent asks
 * {@link checkLiveOperation} before any confirmation page or PIN.
 * Implements docs/nra-api.md §9 (coverage), docs/live-portal.md).
 * @module
 */
import { AppError, type Family, type SubmissionKind } from "../../contract/mod.ts";

/** Submission kinds the live portal files through the public API by default. */
export const LIVE_SUBMISSION_KINDS = ["dec1_6", "etz62", "high_fisc_risk"] as const;

/** Submission kinds filed only behind an explicit setting (an assumed, unverified service). */
export const EXPERIMENTAL_LIVE_KINDS = ["vat"] as const;

/** A submission kind the live adapter knows how to file ({@link LIVE_SUBMISSION_KINDS}, or
 * {@link EXPERIMENTAL_LIVE_KINDS} when enabled). */
export type LiveSubmissionKind =
  | typeof LIVE_SUBMISSION_KINDS[number]
  | typeof EXPERIMENTAL_LIVE_KINDS[number];

/** The settings that change the live portal's coverage (agent.json `portal`). */
export interface LiveCoverage {
  /** File `vat` / `vat_batch` as the assumed `DEC_VAT` service (default false). */
  readonly experimentalVatService?: boolean | undefined;
}

/** Why each kind outside {@link LIVE_SUBMISSION_KINDS} is refused (docs/nra-api.md §9). */
export const LIVE_UNSUPPORTED_SUBMISSIONS: Readonly<
  Record<Exclude<SubmissionKind, typeof LIVE_SUBMISSION_KINDS[number]>, string>
> = {
  vat: "VAT returns are filed in the NRA e-services portal; the public API has no VAT service",
  dec731: "Annual tax returns (form 731) are not a service of the NRA public API",
  dec736: "Annual tax returns (form 736) are not a service of the NRA public API",
  etz123: "Art. 123 change-of-employer notices have no known service type in the NRA public API",
  odit: "Audit files (N-18 e-shop, SAF-T) are uploaded through the NRA portal; the public API " +
    "has no service for them",
};

/**
 * The submission kinds the live portal files with these settings.
 * @param coverage agent.json `portal` (its `experimentalVatService`)
 * @returns {@link LIVE_SUBMISSION_KINDS}, plus `vat` when the experimental VAT service is on
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(liveKinds({}), ["dec1_6", "etz62", "high_fisc_risk"]);
 * ```
 */
export function liveKinds(coverage: LiveCoverage = {}): readonly LiveSubmissionKind[] {
  return coverage.experimentalVatService === true
    ? [...LIVE_SUBMISSION_KINDS, ...EXPERIMENTAL_LIVE_KINDS]
    : LIVE_SUBMISSION_KINDS;
}

/**
 * True when the live portal files this kind with these settings.
 * @param kind the submission kind
 * @param coverage agent.json `portal` (its `experimentalVatService`)
 * @returns whether it is one of {@link liveKinds}
 * @throws nothing
 */
export function isLiveKind(
  kind: SubmissionKind,
  coverage: LiveCoverage = {},
): kind is LiveSubmissionKind {
  return (liveKinds(coverage) as readonly string[]).includes(kind);
}

/**
 * Refuse a submission kind the public API does not cover (with these settings).
 *
 * Implements docs/nra-api.md §9.
 * @param kind the submission kind
 * @param operation "submit" or "result"
 * @param coverage agent.json `portal` (its `experimentalVatService`)
 * @param typeId the typeId to name (default: the kind, or `<kind>_result`)
 * @returns nothing when the kind is supported
 * @throws AppError PORTAL_OPERATION_UNSUPPORTED naming the operation and the reason
 */
export function assertLiveKind(
  kind: SubmissionKind,
  operation: "submit" | "result",
  coverage: LiveCoverage = {},
  typeId: string = operation === "submit" ? kind : `${kind}_result`,
): asserts kind is LiveSubmissionKind {
  if (isLiveKind(kind, coverage)) return;
  const why = LIVE_UNSUPPORTED_SUBMISSIONS[kind as keyof typeof LIVE_UNSUPPORTED_SUBMISSIONS];
  throw new AppError(
    "PORTAL_OPERATION_UNSUPPORTED",
    `The live portal cannot run "${typeId}": ${why}`,
    { typeId },
  );
}

/**
 * The refusal of a report: the NRA public API offers declarations only.
 *
 * Implements docs/nra-api.md §9 (no report services) and PortalAdapter.report.
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

/**
 * The live portal's capability check of a registry entry, asked before the user is (the
 * operation half of PortalAdapter.check): submissions and folder-wide batches of a kind the
 * API files, results of such a kind; every report and portal-files operation is refused;
 * local reads never reach the portal.
 *
 * Implements docs/nra-api.md §9 (docs/live-portal.md § Before the page).
 * @param op the entry's typeId, family and kind
 * @param coverage agent.json `portal` (its `experimentalVatService`)
 * @returns nothing when the live portal can run it
 * @throws AppError PORTAL_OPERATION_UNSUPPORTED naming the typeId
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * throws(() => checkLiveOperation({ typeId: "vat_batch", family: "batch", kind: "vat" }, {}), {
 *   code: "PORTAL_OPERATION_UNSUPPORTED",
 * });
 * ```
 */
export function checkLiveOperation(
  op: { readonly typeId: string; readonly family: Family; readonly kind?: SubmissionKind },
  coverage: LiveCoverage = {},
): void {
  switch (op.family) {
    case "local":
      return;
    case "report":
    case "portal_files":
      throw unsupportedReport(op.typeId);
    case "submission":
    case "batch":
    case "result":
      if (!op.kind) throw unsupportedReport(op.typeId);
      assertLiveKind(op.kind, op.family === "result" ? "result" : "submit", coverage, op.typeId);
      return;
  }
}
