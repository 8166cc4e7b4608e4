/**
 * The token service's edge (docs/token-service.md § Operations): what
 * every request passes through before and after routing, as one wrapper of the app's `fetch`
 * rather than Hono middleware, so the hot route (`POST /api/v1/tokens/issue`) stays a single
 * handler that Hono calls without composing a middleware chain (BENCHMARKS.md § The issuance hot
 * path).
 *
 * - **Request ids**: every answer carries `X-Request-Id`, the request's own when it is well formed
 *   (a reverse proxy's id, so its log and the service's name the same request), else a new one;
 *   every JSON error body (4xx/5xx, whichever handler wrote it) repeats it as `requestId`
 *   (`TokenServiceError` in the OpenAPI documents).
 * - **Access log**: one entry per request once its answer is ready (method, path, status, ms,
 *   request id; never a header, query or body, so never a credential).
 * - **Draining** (a graceful shutdown, ops.ts): requests in flight are counted, and while draining
 *   every answer is marked `Connection: close`.
 * @module
 */
import type { Hono } from "hono";
import { getPath } from "hono/utils/url";
import type { DrainState } from "./ops.ts";

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
  readonly randomId?: () => string;
  /** Sink of the access log (absent = no access log). */
  readonly accessLog?: (entry: AccessLogEntry) => void;
  /** The draining state (absent = never draining). */
  readonly drain?: DrainState;
  /** Told every answer with its status, request id and error body's `errorCode` (the request
   * log of token requests, request_log.ts). */
  readonly onAnswer?: (
    req: Request,
    status: number,
    requestId: string,
    code: string | null,
  ) => void;
}

/** The request id of each request in flight (for the audit log, audit.ts). */
const requestIds = new WeakMap<Request, string>();

/**
 * The request id the edge gave a request (its `X-Request-Id`).
 * @param req the request as the handler sees it (`c.req.raw`)
 * @returns the id, or "" outside the edge (tests calling a sub-app directly)
 */
export function requestIdOf(req: Request): string {
  return requestIds.get(req) ?? "";
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
    requestIds.set(request, requestId);
    // Counted from here on, and uncounted in `finally` whatever happens.
    if (drain) {
      drain.inFlight = (drain.inFlight ?? 0) + 1;
      drain.lastActivity = t0;
    }
    let res: Response | undefined;
    try {
      res = await inner(request, env, executionCtx);
      res.headers.set("x-request-id", requestId);
      let code: string | null = null;
      if (res.status >= 400) [res, code] = await withRequestId(res, requestId);
      onAnswer?.(request, res.status, requestId, code);
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

/** An error answer whose JSON object body repeats the request id as `requestId`, and the
 * body's `errorCode` (null when there is none). */
async function withRequestId(
  res: Response,
  requestId: string,
): Promise<[Response, string | null]> {
  if (!res.headers.get("content-type")?.startsWith("application/json")) return [res, null];
  const body = await res.clone().json().catch(() => null);
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [res, null];
  const code = typeof body.errorCode === "string" ? body.errorCode : null;
  return [
    new Response(JSON.stringify({ ...body, requestId }), {
      status: res.status,
      headers: res.headers,
    }),
    code,
  ];
}
