/**
 * Calls from web pages (docs/integrators.md): CORS with an allow-list of integrator origins, exact
 * preflight answers, the (deprecated, harmless) Private Network Access preflight header, and an
 * open `GET /health`. The allow-list is the union of the agent's own origins, `allowedOrigins`
 * in agent.json, and the integrator origins the token service publishes
 * (`GET {auth_url}/api/v1/allowed-origins`, cached). On top of CORS, an operation's token may be
 * bound to one origin (`origin` claim), checked in the pipeline.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../contract/mod.ts";
import { isPersonPage } from "./pages.ts";

/** Request headers a page may send. */
export const ALLOWED_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "X-Svc-Sender-Id",
  "X-Svc-File-Path",
  "X-Svc-Batch-Id",
  "Idempotency-Key",
];

/** Answers whether an origin may call the agent from a page. */
export type OriginPolicy = (origin: string) => Promise<boolean>;

/**
 * An allow-list policy: static origins plus a refreshable published list.
 * @param staticOrigins origins always allowed (agent.json, the agent's own)
 * @param fetchPublished returns the token service's published origins (may throw)
 * @param now clock (ms)
 * @param ttlMs how long a fetched list is trusted (default 60 s; 5 s after a failure)
 * @returns the policy
 */
export function allowListPolicy(
  staticOrigins: readonly string[],
  fetchPublished: (() => Promise<string[]>) | null,
  now: () => number,
  ttlMs = 60_000,
): OriginPolicy {
  const fixed = new Set(staticOrigins);
  let published = new Set<string>();
  let until = 0;
  let inflight: Promise<void> | null = null;
  const refresh = () =>
    inflight ??= (async () => {
      try {
        // non-null: refresh is called only when fetchPublished is not null
        published = new Set(await fetchPublished!());
        until = now() + ttlMs;
      } catch {
        until = now() + 5_000;
      } finally {
        inflight = null;
      }
    })();
  return async (origin) => {
    if (fixed.has(origin)) return true;
    if (!fetchPublished) return false;
    if (now() >= until) await refresh();
    if (published.has(origin)) return true;
    return false;
  };
}

/**
 * CORS middleware. Preflights (OPTIONS with Origin) are answered 204 with the exact grant for
 * allowed origins and 403 without any CORS header otherwise. Actual requests from an allowed
 * origin get `Access-Control-Allow-Origin: <origin>`; from another origin they are refused
 * (403 ORIGIN_NOT_ALLOWED) before anything runs. `GET /health` is open to every origin.
 * @param policy the origin allow-list
 * @returns Hono middleware
 */
export function cors(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const path = c.req.path;
    if (path === "/health" && c.req.method === "GET") {
      await next();
      c.header("access-control-allow-origin", "*");
      return undefined;
    }
    if (!origin || isPersonPage(path)) {
      await next();
      return undefined;
    }
    const allowed = await policy(origin);
    if (c.req.method === "OPTIONS") {
      if (!allowed) return c.body(null, 403);
      c.header("access-control-allow-origin", origin);
      c.header("vary", "Origin");
      c.header("access-control-allow-methods", "GET, POST");
      c.header("access-control-allow-headers", ALLOWED_REQUEST_HEADERS.join(", "));
      c.header("access-control-max-age", "600");
      if (c.req.header("access-control-request-private-network") === "true") {
        c.header("access-control-allow-private-network", "true");
      }
      return c.body(null, 204);
    }
    if (!allowed) {
      throw new AppError("ORIGIN_NOT_ALLOWED", `Origin ${origin} may not call this agent`, {
        origin,
      });
    }
    c.header("access-control-allow-origin", origin);
    c.header("vary", "Origin");
    c.header("access-control-expose-headers", "x-request-id, retry-after");
    await next();
    return undefined;
  };
}
