/**
 * Interpretation of a (non-5xx) answer of the NRA public API: the JSON of a 2xx, a token
 * problem to renew once, a credential or signature failure thrown as its catalog code, or a
 * refusal of the request (the NRA error envelope) for the caller to report. Implements
 * docs/nra-api.md §7 (envelope, error codes) and docs/live-portal.md; the table is
 * repeated in docs/live-portal.md.
 * @module
 */
import { AppError, type ErrorCode } from "../../contract/mod.ts";
import { maskPersonalId } from "../../log.ts";
import { type Endpoint, endpointLabel, fateUnknown, type HttpAnswer } from "./http.ts";

/** The NRA error envelope (docs/nra-api.md §7), with the HTTP status it came with. */
export interface NraEnvelope {
  readonly httpStatus: number;
  readonly errorCode: string;
  readonly i18nMessage: string;
  readonly errors: readonly string[];
  readonly exceptionId?: string;
}

/** How sure the mapping of an NRA errorCode is. */
export type Evidence = "observed" | "source" | "designed";

/** One NRA errorCode that becomes its own catalog code (thrown, never a refusal). */
export interface NraCodeMapping {
  readonly code: ErrorCode;
  /** observed: seen in a logged NRA answer; source: named in public client code; designed:
   * chosen here because no source shows it (unverified). */
  readonly evidence: Evidence;
  readonly message: string;
}

/** NRA errorCodes that are not refusals of the declaration but credential/signature failures. */
export const NRA_ERROR_MAP: Readonly<Record<string, NraCodeMapping>> = {
  API_UNRECOGNIZED_CERTIFICATE_OR_USER: {
    code: "CERTIFICATE_NOT_RECOGNISED",
    evidence: "source",
    message: "The NRA did not recognise the sender's certificate or its holder",
  },
  API_NO_AUTHORIZATION: {
    code: "NO_POWER_OF_ATTORNEY",
    evidence: "designed",
    message: "The certificate holder has no power of attorney at the NRA for this EIK",
  },
  API_DOCUMENT_SIGNATURE_MISMATCH: {
    code: "DOCUMENT_SIGNATURE_MISMATCH",
    evidence: "source",
    message: "The NRA found that a file's CMS signature does not match the file",
  },
};

/** errorCodes that mean "this Bearer token is not good": renew it once, then PORTAL_AUTH_FAILED.
 * MALFORMED_TOKEN is observed (HTTP 400); EXPIRED_TOKEN is designed (the simulator's 401). */
export const NRA_TOKEN_ERRORS: readonly string[] = ["MALFORMED_TOKEN", "EXPIRED_TOKEN"];

/** The verdict on an answer. */
export type ApiVerdict =
  | { readonly kind: "ok"; readonly body: Record<string, unknown> }
  | { readonly kind: "auth"; readonly httpStatus: number; readonly errorCode: string | null }
  | { readonly kind: "refused"; readonly envelope: NraEnvelope };

/**
 * Read the NRA error envelope from a body.
 * @param httpStatus the HTTP status it came with
 * @param text the body
 * @returns the envelope, or null when the body is not JSON with a string `errorCode`
 * @throws nothing
 */
export function parseEnvelope(httpStatus: number, text: string): NraEnvelope | null {
  const v = parseJson(text);
  if (!isObject(v) || typeof v.errorCode !== "string") return null;
  return {
    httpStatus,
    errorCode: v.errorCode,
    i18nMessage: typeof v.i18nMessage === "string" ? v.i18nMessage : "",
    errors: Array.isArray(v.errors) ? v.errors.map(String) : [],
    ...(typeof v.exceptionId === "string" ? { exceptionId: v.exceptionId } : {}),
  };
}

/**
 * The text of an envelope as the NRA clients format it: `errorCode: i18nMessage; e1; e2`.
 * @param env the envelope
 * @returns the text
 * @throws nothing
 */
export function envelopeMessage(env: NraEnvelope): string {
  const head = env.i18nMessage ? `${env.errorCode}: ${env.i18nMessage}` : env.errorCode;
  return [head, ...env.errors].join("; ");
}

/**
 * The client-visible details of an envelope (no secrets: the NRA echoes field names only).
 * @param env the envelope
 * @returns httpStatus, errorCode, i18nMessage, errors, exceptionId
 * @throws nothing
 */
export function envelopeDetails(env: NraEnvelope): Record<string, unknown> {
  return {
    httpStatus: env.httpStatus,
    errorCode: env.errorCode,
    i18nMessage: env.i18nMessage,
    errors: [...env.errors],
    ...(env.exceptionId ? { exceptionId: env.exceptionId } : {}),
  };
}

/**
 * Classify an API answer (submit or result).
 *
 * Implements docs/nra-api.md §7 and docs/live-portal.md. Order: 2xx → ok (JSON object
 * required); 401 or a token errorCode → auth; 429 → PORTAL_REJECTED (with the envelope's
 * details when there is one, and `retryAfterSeconds`); a mapped errorCode → thrown; 403 →
 * PORTAL_AUTH_FAILED; any other envelope → refused; 3xx or 400 without an envelope →
 * PORTAL_BAD_RESPONSE; other 4xx → PORTAL_REJECTED. Every thrown error carries
 * `details.outcome`: "refused" for an answered refusal, "unknown" for an unreadable 2xx answer
 * to the submit call (see http.ts, CallOutcome).
 * @param answer the answer of postToPortal
 * @param endpoint which call it answers
 * @param eik the taxpayer EIK, for messages (a 10-digit EGN is masked)
 * @returns ok with the body, auth (renew the token), or refused with the envelope
 * @throws AppError PORTAL_BAD_RESPONSE, CERTIFICATE_NOT_RECOGNISED, NO_POWER_OF_ATTORNEY,
 *   DOCUMENT_SIGNATURE_MISMATCH, PORTAL_AUTH_FAILED (403), PORTAL_REJECTED (429 and other 4xx)
 */
export function classifyApiAnswer(answer: HttpAnswer, endpoint: Endpoint, eik: string): ApiVerdict {
  const label = endpointLabel(endpoint);
  if (answer.status >= 200 && answer.status < 300) {
    const body = parseJson(answer.text);
    if (!isObject(body)) {
      throw new AppError(
        "PORTAL_BAD_RESPONSE",
        `The NRA portal answered ${label} with a body that is not a JSON object`,
        {
          endpoint,
          httpStatus: answer.status,
          contentType: answer.contentType,
          outcome: fateUnknown(endpoint),
        },
      );
    }
    return { kind: "ok", body };
  }
  const refused = { endpoint, outcome: "refused" } as const;
  const env = parseEnvelope(answer.status, answer.text);
  if (answer.status === 401 || (env && NRA_TOKEN_ERRORS.includes(env.errorCode))) {
    return { kind: "auth", httpStatus: answer.status, errorCode: env?.errorCode ?? null };
  }
  const retry = answer.retryAfterSeconds;
  const retryDetails = retry !== null ? { retryAfterSeconds: retry } : {};
  if (answer.status === 429) {
    // Too many requests: not a verdict on the declaration, a retry later is.
    throw new AppError(
      "PORTAL_REJECTED",
      `The NRA portal refused ${label} with HTTP 429 (too many requests)` +
        (retry !== null ? `: retry in ${retry} s` : ""),
      { ...refused, ...(env ? envelopeDetails(env) : { httpStatus: 429 }), ...retryDetails },
    );
  }
  const mapped = env ? NRA_ERROR_MAP[env.errorCode] : undefined;
  if (env && mapped) {
    throw new AppError(
      mapped.code,
      `${mapped.message} (${env.errorCode}, EIK ${maskPersonalId(eik)})`,
      { ...refused, ...envelopeDetails(env) },
    );
  }
  if (answer.status === 403) {
    throw new AppError(
      "PORTAL_AUTH_FAILED",
      `The NRA portal refused the API client access to ${label} (HTTP 403): check that its ` +
        "credentials carry the scope of this environment",
      { ...refused, httpStatus: 403, ...(env ? { errorCode: env.errorCode } : {}) },
    );
  }
  if (env) return { kind: "refused", envelope: env };
  if (answer.status <= 400) {
    throw new AppError(
      "PORTAL_BAD_RESPONSE",
      `The NRA portal answered ${label} with HTTP ${answer.status} and no error envelope`,
      { ...refused, httpStatus: answer.status, contentType: answer.contentType },
    );
  }
  throw new AppError(
    "PORTAL_REJECTED",
    `The NRA portal refused ${label} with HTTP ${answer.status}`,
    { ...refused, httpStatus: answer.status, ...retryDetails },
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
