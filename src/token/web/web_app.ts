/**
 * What the profile and the desk set up the same way before their own pages (docs/token-service.md
 * § The profile): the error page, the language of every page (web/lang.ts), the guard
 * (web/guard.ts) with the paths open without a session, the static files and the language switch.
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import type { Clock } from "../../clock.ts";
import type { TokenStore, WebRole } from "../store/mod.ts";
import type { AppLog } from "../deps.ts";
import { webAssetRoutes } from "./assets.ts";
import { type WebEnv, webGuard } from "./guard.ts";
import { languageRoute, webLang } from "./lang.ts";
import { type WebApp, webErrorPage } from "./layout.ts";
import { PASSKEY_REMOVE_LINK } from "./passkey_list.ts";
import { WebAuth } from "./sessions.ts";

/** What {@link webAppSetup} needs. */
export interface WebAppSetup {
  readonly auth: WebAuth;
  /** Who may sign in to this application. */
  readonly role: WebRole;
  /** The service's public URL (changes must come from its origin). */
  readonly publicUrl: () => string;
  readonly log: AppLog;
  /** Paths below `base` open without a session besides the ones every application has. */
  readonly open?: readonly string[];
  /** Requests neither the language nor the guard applies to (the desk's admin API). */
  readonly skip?: (path: string) => boolean;
  /** A check of the application's own, run after the guard (the profile's member roles). */
  readonly then?: MiddlewareHandler<WebEnv>;
}

/**
 * Set up an application's routes: its error page, the language, the guard, its static files and
 * the language switch. Open without a session: the start, the e-mail link, the language switch,
 * the passkey sign-in, the passkey-removal link, the static files, and `o.open`.
 * @param r the application's routes
 * @param app the application
 * @param o the session, the role, the public URL, the log and what else is open
 */
function webAppSetup(r: Hono<WebEnv>, app: WebApp, o: WebAppSetup): void {
  const b = app.base;
  const open = new Set([
    ...[b, `${b}/`, `${b}/link`, `${b}/language`, `${b}/passkey/options`, `${b}/passkey/verify`],
    `${b}${PASSKEY_REMOVE_LINK}`,
    ...(o.open ?? []).map((p) => `${b}${p}`),
  ]);
  const skip = o.skip ?? (() => false);
  r.onError((err, c) => webErrorPage(c, app, err, o.log));
  const lang = webLang();
  r.use("*", (c, next) => skip(c.req.path) ? next() : lang(c, next));
  const guard = webGuard({
    auth: o.auth,
    role: o.role,
    origin: () => originOf(o.publicUrl()),
    open: (p) => open.has(p) || p.startsWith(`${b}/assets/`),
  });
  r.use("*", (c, next) => skip(c.req.path) ? next() : guard(c, next));
  if (o.then) r.use("*", o.then);
  webAssetRoutes(r);
  languageRoute(r, b);
}

/** What an application's sessions and setup take from the service. */
export interface WebAppDeps {
  readonly store: TokenStore;
  readonly clock: Clock;
  /** The service's public URL (changes must come from its origin; cookies are secure on https). */
  readonly publicUrl: () => string;
  readonly log: AppLog;
}

/**
 * An application's sessions: its own cookie, scoped to its base path, secure when the public
 * URL is https (web/sessions.ts).
 * @param d the store, the clock and the public URL
 * @param cookie the session cookie's name
 * @param app the application
 * @returns the sessions and one-time links of the application
 */
export const webAppAuth = (
  d: Pick<WebAppDeps, "store" | "clock" | "publicUrl">,
  cookie: string,
  app: WebApp,
): WebAuth =>
  new WebAuth(d.store, d.clock, cookie, app.base, () => d.publicUrl().startsWith("https:"));

/**
 * Start an application: its routes set up by {@link webAppSetup} and the context its pages get.
 * @param app the application
 * @param deps the service's parts the pages use
 * @param auth the application's sessions ({@link webAppAuth})
 * @param o the role and what else is open, skipped or checked
 * @returns the routes to add the pages to, and the pages' context (`deps` with `auth` and `app`)
 */
export function webAppStart<D extends WebAppDeps>(
  app: WebApp,
  deps: D,
  auth: WebAuth,
  o: Omit<WebAppSetup, "auth" | "publicUrl" | "log">,
): { r: Hono<WebEnv>; ctx: D & { readonly auth: WebAuth; readonly app: WebApp } } {
  const r = new Hono<WebEnv>();
  webAppSetup(r, app, { ...o, auth, publicUrl: deps.publicUrl, log: deps.log });
  return { r, ctx: { ...deps, auth, app } };
}

/** The origin of a URL, or null when it is not one. */
function originOf(url: string): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}
