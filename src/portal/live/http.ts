/**
 * One HTTP call to the NRA public API with a time-out, mapping transport failures to the
 * catalog: a refused or broken connection (including TLS failures) is PORTAL_UNREACHABLE, the
 * time-out is PORTAL_TIMEOUT, any 5xx is PORTAL_SERVER_ERROR, an answer whose body breaks off
 * is PORTAL_BAD_RESPONSE. Everything else is returned for the caller to interpret
 * (nra_answer.ts, oauth.ts). Every error says in `details.outcome` what became of a declaration
 * the call carried ({@link CallOutcome}; docs/journal.md): the journal records it as "not_filed",
 * "refused" or "unknown". Implements docs/live-portal.md § Error mapping (transport part) over
 * docs/nra-api.md §1–§2.
 * @module
 */
import { AppError, isAppError } from "../../contract/mod.ts";

/**
 * What became of the declaration a failed call carried, in `details.outcome` of every error the
 * live portal throws (docs/journal.md):
 * - `not_filed`: it never reached the NRA (connection refused, DNS or TLS failure, a failure
 *   before the submit call, or a call that carries no declaration: token, result);
 * - `refused`: the NRA answered and did not take it (any 4xx, 3xx, a 503; a retry is allowed,
 *   no sooner than `details.retryAfterSeconds` when present);
 * - `unknown`: it may have been filed (time-out or connection cut after sending, a 2xx answer
 *   that cannot be read, a 5xx other than 503).
 */
export type CallOutcome = "not_filed" | "refused" | "unknown";

/** Which API call a request is (for messages and `details.endpoint`). */
export type Endpoint = "submit" | "result" | "token";

/** A non-5xx answer, body read as text. */
export interface HttpAnswer {
  /** HTTP status. */
  readonly status: number;
  /** The body as text (UTF-8). */
  readonly text: string;
  /** The Content-Type header, or "". */
  readonly contentType: string;
  /** The Retry-After header, or null. */
  readonly retryAfter: string | null;
  /** The Retry-After header in seconds from now (delta-seconds or an HTTP date), or null. */
  readonly retryAfterSeconds: number | null;
}

/** A request of {@link postToPortal}. */
export interface PortalRequest {
  readonly endpoint: Endpoint;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Time-out for the whole call (connect, send, read the body), in milliseconds. */
  readonly timeoutMs: number;
  /** The caller's cancellation (the agent's request); its reason is rethrown as is. */
  readonly signal?: AbortSignal | undefined;
  /** The clock's now, epoch ms (reads a Retry-After date); default Date.now. */
  readonly now?: () => number;
}

const LABEL: Record<Endpoint, string> = {
  submit: "the submit call",
  result: "the result call",
  token: "the OAuth2 token request",
};

/**
 * POST to the portal and read the answer.
 *
 * @param fetchFn the fetch to use (global, or bound to a CA via ca_fetch.ts)
 * @param req endpoint, URL, headers, body, time-out, caller signal and clock
 * @returns status, text, Content-Type and Retry-After of a non-5xx answer
 * @throws AppError PORTAL_UNREACHABLE (network or TLS failure; outcome not_filed when no
 *   connection was made, unknown when it broke after the request went out), PORTAL_TIMEOUT
 *   (no full answer within `timeoutMs`; outcome unknown for the submit call), PORTAL_SERVER_ERROR
 *   (HTTP 5xx; details.httpStatus and the NRA errorCode/exceptionId when the body is its
 *   envelope; outcome refused for 503 with details.retryAfterSeconds, else unknown),
 *   PORTAL_BAD_RESPONSE (the body broke off; outcome unknown for a 2xx submit answer); the
 *   caller's abort reason unchanged
 */
export async function postToPortal(
  fetchFn: typeof fetch,
  req: PortalRequest,
): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  let res: Response | null = null;
  let text: string;
  try {
    res = await fetchFn(req.url, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      signal,
      redirect: "manual",
    });
    text = await res.text();
  } catch (e) {
    throw failedCall(e, req, timeout, res);
  }
  const retryAfterSeconds = parseRetryAfter(
    res.headers.get("retry-after"),
    (req.now ?? Date.now)(),
  );
  if (res.status >= 500) {
    const env = looseEnvelope(text);
    throw new AppError(
      "PORTAL_SERVER_ERROR",
      `The NRA portal answered HTTP ${res.status} to ${LABEL[req.endpoint]}`,
      {
        endpoint: req.endpoint,
        httpStatus: res.status,
        ...(env.errorCode ? { errorCode: env.errorCode } : {}),
        ...(env.exceptionId ? { exceptionId: env.exceptionId } : {}),
        ...(retryAfterSeconds !== null ? { retryAfterSeconds } : {}),
        outcome: req.endpoint !== "submit"
          ? "not_filed"
          : res.status === 503
          ? "refused"
          : "unknown",
      },
    );
  }
  return {
    status: res.status,
    text,
    contentType: res.headers.get("content-type") ?? "",
    retryAfter: res.headers.get("retry-after"),
    retryAfterSeconds,
  };
}

/** The error of a POST that did not end with a whole answer: the caller's abort reason, a
 * time-out, an answer that broke off, or a portal never reached (`postToPortal`). */
function failedCall(
  e: unknown,
  req: PortalRequest,
  timeout: AbortSignal,
  res: Response | null,
): unknown {
  const unknown = fateUnknown(req.endpoint);
  if (req.signal?.aborted) return req.signal.reason;
  if (timeout.aborted) {
    return new AppError(
      "PORTAL_TIMEOUT",
      `The NRA portal did not answer ${LABEL[req.endpoint]} within ${req.timeoutMs / 1000} s`,
      { endpoint: req.endpoint, timeoutSeconds: req.timeoutMs / 1000, outcome: unknown },
      e,
    );
  }
  if (res) {
    // The status line came, the body broke off.
    const outcome = res.status >= 200 && res.status < 300 ? unknown : answeredOutcome(res.status);
    return new AppError(
      "PORTAL_BAD_RESPONSE",
      `The NRA portal's answer to ${LABEL[req.endpoint]} broke off (HTTP ${res.status})`,
      {
        endpoint: req.endpoint,
        httpStatus: res.status,
        outcome: req.endpoint === "submit" ? outcome : "not_filed",
      },
      e,
    );
  }
  return new AppError(
    "PORTAL_UNREACHABLE",
    `The NRA portal at ${originOf(req.url)} could not be reached for ${LABEL[req.endpoint]}`,
    {
      endpoint: req.endpoint,
      origin: originOf(req.url),
      outcome: neverConnected(e) ? "not_filed" : unknown,
    },
    e,
  );
}

/**
 * The outcome of a call whose fate cannot be known (a time-out, a cut connection): unknown for
 * the submit call, not_filed for the calls that carry no declaration (token, result).
 * @param endpoint the call
 * @returns the outcome
 * @throws nothing
 */
export function fateUnknown(endpoint: Endpoint): CallOutcome {
  return endpoint === "submit" ? "unknown" : "not_filed";
}

/**
 * The outcome of an answer that is not an acceptance: refused (the NRA answered and did not
 * take the declaration); a 5xx other than 503 is unknown.
 * @param status the HTTP status
 * @returns the outcome
 * @throws nothing
 */
export function answeredOutcome(status: number): CallOutcome {
  return status >= 500 && status !== 503 ? "unknown" : "refused";
}

/**
 * The same error with `details.outcome` set (an error that is not an AppError is returned as
 * is).
 * @param e what was thrown
 * @param outcome the outcome to record
 * @param keep true: an outcome the error already carries wins
 * @returns the error to throw
 * @throws nothing
 */
export function withOutcome(e: unknown, outcome: CallOutcome, keep = false): unknown {
  if (!isAppError(e)) return e;
  if (keep && typeof e.details?.outcome === "string") return e;
  if (e.details?.outcome === outcome) return e;
  return new AppError(e.code, e.message, { ...(e.details ?? {}), outcome }, e.cause ?? e);
}

/**
 * Seconds to wait from a Retry-After header: delta-seconds, or an HTTP date minus now.
 * @param value the header, or null
 * @param nowMs now, epoch ms
 * @returns whole seconds ≥ 0, or null when absent or unreadable
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(parseRetryAfter("120", 0), 120);
 * deepStrictEqual(parseRetryAfter("Thu, 01 Jan 1970 00:01:00 GMT", 0), 60);
 * ```
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (!/[a-z]/i.test(v) || Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Whether a fetch failure happened before any connection was made (so nothing was sent):
 * Deno names it "client error (Connect)" (refused, DNS, TLS handshake); a bad URL fails first. */
function neverConnected(e: unknown): boolean {
  for (let x: unknown = e, i = 0; x instanceof Error && i < 4; x = x.cause, i++) {
    if (/\(Connect\)|Invalid URL|builder error/i.test(x.message)) return true;
  }
  return false;
}

/**
 * The label of an endpoint for messages ("the submit call").
 * @param endpoint the endpoint
 * @returns its label
 * @throws nothing
 */
export function endpointLabel(endpoint: Endpoint): string {
  return LABEL[endpoint];
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}

function looseEnvelope(text: string): { errorCode?: string; exceptionId?: string } {
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object") {
      return {
        errorCode: typeof v.errorCode === "string" ? v.errorCode : undefined,
        exceptionId: typeof v.exceptionId === "string" ? v.exceptionId : undefined,
      };
    }
  } catch { /* not JSON */ }
  return {};
}
