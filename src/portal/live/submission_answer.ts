/**
 * The answer of the submit call as a SubmissionResult: `{entryNumber, entryDate, documentId}`
 * becomes success with documentId, incomeNumber and an ISO submissionDate; an NRA refusal
 * (error envelope) becomes success=false with `errorCode: i18nMessage; errors` and the NRA's
 * texts in nativeErrors. Implements docs/nra-api.md §3 (response), §7 (envelope) and
 * docs/live-portal.md § Result. A 2xx answer it cannot read is PORTAL_BAD_RESPONSE with
 * `details.outcome: "unknown"`: the NRA may have filed the declaration (docs/journal.md).
 * @module
 */
import { AppError, type SubmissionResult } from "../../contract/mod.ts";
import type { NraEnvelope } from "./nra_answer.ts";

const SOFIA = "Europe/Sofia";

/**
 * The calendar date (YYYY-MM-DD) of an instant in Sofia.
 * @param epochMs the instant
 * @returns the Sofia date
 * @throws nothing
 */
export function sofiaDate(epochMs: number): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: SOFIA }).format(new Date(epochMs));
}

function sofiaOffset(date: string): string {
  const [y, m, d] = date.split("-").map(Number);
  const name = new Intl.DateTimeFormat("en-US", { timeZone: SOFIA, timeZoneName: "longOffset" })
    // non-null: the caller matched date against YYYY-MM-DD, so it has three parts
    .formatToParts(new Date(Date.UTC(y!, m! - 1, d!)))
    .find((p) => p.type === "timeZoneName")?.value ?? "GMT+02:00";
  const off = name.replace("GMT", "");
  return off === "" ? "Z" : off;
}

/**
 * The ISO instant of an NRA `entryDate`. A plain date equal to today's Sofia date is the
 * moment of acceptance (the clock); another plain date is its Sofia midnight; a date-time
 * without zone (`yyyy-MM-dd HH:mm:ss`) is Sofia local time.
 *
 * @param entryDate the NRA's entryDate
 * @param nowMs the clock's now, epoch ms
 * @returns an ISO 8601 UTC date-time
 * @throws AppError PORTAL_BAD_RESPONSE when entryDate is not a date
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(submissionInstant("2026-03-01", Date.UTC(2026, 2, 15)), "2026-02-28T22:00:00.000Z");
 * ```
 */
export function submissionInstant(entryDate: string, nowMs: number): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?))?$/.exec(
    entryDate.trim(),
  );
  let iso: Date | null = null;
  if (m && !m[2] && sofiaDate(nowMs) === m[1]) return new Date(nowMs).toISOString();
  // non-null: group 1 of the pattern is not optional, so a match has it
  if (m) iso = new Date(`${m[1]}T${m[2] ?? "00:00:00"}${sofiaOffset(m[1]!)}`);
  else if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/.test(entryDate)) iso = new Date(entryDate);
  if (!iso || Number.isNaN(iso.getTime())) {
    throw new AppError(
      "PORTAL_BAD_RESPONSE",
      "The NRA portal accepted the declaration but its entryDate is not a date",
      { endpoint: "submit", entryDate, outcome: "unknown" },
    );
  }
  return iso.toISOString();
}

/**
 * The SubmissionResult of a 2xx submit answer.
 *
 * Implements docs/nra-api.md §3 (response `{entryNumber, entryDate, documentId}`).
 * @param body the JSON answer
 * @param nowMs the clock's now, epoch ms
 * @returns success with documentId = String(documentId), incomeNumber = entryNumber,
 *   submissionDate = entryDate as ISO, errorMessage null, nativeErrors []
 * @throws AppError PORTAL_BAD_RESPONSE (outcome unknown) when a field is missing or malformed;
 *   with an unreadable entryDate, details also name the documentId and entryNumber the NRA gave
 *   (what the user needs for `journal resolve … --filed`)
 */
export function acceptedSubmission(
  body: Readonly<Record<string, unknown>>,
  nowMs: number,
): SubmissionResult {
  const { entryNumber, entryDate, documentId } = body;
  const idOk = (typeof documentId === "number" && Number.isSafeInteger(documentId)) ||
    (typeof documentId === "string" && /^\d+$/.test(documentId));
  if (typeof entryNumber !== "string" || typeof entryDate !== "string" || !idOk) {
    throw new AppError(
      "PORTAL_BAD_RESPONSE",
      "The NRA portal's answer to the submit call lacks entryNumber, entryDate or documentId",
      { endpoint: "submit", fields: Object.keys(body).slice(0, 20), outcome: "unknown" },
    );
  }
  let submissionDate: string;
  try {
    submissionDate = submissionInstant(entryDate, nowMs);
  } catch (e) {
    const err = e as AppError;
    throw new AppError(err.code, err.message, {
      ...err.details,
      documentId: String(documentId),
      incomeNumber: entryNumber.slice(0, 64),
    });
  }
  return {
    success: true,
    documentId: String(documentId),
    incomeNumber: entryNumber,
    submissionDate,
    errorMessage: null,
    nativeErrors: [],
  };
}

/**
 * The SubmissionResult of a refusal: the NRA did not take the declaration.
 *
 * Implements docs/nra-api.md §7 (P formats `errorCode: i18nMessage` then the errors joined
 * with "; ") and docs/live-portal.md § Result (success=false with errorMessage and
 * nativeErrors).
 * @param env the NRA error envelope
 * @returns success=false; errorMessage `errorCode: i18nMessage; e1; e2`; nativeErrors
 *   `["errorCode: i18nMessage", e1, e2]`
 * @throws nothing
 */
export function refusedSubmission(env: NraEnvelope): SubmissionResult {
  const head = env.i18nMessage ? `${env.errorCode}: ${env.i18nMessage}` : env.errorCode;
  const nativeErrors = [head, ...env.errors];
  return {
    success: false,
    documentId: null,
    incomeNumber: null,
    submissionDate: null,
    errorMessage: nativeErrors.join("; "),
    nativeErrors,
  };
}
