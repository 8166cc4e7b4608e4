/**
 * The agent's refusals as a typed union: one `AgentError` type per `errorCode` of the OpenAPI
 * document's `ErrorCode` enum (`components.schemas.ErrorCode` in the generated `agent.d.ts`),
 * narrowed with `isAgentError(e, "PIN_INCORRECT")` or a `switch (e.errorCode)`.
 *
 * ```ts
 * try {
 *   await scope.call("vat", body);
 * } catch (e) {
 *   if (isAgentError(e, "TOKEN_EXPIRED", "TOKEN_REPLAYED")) retry();
 *   else if (isAgentError(e, "AGENT_UPDATE_REQUIRED")) askToUpdate(e.requiredVersion);
 *   else if (isAgentError(e)) show(e.errorCode, e.message);
 *   else throw e; // fetch's TypeError: the agent is not running (or the browser blocked it)
 * }
 * ```
 * @module
 */
import type { components } from "./agent.d.ts";

/** Every stable error code the agent (and its token service) may send. */
export type ErrorCode = components["schemas"]["ErrorCode"];
/** PARAMETER: the caller can fix it; CREDENTIALS: the machine's user must act; PORTAL: retry later. */
export type ErrorKind = components["schemas"]["ErrorKind"];

/** Fields only some codes carry. */
interface CodeExtras {
  /** 426: the token service requires a newer agent. */
  AGENT_UPDATE_REQUIRED: { readonly agentVersion: string; readonly requiredVersion: string };
  /** 429: wait this many seconds (the `Retry-After` header), when the agent sent it. */
  RATE_LIMITED: { readonly retryAfter: number | undefined };
}

/** A refusal with one `errorCode` (a union member of {@link AnyAgentError}). */
export type AgentErrorOf<C extends ErrorCode> = C extends ErrorCode
  ? AgentError & { readonly errorCode: C } & (C extends keyof CodeExtras ? CodeExtras[C] : unknown)
  : never;

/** Every refusal, discriminated by `errorCode`. */
export type AnyAgentError = AgentErrorOf<ErrorCode>;

/** What an error body of the agent may hold (`AgentFailure`, `AgentUpdateRequired`, `AgentError`). */
export interface AgentErrorBody {
  error: string;
  errorCode?: string;
  errorKind?: string;
  details?: Record<string, unknown>;
  requestId?: string;
  requiredVersion?: string;
  agentVersion?: string;
}

/** Codes for answers that came without one (a proxy, an old agent): by HTTP status. */
const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: "VALIDATION_FAILED",
  401: "TOKEN_INVALID",
  403: "ORIGIN_NOT_ALLOWED",
  404: "NOT_FOUND",
  413: "BODY_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  426: "AGENT_UPDATE_REQUIRED",
  429: "RATE_LIMITED",
};

/**
 * A refusal by the agent: an HTTP answer other than 200 with `{error, errorCode, errorKind}`.
 * Network failures are not `AgentError`s: fetch rejects with a `TypeError` (agent not running,
 * or blocked by the browser — see Local Network Access in docs/integrators.md).
 */
export class AgentError extends Error {
  /** The stable code; rely on it, never on `message`. */
  readonly errorCode: ErrorCode;
  /** Who must act (absent on a few generic answers). */
  readonly errorKind: ErrorKind | undefined;
  /** HTTP status: 401 token, 403 origin, 426 agent too old, 429 rate limit, 502 the rest. */
  readonly status: number;
  /** Structured details, e.g. `field` for VALIDATION_FAILED, `outcome` for PORTAL_TIMEOUT. */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** The agent's request id (its log names it). */
  readonly requestId: string | undefined;
  /** 426 only: the agent's version and the one the token service requires. */
  readonly agentVersion: string | undefined;
  readonly requiredVersion: string | undefined;
  /** 429 only: seconds to wait, from `Retry-After`. */
  readonly retryAfter: number | undefined;
  /** The answer itself (headers; its body has been read). */
  readonly response: Response | undefined;

  constructor(
    status: number,
    body: Partial<AgentErrorBody> | undefined,
    response?: Response,
  ) {
    const b = body ?? {};
    super(typeof b.error === "string" ? b.error : `HTTP ${status}`);
    this.name = "AgentError";
    this.status = status;
    this.errorCode = typeof b.errorCode === "string"
      ? b.errorCode as ErrorCode
      : BY_STATUS[status] ?? "AGENT_INTERNAL_ERROR";
    this.errorKind = b.errorKind as ErrorKind | undefined;
    this.details = b.details;
    this.requestId = b.requestId ?? response?.headers.get("x-request-id") ?? undefined;
    this.agentVersion = b.agentVersion;
    this.requiredVersion = b.requiredVersion;
    const retry = Number(response?.headers.get("retry-after") ?? NaN);
    this.retryAfter = Number.isFinite(retry) ? retry : undefined;
    this.response = response;
  }
}

/**
 * Whether `e` is a refusal by the agent, optionally with one of `codes`; narrows to that code's
 * member of the union.
 * @param e anything caught
 * @param codes the codes to match (none: any code)
 * @returns true when `e` is such an `AgentError`
 */
export function isAgentError<C extends ErrorCode = ErrorCode>(
  e: unknown,
  ...codes: C[]
): e is AgentErrorOf<C> {
  const like = e instanceof AgentError ||
    (e instanceof Error && e.name === "AgentError" &&
      typeof (e as { errorCode?: unknown }).errorCode === "string");
  if (!like) return false;
  return codes.length === 0 || (codes as string[]).includes((e as AgentError).errorCode);
}
