/**
 * The largest request body each route of the token service accepts (docs/token-service.md §
 * Body limits), refused with 413 `BODY_TOO_LARGE` before the body is read: by its
 * `Content-Length`, or, for a body sent without one (chunked), by counting it as it arrives — at
 * most the limit is ever held. The pages and the admin API use Hono's `hono/body-limit`; the hot
 * route `POST /api/v1/tokens/issue` counts its own (issue_route.ts), since it stays one handler
 * without middleware.
 * @module
 */
import type { Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../contract/mod.ts";
import { carryEdgeMark } from "./edge.ts";
import { MAX_ISSUE_BODY_BYTES } from "./issue_route.ts";
import { MAX_ADMIN_BODY_BYTES } from "./admin/mod.ts";

/** The limits, bytes, by group of routes. */
export const BODY_LIMITS = {
  /** `POST /api/v1/tokens/issue` (a folder-wide request lists many EIKs). */
  issue: MAX_ISSUE_BODY_BYTES,
  /** `/api/v1/applications` (an integrator's contract application). */
  applications: 64 * 1024,
  /** The admin API `/admin/v1/*` (a key's allowed list holds up to 10,000 EIKs). */
  adminApi: MAX_ADMIN_BODY_BYTES,
  /** The profile `/profile/*`: forms, one-time links, passkey ceremonies. */
  profile: 64 * 1024,
  /** The desk `/admin/*` (not `/admin/v1/*`): forms (an allowed list of up to 10,000 EIKs),
   * links, passkey ceremonies. */
  desk: 256 * 1024,
} as const;

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

/**
 * Put the limits in front of every route group of the token app except issuance (call before
 * the routes are added).
 * @param app the token app
 */
export function bodyLimits(app: Hono): void {
  app.use("/api/v1/applications", limitBody(BODY_LIMITS.applications));
  app.use("/profile", limitBody(BODY_LIMITS.profile));
  app.use("/profile/*", limitBody(BODY_LIMITS.profile));
  app.use("/admin/v1/*", limitBody(BODY_LIMITS.adminApi));
  const api = (p: string) => p.startsWith("/admin/v1/");
  app.use("/admin", limitBody(BODY_LIMITS.desk));
  app.use("/admin/*", limitBody(BODY_LIMITS.desk, api));
}
