/**
 * Abuse limits (`RATE_LIMITED`, docs/errors.md), with hono-rate-limiter (fixed windows in
 * memory): operations, native dialogs and confirmation pages each have their own budget.
 *
 * Operations and dialogs are counted per calling origin; requests without an `Origin` header
 * (local programs, the integrator's tests) share the key "local". A browser's request from another
 * site that is not CORS (no `Origin`: an `<img>`, a link, a form of an old browser) — fetch
 * metadata `Sec-Fetch-Site: cross-site` or `same-site` — is refused with a cheap 403
 * ORIGIN_NOT_ALLOWED before it is counted, so no web page can spend the local callers' budget
 * (docs/confirmation.md § No website can block the page).
 *
 * The confirmation pages (`/confirm/*`) and the console (`/`, `/console/*`; pages.ts) are the
 * user's, so no website may spend their budget
 * (docs/confirmation.md):
 * - a **cross-site** request — `Sec-Fetch-Site` other than `same-origin` / `none`, or an
 *   `Origin` or `Referer` of another origin (an `<img>` or a form on some web page) — gets a
 *   cheap 403 ORIGIN_NOT_ALLOWED that counts against no budget;
 * - the page's **own** requests (`Sec-Fetch-Site: same-origin`, or `none` when the browser
 *   opened the page) are never limited when they read (the page, its once-a-second polling),
 *   and their decisions are counted per dialog;
 * - requests **without fetch metadata** have a budget per minute; the agent's own page in a
 *   browser that sends none (its `Origin` or `Referer` is the agent's) has one of its own, which
 *   requests carrying no `Origin`, `Referer` or fetch metadata at all (local programs) never
 *   spend.
 *
 * Over a limit → 429 RATE_LIMITED with `Retry-After`.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { rateLimiter } from "hono-rate-limiter";
import { AppError, httpStatus } from "../../contract/mod.ts";
import { isPersonPage } from "./pages.ts";
import { errorBody } from "./errors_wire.ts";

/** Budgets: requests per window. */
export interface RateLimitSettings {
  /** `POST /api/v1/operations/*`: requests per 10 s, per origin. */
  readonly operationsPer10s: number;
  /** `POST /api/pick-*`: dialogs per minute, per origin. */
  readonly pickersPerMinute: number;
  /** `/confirm/*`: requests per minute without fetch metadata (per origin), and decisions from
   * the agent's own page (per dialog). */
  readonly confirmPerMinute: number;
}

/** Defaults: generous for folder-wide work, tight for dialogs. */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  operationsPer10s: 2000,
  pickersPerMinute: 20,
  confirmPerMinute: 120,
};

const originKey = (c: Context) => c.req.header("origin") ?? "local";

function limiter(
  windowMs: number,
  limit: number,
  what: string,
  keyGenerator: (c: Context) => string = originKey,
): MiddlewareHandler {
  return rateLimiter({
    windowMs,
    limit,
    keyGenerator,
    standardHeaders: false,
    handler: () => {
      throw new AppError("RATE_LIMITED", `Too many ${what} requests; slow down`, {
        retryAfter: Math.ceil(windowMs / 1000),
      });
    },
  }) as unknown as MiddlewareHandler;
}

/** Who sends a request to `/confirm/*`. */
export type ConfirmCaller = "foreign" | "page" | "unmarked";

/** Whether `other` (an origin or URL) is the request's own origin (127.0.0.1 and localhost
 * on the same port and scheme count as one: the Host check allows only those). */
function sameOrigin(other: string, own: URL): boolean {
  let o: URL;
  try {
    o = new URL(other);
  } catch {
    return false;
  }
  const loop = (h: string) => h === "127.0.0.1" || h === "localhost";
  return o.protocol === own.protocol && o.port === own.port &&
    (o.hostname === own.hostname || (loop(o.hostname) && loop(own.hostname)));
}

/**
 * Classify a request to `/confirm/*` by its fetch metadata, `Origin` and `Referer`.
 * @param c Hono context
 * @returns `foreign` (cross-site: refuse), `page` (the agent's own page or a browser
 *   navigation the user started), or `unmarked` (no fetch metadata: a local program or an old
 *   browser)
 */
export function confirmCaller(c: Context): ConfirmCaller {
  const own = new URL(c.req.url);
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return "foreign";
  const origin = c.req.header("origin");
  // "null" is what a browser sends when it withholds the origin: trusted only with
  // same-origin fetch metadata.
  if (origin !== undefined && (origin === "null" ? site === undefined : !sameOrigin(origin, own))) {
    return "foreign";
  }
  const referer = c.req.header("referer");
  if (referer !== undefined && referer !== "" && !sameOrigin(referer, own)) return "foreign";
  return site === undefined ? "unmarked" : "page";
}

/** The constant refusal of each of the person's pages, in its own words. */
const refusal = (what: string) =>
  JSON.stringify(
    errorBody(
      new AppError(
        "ORIGIN_NOT_ALLOWED",
        `${what} answer only the agent's own pages, never another site`,
      ),
    ),
  );
const CONFIRM_REFUSAL = refusal("The agent's confirmation pages");
const CONSOLE_REFUSAL = refusal("The agent's console pages");
const API_REFUSAL = JSON.stringify(
  errorBody(
    new AppError(
      "ORIGIN_NOT_ALLOWED",
      "The agent's API answers a web page only through CORS (fetch with its Origin), never an " +
        "<img>, a link or a form of another site",
    ),
  ),
);

/**
 * Whether a request to the API comes from a browser on another site without CORS: fetch metadata
 * `cross-site`, or `same-site` (another origin of the same site, e.g. another port of this
 * machine), and no `Origin`. A CORS request carries its `Origin` and is judged by the origin
 * policy; a local program sends no fetch metadata.
 */
export function crossSiteWithoutCors(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  return (site === "cross-site" || site === "same-site") && c.req.header("origin") === undefined;
}

/** The cheap refusal of a cross-site request: a constant body, no budget, no framing. */
function refuseForeign(c: Context, api = false): Response {
  const body = api
    ? API_REFUSAL
    : c.req.path.startsWith("/confirm/")
    ? CONFIRM_REFUSAL
    : CONSOLE_REFUSAL;
  return c.body(body, httpStatus("ORIGIN_NOT_ALLOWED", "agent") as 403, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "cross-origin-resource-policy": "same-origin",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
  });
}

/**
 * The budget of a request to the person's pages that carries no fetch metadata: the agent's own
 * page in a browser that sends none (its `Origin` or `Referer` is the agent's own) has a budget
 * of its own, which a request carrying no `Origin`, `Referer` or fetch metadata at all (a local
 * program) never spends.
 */
function unmarkedKey(c: Context, liveDialog: (id: string) => boolean): string {
  const marked = c.req.header("origin") !== undefined ||
    (c.req.header("referer") ?? "") !== "";
  if (marked) return "own page";
  // The page opened by the agent, in such a browser, carries nothing either: a dialog still
  // waiting has a budget of its own, which requests to any other path never spend.
  const id = /^\/confirm\/([A-Za-z0-9_-]{1,64})(?:\/|$)/.exec(c.req.path)?.[1];
  return id !== undefined && liveDialog(id) ? `bare ${id}` : "bare";
}

/**
 * The rate-limit middleware for the whole app.
 * @param overrides budgets to change
 * @param liveDialog whether a confirmation dialog id names one still waiting (its page, opened
 *   in a browser without fetch metadata, then has a budget of its own)
 * @returns middleware routing each request to its budget (and refusing cross-site requests to
 *   `/confirm/*` and the console, and cross-site requests without CORS to the operations, the
 *   batches' progress and the pickers, with 403 ORIGIN_NOT_ALLOWED)
 */
export function rateLimits(
  overrides: Partial<RateLimitSettings> = {},
  liveDialog: (id: string) => boolean = () => false,
): MiddlewareHandler {
  const s = { ...DEFAULT_RATE_LIMITS, ...overrides };
  const ops = limiter(10_000, s.operationsPer10s, "operation");
  const pick = limiter(60_000, s.pickersPerMinute, "dialog");
  const conf = limiter(
    60_000,
    s.confirmPerMinute,
    "confirmation",
    (c) => unmarkedKey(c, liveDialog),
  );
  const decisions = limiter(
    60_000,
    s.confirmPerMinute,
    "confirmation",
    (c) => `page ${c.req.path}`,
  );
  return async (c, next) => {
    const p = c.req.path;
    if (c.req.method === "OPTIONS") return await next();
    const api = p.startsWith("/api/v1/operations/") || p.startsWith("/api/v1/batches/");
    const picker = p.startsWith("/api/pick-");
    // Before any budget: another site's request that is not CORS spends none of it.
    if ((api || picker) && crossSiteWithoutCors(c)) return refuseForeign(c, true);
    if (api) return await ops(c, next);
    if (picker) return await pick(c, next);
    if (isPersonPage(p)) {
      const caller = confirmCaller(c);
      if (caller === "foreign") return refuseForeign(c);
      if (caller === "unmarked") return await conf(c, next);
      return c.req.method === "GET" ? await next() : await decisions(c, next);
    }
    return await next();
  };
}
