/**
 * Maps errors to the agent's wire format (docs/errors.md § Wire format):
 * 401 for token failures, 426 `AgentUpdateRequired {agentVersion, error, requiredVersion}`,
 * 502 `{error, errorCode, errorKind}` for every other catalogued error, and the catalog's own
 * status for transport-level refusals (404, 413, 421, 429, 403). Never a 500.
 * @module
 */
import type { Context } from "hono";
import { AppError, type ErrorCode, httpStatus, isAppError } from "../../contract/mod.ts";
import type { Logger } from "../../log.ts";
import { AgentUpdateRequiredError } from "./auth.ts";

/**
 * Codes the agent's wire still sends by their deprecated name, with that name's status, until
 * the sunset (CHANGELOG § Deprecated, docs/compatibility.md): an unknown typeId is
 * `UNKNOWN_TYPE_ID` on both services, and the agent answers it as 404 `UNKNOWN_OPERATION`.
 */
const DEPRECATED_WIRE_CODES: Partial<Record<ErrorCode, ErrorCode>> = {
  UNKNOWN_TYPE_ID: "UNKNOWN_OPERATION",
};

/**
 * The details as the wire shows them. A renamed word keeps its old form on the wire until its
 * sunset (CHANGELOG § Deprecated, docs/compatibility.md): `details.outcome` "not_filed" (the
 * journal's word, used inside the agent) is still sent as "not_sent" (docs/journal.md).
 */
function wireDetails(details: Record<string, unknown>): Record<string, unknown> {
  return details.outcome === "not_filed" ? { ...details, outcome: "not_sent" } : details;
}

/**
 * The body of an error answer (docs/errors.md § Wire format: 502 and the other statuses),
 * with a renamed code or word in its old form until the sunset ({@link DEPRECATED_WIRE_CODES}).
 * @param e the error
 * @param requestId the request's id, when it has one
 * @returns `{error, errorCode, errorKind}`, `details` when the error has some, `requestId`
 */
export function errorBody(e: AppError, requestId?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    error: e.message,
    errorCode: wireCode(e.code),
    errorKind: e.kind,
  };
  if (e.details) body.details = wireDetails(e.details);
  if (requestId) body.requestId = requestId;
  return body;
}

/** The code the agent's wire sends for a code (its deprecated name until the sunset). */
const wireCode = (code: ErrorCode): ErrorCode => DEPRECATED_WIRE_CODES[code] ?? code;

/** The agent's Hono environment: what its first middleware (app.ts) sets for every request. */
export type AgentEnv = {
  Variables: {
    /** The request's id (`X-Request-Id`, `requestId` of error bodies and log lines). */
    requestId: string;
  };
};

/**
 * Build the response for an error.
 * @param c Hono context (the request id read from its variables; absent outside the app)
 * @param err anything thrown
 * @param log logger for unexpected errors
 * @returns a JSON response
 */
export function errorResponse<E extends AgentEnv>(
  c: Context<E>,
  err: unknown,
  log: Logger,
): Response {
  const requestId: string | undefined = c.get("requestId");
  let e: AppError;
  if (isAppError(err)) {
    e = err;
  } else {
    log("error", "unexpected error", {
      requestId,
      error: String(err),
      stack: (err as Error)?.stack,
    });
    e = new AppError("AGENT_INTERNAL_ERROR", "Unexpected failure inside the agent", undefined, err);
  }
  if (e instanceof AgentUpdateRequiredError) {
    return c.json({
      agentVersion: e.agentVersion,
      error: e.message,
      requiredVersion: e.requiredVersion,
      errorCode: e.code,
      errorKind: e.kind,
    }, 426);
  }
  const body = errorBody(e, requestId);
  if (e.code === "RATE_LIMITED" && typeof e.details?.retryAfter === "number") {
    c.header("retry-after", String(e.details.retryAfter));
  }
  const status = httpStatus(wireCode(e.code), "agent");
  if (status >= 500 || status < 400) {
    log("warn", "operation failed", { requestId, errorCode: wireCode(e.code) });
  }
  // NO_DATA (200) is never an error body: thrown by mistake, it is a 502 like any other.
  return c.json(body, (status === 200 ? 502 : status) as 502);
}
