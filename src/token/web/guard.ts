/**
 * What every request to the profile and the desk passes (docs/token-service.md § The profile,
 * security): cross-site requests refused by fetch metadata (`Sec-Fetch-Site`:
 * only same-origin requests and the person's own navigations — a link in a mail — get through)
 * and on every change by `Origin` (or `Sec-Fetch-Site: same-origin`) against the configured
 * public URL, never the request's `Host`; the session (optional on the sign-in pages); the session's
 * CSRF token on every change (form field `csrf` or header `X-CSRF-Token`); a person of the
 * application's role only (an integrator's session never opens the desk). Rate limits on
 * links and sign-in attempts per client address, counted in the store (shared by the instances),
 * answered 429 with `Retry-After`; the link mails to one e-mail address are capped silently.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "../../contract/mod.ts";
import { csrfValid } from "../../web_session.ts";
import type { Clock } from "../../clock.ts";
import type { TokenStore, WebRole } from "../store/mod.ts";
import { hitBudget, storeRateCounter } from "../edge/mod.ts";
import type { SignedIn, WebAuth } from "./sessions.ts";

/** Hono variables of the web routes. */
export type WebEnv = {
  Variables: { signedIn: SignedIn | null; form: Record<string, string> | null };
};

/** A web route's context. */
export type WebC = Context<WebEnv>;

/**
 * The signed-in person of a page behind {@link webGuard} (which lets no one else reach it).
 * @param c the route's context
 * @returns the person and their session
 * @throws AppError WEB_SESSION_REQUIRED (401) on a route the guard leaves open to anyone (a
 *   wiring mistake, never a visitor's doing)
 */
export function signedInOf(c: WebC): SignedIn {
  const s = c.get("signedIn");
  if (!s) throw new AppError("WEB_SESSION_REQUIRED", "Sign in first");
  return s;
}

/**
 * Read a form (urlencoded or multipart) as strings, once per request.
 * @param c the route's context
 * @returns the fields (files are ignored)
 * @throws AppError WEB_INPUT_INVALID (400) when it cannot be read
 */
export async function formOf(c: WebC): Promise<Record<string, string>> {
  const had = c.get("form");
  if (had) return had;
  const raw = await c.req.parseBody().catch(() => {
    throw new AppError("WEB_INPUT_INVALID", "The form could not be read");
  });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string") out[k] = v;
  c.set("form", out);
  return out;
}

/** Options of {@link webGuard}. */
export interface GuardOptions {
  readonly auth: WebAuth;
  readonly role: WebRole;
  /** The service's own origin (from its public URL); the request's own is accepted too. */
  readonly origin: () => string | null;
  /** Paths (below the application) that need no session: the sign-in pages, the link. */
  readonly open: (path: string) => boolean;
}

/**
 * The middleware of one web application.
 * @param o sessions, role, own origin, open paths
 * @returns Hono middleware
 * @throws AppError WEB_CROSS_SITE (403), WEB_ORIGIN_REQUIRED (403; see {@link checkChangeOrigin}),
 *   WEB_SESSION_REQUIRED (401; a page GET is redirected to
 *   the sign-in instead), WEB_CSRF_INVALID (403), WEB_FORBIDDEN (403) for another role
 */
export function webGuard(o: GuardOptions): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    c.set("form", null);
    const method = c.req.method;
    const change = method !== "GET" && method !== "HEAD";
    const site = c.req.header("sec-fetch-site");
    const mode = c.req.header("sec-fetch-mode");
    const navigation = !change && mode === "navigate";
    if (site && site !== "same-origin" && site !== "none" && !navigation) {
      throw new AppError("WEB_CROSS_SITE", "Cross-site requests are refused");
    }
    if (change) checkChangeOrigin(c.req.header("origin"), site, o.origin());
    const signedIn = await o.auth.current(c);
    if (signedIn && signedIn.user.role !== o.role) {
      throw new AppError("WEB_FORBIDDEN", "This page is not for this account");
    }
    c.set("signedIn", signedIn);
    if (!o.open(c.req.path)) {
      if (!signedIn) {
        if (!change) return c.redirect(o.auth.path, 303);
        throw new AppError("WEB_SESSION_REQUIRED", "Sign in first");
      }
      if (change) {
        if (!(await csrfValid(c, signedIn.session.csrf))) {
          throw new AppError("WEB_CSRF_INVALID", "The page's CSRF token is missing or wrong");
        }
      }
    }
    return await next();
  };
}

/**
 * Where a change may come from (docs/token-service.md § The profile, security): its `Origin`
 * is the configured public URL's origin, or, when a browser sent no `Origin`, its fetch
 * metadata says `Sec-Fetch-Site: same-origin`. The request's own `Host` is never compared: a
 * forged `Host` with a matching `Origin` proves nothing.
 * @param sent the `Origin` header, if any
 * @param site the `Sec-Fetch-Site` header, if any
 * @param own the public URL's origin (null when none is configured: every change is refused)
 * @throws AppError WEB_CROSS_SITE (403) for another origin, WEB_ORIGIN_REQUIRED (403) when
 *   neither header vouches for the request
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * checkChangeOrigin("https://svc.example", undefined, "https://svc.example");
 * checkChangeOrigin(undefined, "same-origin", "https://svc.example");
 * throws(() => checkChangeOrigin(undefined, undefined, "https://svc.example"));
 * throws(() => checkChangeOrigin("https://evil.example", "same-origin", "https://svc.example"));
 * ```
 */
export function checkChangeOrigin(
  sent: string | undefined,
  site: string | undefined,
  own: string | null,
): void {
  if (sent !== undefined) {
    if (own !== null && sent === own) return;
    throw new AppError("WEB_CROSS_SITE", "Cross-site requests are refused");
  }
  if (site === "same-origin" && own !== null) return;
  throw new AppError(
    "WEB_ORIGIN_REQUIRED",
    "A change needs an Origin (or Sec-Fetch-Site: same-origin) of this service's public URL",
  );
}

/** One rate limit: at most `max` attempts per `windowMs` for each bucket. */
export interface AttemptLimit {
  readonly max: number;
  readonly windowMs: number;
}

/** The limits of the sign-in side (docs/token-service.md § The profile, rate limits). */
export const WEB_LIMITS = {
  /** Link requests (sign-up, sign-in by mail) per client address; over it, 429. */
  linkPerAddress: { max: 20, windowMs: 15 * 60_000 },
  /** Link mails to one e-mail address asked for from one client address; over it, none is
   * sent (silently: the answer is the same, never a 429 for the address's owner). */
  mailPerEmailAndAddress: { max: 3, windowMs: 15 * 60_000 },
  /** Link mails to one e-mail address from all client addresses; over it, none is sent. */
  mailPerEmail: { max: 30, windowMs: 60 * 60_000 },
  /** Member invitations an integrator's owners send (mails on a signed-in owner's word). */
  invitePerIntegrator: { max: 20, windowMs: 15 * 60_000 },
  /** Member invitations to one e-mail address, whoever sends them. */
  invitePerEmail: { max: 5, windowMs: 15 * 60_000 },
  /** Sign-in attempts (links used, passkeys) per client address. */
  signInPerAddress: { max: 30, windowMs: 15 * 60_000 },
} as const satisfies Record<string, AttemptLimit>;

/** The client's address (the TCP peer; behind a proxy, the proxy's). */
export function clientAddress(c: Context): string {
  const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return env?.remoteAddr?.hostname ?? "unknown";
}

/**
 * Count an attempt against each bucket's limit (fixed windows in the store, shared by the
 * instances).
 * @param store the store
 * @param clock the clock
 * @param checks `[bucket, limit]` pairs, e.g. `["link:e:a@b.c", WEB_LIMITS.mailPerEmail]`
 * @throws AppError RATE_LIMITED (429, `details.retryAfter` in seconds) when one is over
 */
export async function countAttempt(
  store: TokenStore,
  clock: Clock,
  checks: readonly (readonly [string, AttemptLimit])[],
): Promise<void> {
  const now = clock.now();
  for (const [bucket, limit] of checks) {
    const { within, resetSeconds: retryAfter } = await hitWindow(store, bucket, limit, now);
    if (!within) {
      throw new AppError("RATE_LIMITED", "Too many attempts; try again later", {
        retryAfter,
        limit: limit.max,
        remaining: 0,
        reset: retryAfter,
      });
    }
  }
}

/**
 * Count a sign-in attempt (a mailed link used, a passkey offered) against the client address's
 * limit ({@link WEB_LIMITS} `signInPerAddress`).
 * @param store the store
 * @param clock the clock
 * @param c the route's context (its client address)
 * @throws AppError RATE_LIMITED (429) past the limit, as {@link countAttempt}
 */
export function countSignIn(store: TokenStore, clock: Clock, c: Context): Promise<void> {
  return countAttempt(store, clock, [
    [`signin:a:${clientAddress(c)}`, WEB_LIMITS.signInPerAddress],
  ]);
}

/**
 * Count an attempt against one bucket's limit without refusing anything: for caps that are kept
 * silently (the link mails to one address).
 * @param store the store
 * @param clock the clock
 * @param bucket the bucket, e.g. `mail:e:a@b.c`
 * @param limit its limit
 * @returns true while the bucket is within its limit (this attempt counted)
 */
export async function withinLimit(
  store: TokenStore,
  clock: Clock,
  bucket: string,
  limit: AttemptLimit,
): Promise<boolean> {
  return (await hitWindow(store, bucket, limit, clock.now())).within;
}

/** One hit on the bucket's fixed window, counted in the store by the service's one rate limiter
 * (edge/rate_limit.ts; `w:` keeps the pages' buckets apart from the API's). */
function hitWindow(
  store: TokenStore,
  bucket: string,
  limit: AttemptLimit,
  now: number,
): Promise<{ within: boolean; resetSeconds: number }> {
  const budget = { bucket: `w:${bucket}`, limit: limit.max };
  return hitBudget(storeRateCounter(store), budget, now, limit.windowMs);
}
