/**
 * The admin credential: `Authorization: Bearer <SVC_ADMIN_TOKEN>`, compared in constant time
 * (SHA-256 of both sides, then `timingSafeEqual`). Integrator API keys never open the admin API,
 * and with no admin token configured the admin API answers 401 to everyone.
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../contract/mod.ts";

/** Shortest admin token accepted by the configuration (characters). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Whether a presented credential equals the admin token, in constant time.
 * @param presented the bearer value (may be anything)
 * @param expected the configured token
 * @returns true when equal
 */
export function adminTokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * Middleware guarding `/admin/v1/*`.
 * @param token the configured admin token; null/empty disables the admin API
 * @returns Hono middleware
 * @throws AppError ADMIN_UNAUTHORIZED (401) when the credential is missing or wrong, or the
 *   admin API is disabled
 */
export function adminAuth(token: string | null | undefined): MiddlewareHandler {
  const expected = token && token.length >= MIN_ADMIN_TOKEN_LENGTH ? token : null;
  return async (c, next) => {
    if (!expected) {
      throw new AppError("ADMIN_UNAUTHORIZED", "The admin API is disabled (no admin token set)");
    }
    const m = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    // non-null: group 1 of the pattern is not optional, so a match has it
    if (!m || !adminTokenMatches(m[1]!, expected)) {
      throw new AppError("ADMIN_UNAUTHORIZED", "The admin API needs the admin credential");
    }
    await next();
  };
}
