/**
 * Submissions in the test portal: `submitDeclaration` accepts a declaration and issues a
 * self-verifying documentId (document_id.ts) with an incoming number and the injected clock's
 * time; `submissionResult` answers the result operation from the documentId alone (no server
 * state, so ids survive restarts). A period that has not begun is refused; what the special
 * test EIKs do is applied by the test portal (src/portal/test/special.ts), not here.
 * Implements docs/test-portal.md § Submissions and results.
 * @module
 */
import type { SubmissionKind, SubmissionResult, SubmissionResultPayload } from "../contract/mod.ts";
import { recordCount } from "../record_count.ts";
import { pad2 } from "./dates.ts";
import {
  type DocumentIdParts,
  incomeNumberOf,
  instantOfSeq,
  issueDocumentId,
  verifyDocumentId,
} from "./document_id.ts";
import { companyProfile } from "./profile.ts";
import { protocolHtml, type Verdict } from "./protocol_html.ts";

/** A file as the test portal sees it (a subset of PortalAdapter's SubmissionFile). */
export interface SubmittedFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly numRecords?: number;
}

/** A submission as the generator reads it. */
export interface SubmissionInputData {
  readonly kind: SubmissionKind;
  readonly eik: string;
  /** The validated request body (year / month are read when present). */
  readonly request: Readonly<Record<string, unknown>>;
  readonly files: readonly SubmittedFile[];
}

/** Where result bodies "come from" (fictitious portal path). */
export const PROTOCOL_URL_BASE = "https://portal.nra.bg/details/protocol";

function refused(errorMessage: string): SubmissionResult {
  return {
    success: false,
    documentId: null,
    incomeNumber: null,
    submissionDate: null,
    errorMessage,
    nativeErrors: [],
  };
}

/** The start of the submitted period, or null when the request names none. */
function periodStart(request: Readonly<Record<string, unknown>>): [number, number] | null {
  const year = request.year;
  if (typeof year !== "number") return null;
  const month = typeof request.month === "number" ? request.month : 1;
  return [year, month];
}

/**
 * File one declaration with the test portal.
 *
 * Implements docs/test-portal.md § Submissions and results; docs/test-portal.md § Submissions.
 * @param input kind, EIK, request body and files
 * @param clock `now` (the submission time) and `seq` (a unique sequence number from
 *   `seqOfInstant(now)` plus a counter; see document_id.ts)
 * @returns success with documentId, incomeNumber, submissionDate and nativeErrors []; or
 *   success=false with a Bulgarian errorMessage for a period that has not begun at `now`
 * @throws RangeError when seq does not fit 11 digits (a clock before 2020 or after 2050)
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const r = submitDeclaration(
 *   { kind: "vat", eik: "121212121", request: { year: 2025, month: 3 }, files: [] },
 *   { now: new Date("2026-03-15T10:00:00Z"), seq: 19_322_280_000 },
 * );
 * deepStrictEqual(r.success, true);
 * ```
 */
export function submitDeclaration(
  input: SubmissionInputData,
  clock: { readonly now: Date; readonly seq: number },
): SubmissionResult {
  const start = periodStart(input.request);
  if (start !== null && Date.UTC(start[0], start[1] - 1, 1) > clock.now.getTime()) {
    const label = typeof input.request.month === "number"
      ? `${pad2(start[1])}.${start[0]}`
      : String(start[0]);
    return refused(`Документът не е приет: данъчният период ${label} все още не е започнал.`);
  }
  const count = input.kind === "dec1_6"
    ? input.files.reduce((s, f) => s + recordCount(f), 0)
    : Math.max(1, input.files.length);
  const parts: DocumentIdParts = { kind: input.kind, eik: input.eik, seq: clock.seq, count };
  return {
    success: true,
    documentId: issueDocumentId(parts),
    incomeNumber: incomeNumberOf(parts),
    submissionDate: clock.now.toISOString(),
    errorMessage: null,
    nativeErrors: [],
  };
}

/**
 * The result of a submission, from its documentId alone.
 *
 * Implements docs/test-portal.md § Submissions and results.
 * @param kind the submission kind of the result operation
 * @param documentId the id returned by the submit operation
 * @param eik the EIK of the result request
 * @param verdict what the protocol says of the declaration (default "accepted"; the test portal
 *   passes its special EIKs' verdicts)
 * @returns status ok with the HTML protocol for an id the test portal issued for this kind and
 *   EIK; status error with a JSON body otherwise (never issued, other kind, other EIK)
 * @throws nothing
 */
export function submissionResult(
  kind: SubmissionKind,
  documentId: string,
  eik: string,
  verdict: Verdict = "accepted",
): SubmissionResultPayload {
  const rawBodyUrl = `${PROTOCOL_URL_BASE}/${kind}/${encodeURIComponent(documentId)}`;
  const parts = verifyDocumentId(kind, eik, documentId);
  if (parts === null) {
    return {
      status: "error",
      rawBody: JSON.stringify({
        code: 404,
        reason: "Not Found",
        errorCode: "API_DOCUMENT_NOT_FOUND",
        i18nMessage: `Документ с идентификатор ${documentId} не е намерен!`,
        errors: [],
      }),
      rawBodyContentType: "application/json",
      rawBodyUrl,
      error: `Document ${documentId} not found: the test portal issued no ${kind} submission ` +
        `with this id for EIK ${eik}`,
    };
  }
  return {
    status: "ok",
    rawBody: protocolHtml({
      kind,
      documentId,
      incomeNumber: incomeNumberOf(parts),
      submittedAt: instantOfSeq(parts.seq),
      eik,
      taxpayerName: companyProfile(eik).name,
      count: parts.count,
      verdict,
    }),
    rawBodyContentType: "text/html; charset=utf-8",
    rawBodyUrl,
    error: null,
  };
}
