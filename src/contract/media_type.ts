/**
 * The one media type the JSON routes of the agent (`POST /api/v1/operations/*`) and of the
 * token service accept: `application/json`, with or without a `charset=utf-8` parameter
 * (RFC 8259 § 8.1: JSON is UTF-8). Anything else — `text/plain`, a form, XML, no
 * `Content-Type` — is 415 UNSUPPORTED_MEDIA_TYPE, so a body a cross-site page can send without
 * a CORS preflight (a "simple" request: text/plain, form-encoded) is never read as JSON, whatever
 * the other checks say.
 * @module
 */
import { AppError } from "./errors.ts";

const JSON_TYPE =
  /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * Whether a `Content-Type` value is `application/json` (optionally `; charset=utf-8`).
 * @param value the header value, or null/undefined when absent
 * @returns true only for JSON
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(isJsonMediaType("application/json; charset=UTF-8"), true);
 * deepStrictEqual(isJsonMediaType("text/plain;charset=UTF-8"), false);
 * ```
 */
export function isJsonMediaType(value: string | null | undefined): boolean {
  return typeof value === "string" && JSON_TYPE.test(value.trim());
}

/**
 * Refuse a body that is not declared as JSON.
 * @param value the request's `Content-Type` (null/undefined when absent)
 * @throws AppError UNSUPPORTED_MEDIA_TYPE (415) with `details.contentType` (null when absent)
 */
export function requireJsonMediaType(value: string | null | undefined): void {
  if (isJsonMediaType(value)) return;
  throw new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    value
      ? `The body must be sent as Content-Type: application/json, not ${value.slice(0, 100)}`
      : "The body must be sent with Content-Type: application/json",
    { contentType: value ? value.slice(0, 100) : null },
  );
}
