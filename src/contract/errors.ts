/**
 * The product's one error class, {@link AppError}, over the error catalog (error_catalog.ts:
 * every stable `errorCode`, its `errorKind` and its HTTP status per service; docs/errors.md
 * § Wire format), re-exported here so that an error and its code come from one module, and the
 * lookups over it: the codes an API answers with, a code's HTTP status per service, what it
 * tells of a failed filing, and whether a stored text is a code.
 * @module
 */
import {
  ERROR_CATALOG,
  type ErrorCode,
  type ErrorKind,
  type ErrorService,
  type ErrorSpec,
  type FilingFailure,
} from "./error_catalog.ts";

// Everything the catalog module declares (ERROR_CATALOG, ERROR_KINDS, ErrorCode, ErrorKind,
// ErrorService, ErrorSpec, FilingFailure), so that callers import errors from here alone.
export * from "./error_catalog.ts";

/** All error codes, in catalog order. */
const ALL_ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** The codes an API answers with, in catalog order (the OpenAPI enum): all but the journal's. */
export const ERROR_CODES: ErrorCode[] = ALL_ERROR_CODES.filter((code) =>
  !(ERROR_CATALOG[code] as ErrorSpec).journalOnly
);

/**
 * Whether a text is a code of the catalog: the check at the boundary where codes come back from
 * storage (the agent's journal) as text.
 * @param code a stored text
 * @returns true for a key of {@link ERROR_CATALOG}
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(isErrorCode("PORTAL_REJECTED"), true);
 * equal(isErrorCode("NOT_SENT"), true);
 * equal(isErrorCode("no such code"), false);
 * ```
 */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}

/**
 * The HTTP status a service answers a code with, from the catalog.
 * @param code catalog code
 * @param service "agent" or "token" (the token service)
 * @returns the entry's `tokenStatus` at the token service when it has one, else its `status`
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(httpStatus("VALIDATION_FAILED", "agent"), 502);
 * deepStrictEqual(httpStatus("VALIDATION_FAILED", "token"), 400);
 * ```
 */
export function httpStatus(code: ErrorCode, service: ErrorService): number {
  const spec: ErrorSpec = ERROR_CATALOG[code];
  return service === "token" ? spec.tokenStatus ?? spec.status : spec.status;
}

/**
 * What a code tells of a failed submit's outcome, from the catalog (see {@link FilingFailure}).
 * @param code catalog code
 * @returns "not_filed", "refused", or null when the code alone does not tell
 */
export function filingFailureOf(code: ErrorCode): FilingFailure | null {
  const spec: ErrorSpec = ERROR_CATALOG[code];
  return spec.filingFailure ?? null;
}

/**
 * The one error class of the product. `status` and `kind` come from the catalog (`status` is
 * the agent's; the token service answers {@link httpStatus}`(code, "token")`); `details`
 * travels to the client (never put secrets there); `cause` stays in logs.
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const e = new AppError("VALIDATION_FAILED", 'Field "eik" must be 9 to 13 digits', {
 *   field: "eik",
 * });
 * deepStrictEqual(e.status, 502);
 * deepStrictEqual(e.kind, "PARAMETER");
 * ```
 */
export class AppError extends Error {
  /** The stable code. */
  readonly code: ErrorCode;
  /** PARAMETER, CREDENTIALS or PORTAL. */
  readonly kind: ErrorKind;
  /** The agent's HTTP status from the catalog (the token service's: {@link httpStatus}). */
  readonly status: number;
  /** Client-visible structured details (field names, file/line, rejected EIKs). */
  readonly details?: Record<string, unknown>;

  /**
   * @param code catalog code
   * @param message user-facing text, sentence case, naming the thing
   * @param details client-visible details; no secrets
   * @param cause underlying error, logged only
   */
  constructor(
    code: ErrorCode,
    message: string,
    details?: Record<string, unknown>,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "AppError";
    this.code = code;
    this.kind = ERROR_CATALOG[code].kind;
    this.status = ERROR_CATALOG[code].status;
    if (details !== undefined) this.details = details;
  }
}

/** True when `e` is an {@link AppError} (also across module copies). */
export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError ||
    (typeof e === "object" && e !== null && (e as { name?: string }).name === "AppError" &&
      typeof (e as { code?: unknown }).code === "string");
}

/**
 * Turn zod issues into VALIDATION_FAILED (HTTP 400 at the token service, 502 at the agent: the
 * error catalog) naming the first failing field, with up to 10 issues in `details.issues`.
 * @param issues zod issues (`path`, `message`)
 * @returns the AppError; `details` = `{ field, issues: [{ field, message }] }` (`field` "body"
 *   when the body itself is wrong)
 */
export function validationError(
  issues: readonly { path: PropertyKey[]; message: string }[],
): AppError {
  const first = issues[0];
  const field = first ? first.path.map(String).join(".") || "body" : "body";
  return new AppError("VALIDATION_FAILED", `Field "${field}" ${first?.message ?? "is invalid"}`, {
    field,
    issues: issues.slice(0, 10).map((i) => ({
      field: i.path.map(String).join("."),
      message: i.message,
    })),
  });
}
