/**
 * The token service's one rate limiter (docs/token-service.md § Rate limits, § The profile, rate
 * limits): fixed windows over a {@link RateCounter} (rate_counters.ts), used by the API's budgets
 * below and, through {@link hitBudget}, by the pages' attempt limits (web/guard.ts). The API: a
 * budget per API key and one per integrator (all of its keys together), counted in fixed windows
 * after the key is authenticated, so an unknown key spends nobody's budget. Every answer of a
 * limited route carries the tighter budget as `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` and `RateLimit-Policy` (IETF draft-ietf-httpapi-ratelimit-headers, the
 * draft-6 field names that hono-rate-limiter and express-rate-limit send); over a budget the
 * answer is 429 `RATE_LIMITED` with `Retry-After` and `details.scope` (`key` or `integrator`).
 *
 * Counting: on PostgreSQL one shared counter row per budget and window, from which each instance
 * takes leases of the budget (rate_counters.ts: no database round trip per request in the steady
 * state, never more than the budget across any number of instances); on SQLite (one instance) in
 * memory.
 * @module
 */
import type { Context } from "hono";
import { AppError } from "../../contract/mod.ts";
import type { RateBudget, RateCounter } from "./rate_counters.ts";

export {
  leasedRateCounter,
  memoryRateCounter,
  type RateBudget,
  type RateCounter,
  storeRateCounter,
} from "./rate_counters.ts";

/**
 * The fixed window `now` falls in.
 * @param now epoch ms
 * @param windowMs the window's length, ms
 * @returns its start (epoch ms) and the seconds until it ends (≥ 1)
 */
export function fixedWindow(
  now: number,
  windowMs: number,
): { start: number; resetSeconds: number } {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
}

/**
 * Count one hit of one budget in its fixed window (the pages' attempts: one bucket at a time).
 * @param counter where it is counted ({@link storeRateCounter} for the pages)
 * @param budget the bucket and its limit per window
 * @param now epoch ms
 * @param windowMs the window's length, ms
 * @returns whether the hit is within the limit, and the seconds until the window ends (≥ 1)
 * @throws the counter's errors (a database that went away: DATABASE_UNAVAILABLE)
 */
export async function hitBudget(
  counter: RateCounter,
  budget: RateBudget,
  now: number,
  windowMs: number,
): Promise<{ within: boolean; resetSeconds: number }> {
  const { start, resetSeconds } = fixedWindow(now, windowMs);
  const [hits] = await counter.hit([budget], start, windowMs);
  return { within: hits !== undefined && hits <= budget.limit, resetSeconds };
}

/** Budgets per window; 0 = no limit for that budget. */
export interface RateLimitSettings {
  /** Window length, seconds. */
  readonly windowSeconds: number;
  /** Requests per window of one API key. */
  readonly perKey: number;
  /** Requests per window of all keys of one integrator together. */
  readonly perIntegrator: number;
}

/** Defaults: 100 requests/s per key, as Stripe's live mode, averaged over 10 s windows (bursts
 * of a folder-wide batch fit), and twice that per integrator. */
export const DEFAULT_TOKEN_RATE_LIMITS: RateLimitSettings = {
  windowSeconds: 10,
  perKey: 1000,
  perIntegrator: 2000,
};

/** The tighter budget after a request was counted. */
export interface RateLimitInfo {
  readonly scope: "key" | "integrator";
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window ends (≥ 1). */
  readonly resetSeconds: number;
  readonly windowSeconds: number;
}

/** Checks both budgets of a request. */
export interface RateLimiter {
  /**
   * Count a request of an authenticated key.
   * @returns the tighter budget, or null when both are unlimited
   * @throws AppError RATE_LIMITED (429) over a budget; the store's errors as they come
   */
  check(key: { readonly id: string; readonly integratorId: string }, now: number): Promise<
    RateLimitInfo | null
  >;
}

/**
 * A rate limiter over a counter.
 * @param settings the budgets
 * @param counter where hits are counted ({@link memoryRateCounter}, {@link storeRateCounter})
 * @returns the limiter
 */
export function createRateLimiter(settings: RateLimitSettings, counter: RateCounter): RateLimiter {
  const windowMs = settings.windowSeconds * 1000;
  const budgets = [
    { scope: "key" as const, limit: settings.perKey, bucket: (k: { id: string }) => `k:${k.id}` },
    {
      scope: "integrator" as const,
      limit: settings.perIntegrator,
      bucket: (k: { integratorId: string }) => `i:${k.integratorId}`,
    },
  ].filter((b) => b.limit > 0);
  type Key = { readonly id: string; readonly integratorId: string };
  // A key's counters, built once per key record (the issuance cache keeps the record).
  const counters = new WeakMap<Key, RateBudget[]>();
  const countersOf = (key: Key) => {
    let mine = counters.get(key);
    if (!mine) {
      mine = budgets.map((b) => ({ bucket: b.bucket(key), limit: b.limit }));
      counters.set(key, mine);
    }
    return mine;
  };
  return {
    async check(key, now) {
      if (budgets.length === 0) return null;
      const { start: windowStart, resetSeconds } = fixedWindow(now, windowMs);
      const hits = await counter.hit(countersOf(key), windowStart, windowMs);
      // non-null: i < budgets.length (the loop below)
      const remaining = (i: number) => Math.max(0, budgets[i]!.limit - (hits[i] ?? 0));
      const info = (i: number): RateLimitInfo => ({
        // non-null: i < budgets.length (the loop below)
        scope: budgets[i]!.scope,
        // non-null: i < budgets.length (the loop below)
        limit: budgets[i]!.limit,
        remaining: remaining(i),
        resetSeconds,
        windowSeconds: settings.windowSeconds,
      });
      let tightest = 0;
      for (let i = 0; i < budgets.length; i++) {
        // non-null: i < budgets.length
        const { scope, limit } = budgets[i]!;
        if ((hits[i] ?? 0) > limit) {
          throw new AppError(
            "RATE_LIMITED",
            scope === "key"
              ? `Too many requests with this API key: ${limit} per ${settings.windowSeconds} s`
              : `Too many requests from this integrator's keys: ${limit} per ${settings.windowSeconds} s`,
            { ...info(i), retryAfter: resetSeconds },
          );
        }
        if (remaining(i) < remaining(tightest)) tightest = i;
      }
      return info(tightest);
    },
  };
}

/** The `RateLimit-*` fields of a budget, in the order they are sent. */
const FIELDS: readonly (readonly [string, (info: RateLimitInfo) => string])[] = [
  ["ratelimit-limit", (i) => String(i.limit)],
  ["ratelimit-remaining", (i) => String(i.remaining)],
  ["ratelimit-reset", (i) => String(i.resetSeconds)],
  ["ratelimit-policy", (i) => `${i.limit};w=${i.windowSeconds}`],
];

/**
 * The `RateLimit-*` header fields of a budget.
 * @param info the budget (from {@link RateLimiter.check} or a RATE_LIMITED error's details)
 * @returns header name → value
 */
export function rateLimitHeaders(info: RateLimitInfo): Record<string, string> {
  return Object.fromEntries(FIELDS.map(([name, value]) => [name, value(info)]));
}

/**
 * Put a budget's `RateLimit-*` fields on an answer's headers, one `set` each (cheaper in Deno
 * than building the answer from a `HeadersInit` of several fields).
 * @param headers the answer's headers
 * @param info the budget
 */
export function setRateLimitHeaders(headers: Headers, info: RateLimitInfo): void {
  for (const [name, value] of FIELDS) headers.set(name, value(info));
}

/**
 * Count a request of an authenticated key and put its budget's headers on the answer.
 * @param c the Hono context
 * @param limiter the limiter (absent = no limits)
 * @param key the authenticated key
 * @param now epoch ms
 * @throws AppError RATE_LIMITED (429) over a budget
 */
export async function limitRequest(
  c: Context,
  limiter: RateLimiter | undefined,
  key: { readonly id: string; readonly integratorId: string },
  now: number,
): Promise<void> {
  const info = await limiter?.check(key, now);
  if (info) showBudget(c, info);
}

/**
 * Put a budget's `RateLimit-*` fields on the context, so whichever answer the route or the app's
 * error handler then writes carries them.
 * @param c the Hono context
 * @param info the budget
 */
export function showBudget(c: Context, info: RateLimitInfo): void {
  for (const [name, value] of FIELDS) c.header(name, value(info));
}
