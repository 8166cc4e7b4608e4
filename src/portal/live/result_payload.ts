/**
 * The answer of `POST …/result` (`ApiDeclarationsResultOutputDto`) as a
 * SubmissionResultPayload: the decoded protocol (`base64FullHtmlResultInfo`, else
 * `base64HtmlResult`, else `base64Result`) with its content type and the result URL; a refusal
 * or an answer without a protocol becomes status "error" with the reason. Implements
 * docs/nra-api.md §4 and docs/live-portal.md § Result.
 * @module
 */
import { Buffer } from "node:buffer";
import { AppError, type SubmissionResultPayload } from "../../contract/mod.ts";
import { envelopeMessage, type NraEnvelope } from "./nra_answer.ts";

/** The protocol fields, most complete first (P prefers the full HTML page). */
const PROTOCOL_FIELDS = [
  ["base64FullHtmlResultInfo", "html"],
  ["base64HtmlResult", "html"],
  ["base64Result", "data"],
] as const;

const HTML = "text/html; charset=utf-8";
const JSON_TYPE = "application/json";

function decodeUtf8Base64(field: string, value: string): string {
  const clean = value.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new AppError(
      "PORTAL_BAD_RESPONSE",
      `The NRA portal's result field ${field} is not Base64`,
      { endpoint: "result", field },
    );
  }
  return new TextDecoder().decode(Buffer.from(clean, "base64"));
}

function dataContentType(text: string): string {
  try {
    JSON.parse(text);
    return JSON_TYPE;
  } catch {
    return "text/plain; charset=utf-8";
  }
}

/**
 * The payload of a 2xx result answer.
 *
 * Implements docs/nra-api.md §4 (result fields; no machine-readable verdict, so the protocol
 * is returned as it is for the caller to read).
 * @param body the JSON answer
 * @param documentId the requested documentId (for the error text)
 * @param url the result URL (rawBodyUrl)
 * @returns status ok with the decoded protocol; status error when the answer holds none
 * @throws AppError PORTAL_BAD_RESPONSE when a protocol field is not Base64
 */
export function resultPayloadOf(
  body: Readonly<Record<string, unknown>>,
  documentId: string,
  url: string,
): SubmissionResultPayload {
  for (const [field, form] of PROTOCOL_FIELDS) {
    const v = body[field];
    if (typeof v !== "string" || v === "") continue;
    const text = decodeUtf8Base64(field, v);
    return {
      status: "ok",
      rawBody: text,
      rawBodyContentType: form === "html" ? HTML : dataContentType(text),
      rawBodyUrl: url,
      error: null,
    };
  }
  const status = typeof body.processingStatus === "string" ? body.processingStatus : null;
  const errors = Array.isArray(body.errors) ? body.errors.map(String) : [];
  return {
    status: "error",
    rawBody: JSON.stringify(body),
    rawBodyContentType: JSON_TYPE,
    rawBodyUrl: url,
    error: [
      `The NRA returned no protocol for document ${documentId}` +
      (status ? ` (processingStatus ${status})` : ""),
      ...errors,
    ].join("; "),
  };
}

/**
 * The payload of a refused result query (e.g. a documentId the NRA never issued).
 * @param env the NRA error envelope
 * @param text the raw answer body
 * @param url the result URL
 * @returns status error with the envelope as rawBody and `errorCode: i18nMessage; errors`
 * @throws nothing
 */
export function resultRefusalOf(env: NraEnvelope, text: string, url: string) {
  return {
    status: "error",
    rawBody: text,
    rawBodyContentType: JSON_TYPE,
    rawBodyUrl: url,
    error: envelopeMessage(env),
  } satisfies SubmissionResultPayload;
}

/**
 * The payload for a documentId that cannot be an NRA id (the NRA numbers documents with
 * integers), answered without calling the portal.
 * @param documentId the requested id
 * @param url the result URL
 * @returns status error
 * @throws nothing
 */
export function notAnNraDocumentId(documentId: string, url: string): SubmissionResultPayload {
  return {
    status: "error",
    rawBody: "",
    rawBodyContentType: "text/plain; charset=utf-8",
    rawBodyUrl: url,
    error: `Document ${documentId} was never issued by the NRA (its ids are integers)`,
  };
}
