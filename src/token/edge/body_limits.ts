/**
 * The body limit of the token service's edge (docs/token-service.md § Body limits): a request
 * body over a route's limit is refused with 413 `BODY_TOO_LARGE` before it is read: by its
 * `Content-Length`, or, for a body sent without one (chunked), by counting it as it arrives — at
 * most the limit is ever held. The pages and the admin API use Hono's `hono/body-limit`; the hot
 * route `POST /api/v1/tokens/issue` counts its own (issue_route.ts), since it stays one handler
 * without middleware. Which route group gets which limit is the app's
 * assembly (`BODY_LIMITS` in app.ts).
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../../contract/mod.ts";
import { carryEdgeMark } from "./request_edge.ts";

/**
 * A middleware that refuses a body over `max` bytes before a handler reads it.
 * @param max the limit, bytes
 * @param skip paths it lets pass (another limit covers them)
 * @returns Hono middleware
 * @throws AppError BODY_TOO_LARGE (413)
 */
export function limitBody(
  max: number,
  skip: (path: string) => boolean = () => false,
): MiddlewareHandler {
  const inner = bodyLimit({
    maxSize: max,
    onError: () => {
      throw new AppError("BODY_TOO_LARGE", `The body is larger than ${max} bytes`, { limit: max });
    },
  });
  return async (c, next) => {
    if (skip(c.req.path)) return await next();
    const sent = c.req.raw;
    // A counted body is buffered into a new Request: it keeps the edge's request id.
    return await inner(c, async () => {
      if (c.req.raw !== sent) carryEdgeMark(sent, c.req.raw);
      await next();
    });
  };
}
