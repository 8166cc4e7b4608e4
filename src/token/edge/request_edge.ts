/**
 * The token service's edge (docs/token-service.md § Operations): what
 * every request passes through before and after routing, as one wrapper of the app's `fetch`
 * rather than Hono middleware, so the hot route (`POST /api/v1/tokens/issue`) stays a single
 * handler that Hono calls without composing a middleware chain (BENCHMARKS.md § The issuance hot
 * path).
 *
 * - **Request ids**: every answer carries `X-Request-Id`, the request's own when it is well formed
 *   (a reverse proxy's id, so its log and the service's name the same request), else a new one;
 *   the error answers (errors_wire.ts) repeat it as `requestId` in their body (`TokenServiceError`
 *   in the OpenAPI documents) and tell the edge their `errorCode` for the request log.
 * - **Access log**: one entry per request once its answer is ready (method, path, status, ms,
 *   request id; never a header, query or body, so never a credential).
 * - **Draining** (a graceful shutdown, edge/readiness.ts): requests in flight are counted, and
 *   while draining every answer is marked `Connection: close`.
 * @module
 */
import type { Hono } from "hono";
import { getPath } from "hono/utils/url";
import type { DrainState } from "./readiness.ts";

/** One access log line's fields (no headers, no query, no body: nothing secret). */
export interface AccessLogEntry {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Milliseconds from the request to the answer's headers, 0.1 ms precision. */
  readonly ms: number;
  /** The answer's `X-Request-Id`. */
  readonly requestId: string;
}

/** Options of {@link withEdge}. */
export interface EdgeOptions {
  /** Source of new request ids (default `crypto.randomUUID`). */
  readonly randomId?: (() => string) | undefined;
  /** Sink of the access log (absent = no access log). */
  readonly accessLog?: ((entry: AccessLogEntry) => void) | undefined;
  /** The draining state (absent = never draining). */
  readonly drain?: DrainState | undefined;
  /** Told every answer with its status, request id and error body's `errorCode` (the request
   * log of token requests, request_log/recorder.ts). */
  readonly onAnswer?: (
    req: Request,
    status: number,
    requestId: string,
    code: string | null,
  ) => void;
}

/** What the edge knows of a request in flight. */
interface InFlight {
  /** Its `X-Request-Id`. */
  readonly requestId: string;
  /** The `errorCode` of its error answer, once one was written (errors_wire.ts). */
  errorCode: string | null;
}

/**
 * Where the edge keeps what it knows of a request in flight (request ids for the error bodies
 * and the audit log, audit/audit_log.ts): a property of the `Request` itself under this module's
 * own symbol. A `WeakMap` keyed by the short-lived requests cost about 1 µs a request, 4 % of a
 * token's work in process (BENCHMARKS.md § The profile, the request log in blocks).
 */
const FLIGHT = Symbol("svc.edge.inFlight");
/** A request as the edge marks it. */
type Marked = Request & { [FLIGHT]?: InFlight };

/**
 * The request id the edge gave a request (its `X-Request-Id`).
 * @param req the request as the handler sees it (`c.req.raw`)
 * @returns the id, or "" outside the edge (tests calling a sub-app directly)
 */
export function requestIdOf(req: Request): string {
  return (req as Marked)[FLIGHT]?.requestId ?? "";
}

/**
 * Tell the edge the `errorCode` of a request's error answer (for the request log's `onAnswer`).
 * @param req the request as the handler sees it (`c.req.raw`)
 * @param code the catalog code answered
 */
export function noteErrorCode(req: Request, code: string): void {
  const f = (req as Marked)[FLIGHT];
  if (f) f.errorCode = code;
}

/**
 * Carry the edge's mark to a request that replaces another (a middleware that buffered the body
 * into a new `Request`, body_limits.ts), so its request id and error code stay known.
 * @param from the request the edge marked
 * @param to its replacement
 */
export function carryEdgeMark(from: Request, to: Request): void {
  const f = (from as Marked)[FLIGHT];
  if (f) (to as Marked)[FLIGHT] = f;
}

/** An id a caller or a proxy may give (nginx's `$request_id` is 32 hex digits, a UUID fits):
 * 1–128 letters, digits and `. _ : -`, so it can be logged as it is. */
const GIVEN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Wrap an app's `fetch` (and so `app.request`, which calls it) with the edge: request ids, the
 * access log and draining. Hono never rejects from `fetch` (its error handler answers), so the
 * wrapper sees every answer.
 * @param app the token app (its `fetch` is replaced in place)
 * @param o id source, access log sink, draining state
 * @returns the same app
 */
export function withEdge(app: Hono, o: EdgeOptions = {}): Hono {
  const inner = app.fetch;
  const randomId = o.randomId ?? (() => crypto.randomUUID());
  const { accessLog, drain, onAnswer } = o;
  const timed = accessLog !== undefined || drain !== undefined;
  app.fetch = async (request, env, executionCtx) => {
    const t0 = timed ? performance.now() : 0;
    const given = request.headers.get("x-request-id");
    const requestId = given !== null && GIVEN_ID.test(given) ? given : randomId();
    const flight: InFlight = { requestId, errorCode: null };
    (request as Marked)[FLIGHT] = flight;
    // Counted from here on, and uncounted in `finally` whatever happens.
    if (drain) {
      drain.inFlight = (drain.inFlight ?? 0) + 1;
      drain.lastActivity = t0;
    }
    let res: Response | undefined;
    try {
      res = await inner(request, env, executionCtx);
      res.headers.set("x-request-id", requestId);
      onAnswer?.(request, res.status, requestId, res.status >= 400 ? flight.errorCode : null);
      if (drain?.draining) res.headers.set("connection", "close");
      return res;
    } finally {
      if (drain) {
        drain.inFlight = (drain.inFlight ?? 1) - 1;
        drain.lastActivity = performance.now();
      }
      if (accessLog) {
        accessLog({
          method: request.method,
          path: getPath(request),
          status: res?.status ?? 500,
          ms: Math.round((performance.now() - t0) * 10) / 10,
          requestId,
        });
      }
    }
  };
  return app;
}
