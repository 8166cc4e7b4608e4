/**
 * One HTTP call to the NRA public API with a time-out, mapping transport failures to the
 * catalog: a refused or broken connection (including TLS failures) is PORTAL_UNREACHABLE, the
 * time-out is PORTAL_TIMEOUT, any 5xx is PORTAL_SERVER_ERROR. Everything else is returned for
 * the caller to interpret (nra_answer.ts, oauth.ts). Implements issue 5 §4 (error mapping,
 * transport part) over nra-public-api.md §1–§2.
 * @module
 */
import { AppError } from "../../contract/mod.ts";

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
  readonly signal?: AbortSignal;
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
 * @param req endpoint, URL, headers, body, time-out and caller signal
 * @returns status, text, Content-Type and Retry-After of a non-5xx answer
 * @throws AppError PORTAL_UNREACHABLE (network or TLS failure), PORTAL_TIMEOUT (no full answer
 *   within `timeoutMs`), PORTAL_SERVER_ERROR (HTTP 5xx; details.httpStatus and the NRA
 *   errorCode/exceptionId when the body is its envelope); the caller's abort reason unchanged
 */
export async function postToPortal(
  fetchFn: typeof fetch,
  req: PortalRequest,
): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  let res: Response;
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
    if (req.signal?.aborted) throw req.signal.reason;
    if (timeout.aborted) {
      throw new AppError(
        "PORTAL_TIMEOUT",
        `The NRA portal did not answer ${LABEL[req.endpoint]} within ${req.timeoutMs / 1000} s`,
        { endpoint: req.endpoint, timeoutSeconds: req.timeoutMs / 1000 },
        e,
      );
    }
    throw new AppError(
      "PORTAL_UNREACHABLE",
      `The NRA portal at ${originOf(req.url)} could not be reached for ${LABEL[req.endpoint]}`,
      { endpoint: req.endpoint, origin: originOf(req.url) },
      e,
    );
  }
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
      },
    );
  }
  return {
    status: res.status,
    text,
    contentType: res.headers.get("content-type") ?? "",
    retryAfter: res.headers.get("retry-after"),
  };
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
