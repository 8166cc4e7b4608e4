/**
 * Request ids of the token service, like the agent's: every answer carries `X-Request-Id`, and
 * every JSON error body (4xx/5xx, whichever handler wrote it) repeats it as `requestId`
 * (`TokenServiceError` in the OpenAPI documents).
 * @module
 */
import type { MiddlewareHandler } from "hono";

/**
 * Middleware giving each request an id (outermost: error answers pass through it).
 * @param randomId the id source (default `crypto.randomUUID`)
 * @returns Hono middleware
 */
export function requestIds(randomId: () => string = () => crypto.randomUUID()): MiddlewareHandler {
  return async (c, next) => {
    const requestId = randomId();
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
