/**
 * Abuse limits per calling origin (issue #4 § 4), with hono-rate-limiter (fixed windows in
 * memory): operations, native dialogs and confirmation decisions each have their own budget.
 * Requests without an `Origin` header (local programs, the integrator's tests) share the key
 * "local". Over the limit → 429 RATE_LIMITED with `Retry-After`.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { rateLimiter } from "hono-rate-limiter";
import { AppError } from "../../contract/mod.ts";

/** Budgets: requests per window, per origin. */
export interface RateLimitSettings {
  /** `POST /api/v1/operations/*`: requests per 10 s. */
  readonly operationsPer10s: number;
  /** `POST /api/pick-*`: dialogs per minute. */
  readonly pickersPerMinute: number;
  /** `/confirm/*`: page loads and decisions per minute. */
  readonly confirmPerMinute: number;
}

/** Defaults: generous for folder-wide work, tight for dialogs. */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  operationsPer10s: 2000,
  pickersPerMinute: 20,
  confirmPerMinute: 120,
};

const key = (c: Context) => c.req.header("origin") ?? "local";

function limiter(windowMs: number, limit: number, what: string): MiddlewareHandler {
  return rateLimiter({
    windowMs,
    limit,
    keyGenerator: key,
    standardHeaders: false,
    handler: () => {
      throw new AppError("RATE_LIMITED", `Too many ${what} requests; slow down`, {
        retryAfter: Math.ceil(windowMs / 1000),
      });
    },
  }) as unknown as MiddlewareHandler;
}

/**
 * The rate-limit middleware for the whole app.
 * @param overrides budgets to change
 * @returns middleware routing each request to its budget
 */
export function rateLimits(overrides: Partial<RateLimitSettings> = {}): MiddlewareHandler {
  const s = { ...DEFAULT_RATE_LIMITS, ...overrides };
  const ops = limiter(10_000, s.operationsPer10s, "operation");
  const pick = limiter(60_000, s.pickersPerMinute, "dialog");
  const conf = limiter(60_000, s.confirmPerMinute, "confirmation");
  return (c, next) => {
    const p = c.req.path;
    if (c.req.method === "OPTIONS") return next();
    if (p.startsWith("/api/v1/operations/")) return ops(c, next);
    if (p.startsWith("/api/pick-")) return pick(c, next);
    if (p.startsWith("/confirm/")) return conf(c, next);
    return next();
  };
}
