/**
 * The portal boundary: every operation that reaches the tax authority goes through one
 * `PortalAdapter`. Two implementations share this interface and one contract test suite: the
 * test adapter (`portal/test/`, deterministic fictitious data, never the network) and the live
 * adapter (`portal/live/`, the NRA public API). Implements README.md § How it fits together
 * (test keys: realistic fictitious data, docs/test-portal.md; live keys: docs/live-portal.md).
 * @module
 */
import type {
  Family,
  KeyMode,
  NraFileKind,
  ReportAnswer,
  ReportOperationOf,
  ReportRequestOf,
  ReportResultOf,
  SubmissionKind,
  SubmissionResult,
  SubmissionResultPayload,
} from "../contract/mod.ts";
import type { SubmissionInputData, SubmittedFile } from "../mock/mod.ts";

/**
 * A file to submit: its canonical name, original bytes (CP1251 for text), records (D1/D6:
 * `numRecords` of the NRA API) — the test portal's {@link SubmittedFile} — and its NRA kind.
 */
export interface SubmissionFile extends SubmittedFile {
  /** An NRA text file's kind, or "xml" (an XML notice) or "other" (e.g. an audit file). */
  readonly kind: NraFileKind | "xml" | "other";
}

/** The sender on whose behalf the portal is called (never its secrets). */
export interface SenderRef {
  readonly id: string;
  readonly displayName: string;
}

/** Per-call context. */
export interface PortalContext {
  readonly sender: SenderRef | null;
  /** The signing step (live mode): CMS/PKCS#7 detached signature over the bytes. */
  readonly sign?: (bytes: Uint8Array) => Promise<Uint8Array>;
  /**
   * Sign these files ahead, together (a cloud signature: one approval for all the hashes of a
   * filing or a batch, docs/signing.md § 11); `sign` then returns their signatures.
   * A failure is reported by `sign`, for each file. Absent for keys that sign one at a time.
   */
  readonly prepareSignatures?: (files: readonly Uint8Array[]) => Promise<void>;
  /** The signer certificate (DER) for the portal's `userSignatureBase64`. */
  readonly certificate?: Uint8Array;
  readonly signal?: AbortSignal;
}

/**
 * A submission request as the adapter sees it: kind, EIK, the validated body (VatRequest,
 * Dec16Request, … without inline fields) and the files — the test portal's
 * {@link SubmissionInputData} — plus the journal's reference and instant.
 */
export interface SubmissionInput extends SubmissionInputData {
  readonly files: readonly SubmissionFile[];
  /** The agent's journal id of this filing (idempotency on the portal side where possible). */
  readonly clientRef?: string;
  /** When the agent sends it (the journal records the same instant). */
  readonly at?: Date;
  /**
   * Called by the adapter right before the filing leaves the machine (after it was signed):
   * the journal marks the filing "unknown" there, so a crash while it waits for the signature
   * leaves it "pending" (never sent, filed again after a restart). An adapter calls it before
   * any byte of the filing is sent.
   */
  readonly onSend?: () => void;
}

/** An operation as the portal's {@link PortalAdapter.check} sees it: a registry entry's fields. */
export interface PortalOperationRef {
  readonly typeId: string;
  readonly family: Family;
  /** The submission kind of a submission, batch or result entry. */
  readonly kind?: SubmissionKind;
}

/** The portal operations: submissions, their results, and the registry's report operations
 * (families `report` and `portal_files`, `AnyReportOperation`). */
export interface PortalAdapter {
  /** "test" or "live". */
  readonly mode: KeyMode;
  /**
   * Refuse, before the user is asked anything (confirmation page, PIN), what this portal would
   * refuse anyway: an operation it does not offer, or credentials already known to be refused
   * (missing settings, an expired pre-issued token). No network call, no side effect; the
   * agent calls it at the start of the sender confirmation. Absent: everything is offered.
   * @param op the registry entry (typeId, family, kind)
   * @returns nothing when the operation can be tried
   * @throws AppError PORTAL_OPERATION_UNSUPPORTED, PORTAL_NOT_CONFIGURED, PORTAL_AUTH_FAILED
   */
  check?(op: PortalOperationRef): void;
  /**
   * The registered name of a taxpayer as this portal knows it without a network call and
   * without a sender: the confirmation page shows it beside the EIK before anyone is chosen.
   * The test portal answers from the EIK's fictitious profile (src/mock/profile.ts); the live
   * portal leaves it out (the NRA's list of represented taxpayers needs the sender's signed
   * session, which exists only after the confirmation).
   * @param eik an EIK / Bulstat or EGN
   * @returns the name, or null when this portal does not know it
   * @throws nothing
   */
  companyName?(eik: string): string | null;
  /**
   * File one declaration.
   * @returns the submission result (success=false with errorMessage on a refusal)
   * @throws AppError PORTAL_* / CERTIFICATE_NOT_RECOGNISED / NO_POWER_OF_ATTORNEY / SIGNING_FAILED
   */
  submit(input: SubmissionInput, ctx: PortalContext): Promise<SubmissionResult>;
  /**
   * After a crash between sending and the answer: recover the answer of a filing from its
   * `clientRef` and `at` (as journaled), or null when this portal cannot tell.
   */
  reconcile?(input: SubmissionInput, ctx: PortalContext): Promise<SubmissionResult | null>;
  /**
   * Retrieve the result of a submission.
   * @returns the payload; status error for a documentId the portal never issued
   */
  result(
    kind: SubmissionKind,
    documentId: string,
    eik: string,
    ctx: PortalContext,
  ): Promise<SubmissionResultPayload>;
  /**
   * Run a report operation of the registry with its request, validated once by the agent.
   * @param op the registry entry (its `answer` names the test portal's generator)
   * @param request the request schema's output
   * @returns the result schema's shape
   * @throws AppError PORTAL_OPERATION_UNSUPPORTED where the portal lacks the report
   */
  report<A extends ReportAnswer>(
    op: ReportOperationOf<A>,
    request: ReportRequestOf<A>,
    ctx: PortalContext,
  ): Promise<ReportResultOf<A>>;
}
