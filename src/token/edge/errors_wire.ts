/**
 * The token service's error answers (docs/errors.md § Wire format;
 * docs/errors.md): every error any route throws becomes an `AppError` of the catalog, answered
 * here with the catalog's status for the token service (`httpStatus(code, "token")`) and the
 * body `{error, errorCode, errorKind}` — plus `rejectedEiks` for EIK_NOT_ALLOWED, `details` when
 * the error has some, and the request's `requestId` (`TokenServiceError` in the OpenAPI
 * documents). The app's one `onError` and its `notFound` call {@link errorAnswer}; nothing else
 * writes an error body of the API.
 * @module
 */
import type { Context } from "hono";
import { AppError, httpStatus, isAppError } from "../../contract/mod.ts";
import { noteErrorCode, requestIdOf } from "./request_edge.ts";
import { rateLimitHeaders, type RateLimitInfo } from "./rate_limit.ts";
import { isDatabaseUnavailable } from "../store/mod.ts";

/** Seconds a client waits before retrying while the database or the instance is not ready. */
const RETRY_AFTER_OUTAGE_S = 5;

/**
 * Turn anything thrown into a catalogued error: an `AppError` as it is, a database outage as
 * DATABASE_UNAVAILABLE (an outage, not a bug: the driver reconnects by itself), anything else as
 * SERVICE_INTERNAL_ERROR, logged.
 * @param err what was thrown
 * @param log where unexpected errors go (never given secrets)
 * @returns the error to answer
 */
export function catalogued(
  err: unknown,
  log?: (msg: string, fields?: Record<string, unknown>) => void,
): AppError {
  if (isAppError(err)) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError(
      "DATABASE_UNAVAILABLE",
      "The token service's database cannot be reached; retry shortly",
      undefined,
      err,
    );
  }
  log?.("unexpected error", { error: String(err) });
  return new AppError(
    "SERVICE_INTERNAL_ERROR",
    "Unexpected error in the token service",
    undefined,
    err,
  );
}

/** The headers a code's answer carries besides those already set on the context. */
function headersOf(e: AppError): Record<string, string> {
  switch (e.code) {
    case "RATE_LIMITED": {
      const info = e.details as unknown as RateLimitInfo & { retryAfter: number };
      return { "retry-after": String(info.retryAfter), ...rateLimitHeaders(info) };
    }
    case "DATABASE_UNAVAILABLE":
      return { "retry-after": String(RETRY_AFTER_OUTAGE_S) };
    case "SERVICE_NOT_READY":
      return { "cache-control": "no-store", "retry-after": String(RETRY_AFTER_OUTAGE_S) };
    default:
      return {};
  }
}

/**
 * The JSON error answer of the token service's API.
 * @param c the request's context
 * @param err what was thrown (see {@link catalogued})
 * @param log where unexpected errors go
 * @returns the answer; the edge (edge/request_edge.ts) is told its `errorCode` for the request log
 */
export function errorAnswer(
  c: Context,
  err: unknown,
  log?: (msg: string, fields?: Record<string, unknown>) => void,
): Response {
  const e = catalogued(err, log);
  noteErrorCode(c.req.raw, e.code);
  const requestId = requestIdOf(c.req.raw);
  const body = {
    error: e.message,
    errorCode: e.code,
    errorKind: e.kind,
    ...(e.code === "EIK_NOT_ALLOWED" ? { rejectedEiks: e.details?.rejectedEiks ?? [] } : {}),
    ...(e.details && e.code !== "EIK_NOT_ALLOWED" ? { details: e.details } : {}),
    ...(requestId ? { requestId } : {}),
  };
  return c.json(body, httpStatus(e.code, "token") as 400, headersOf(e));
}
