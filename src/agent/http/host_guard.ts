/**
 * DNS-rebinding guard: the agent answers only requests whose `Host` is `127.0.0.1:<port>`,
 * `localhost:<port>` or `[::1]:<port>` (docs/integrators.md § 2, docs/https.md).
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../contract/mod.ts";
import { isOwnHost } from "../start/mod.ts";

/**
 * The middleware.
 * @param ports the listening ports (HTTP, and HTTPS when enabled)
 * @returns Hono middleware throwing HOST_NOT_ALLOWED (421)
 */
export function hostGuard(ports: () => number[]): MiddlewareHandler {
  return async (c, next) => {
    if (!isOwnHost(c.req.header("host") ?? new URL(c.req.url).host, ports())) {
      throw new AppError("HOST_NOT_ALLOWED", "This agent answers only on 127.0.0.1 and localhost");
    }
    await next();
  };
}
