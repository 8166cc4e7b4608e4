/**
 * Request ids of the token service, like the agent's: every answer carries `X-Request-Id`, and
 * every JSON error body (4xx/5xx, whichever handler wrote it) repeats it as `requestId`
 * (`TokenServiceError` in the OpenAPI documents).
 * @module
 */
import type { MiddlewareHandler } from "hono";

/** An id a caller or a proxy may give (nginx's `$request_id` is 32 hex digits, a UUID fits):
 * 1–128 letters, digits and `. _ : -`, so it can be logged as it is. */
const GIVEN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Middleware giving each request an id (outermost: error answers pass through it): the request's
 * own `X-Request-Id` when it is well formed (a reverse proxy's id, so its log and the service's
 * name the same request), else a new one.
 * @param randomId the id source (default `crypto.randomUUID`)
 * @returns Hono middleware
 */
export function requestIds(randomId: () => string = () => crypto.randomUUID()): MiddlewareHandler {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const requestId = given !== undefined && GIVEN_ID.test(given) ? given : randomId();
    c.set("requestId" as never, requestId as never);
    await next();
    const res = c.res;
    res.headers.set("x-request-id", requestId);
    if (res.status < 400 || !res.headers.get("content-type")?.startsWith("application/json")) {
      return;
    }
    const body = await res.clone().json().catch(() => null);
    if (body === null || typeof body !== "object" || Array.isArray(body)) return;
    c.res = new Response(JSON.stringify({ ...body, requestId }), {
      status: res.status,
      headers: res.headers,
    });
  };
}
