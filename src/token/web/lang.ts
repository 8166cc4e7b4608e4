/**
 * The language of the profile and the desk (docs/token-service.md § Languages): one language at
 * a time, Bulgarian unless the person chose English with the switch on every page. The choice is
 * a cookie of the service's origin ({@link WEB_LANG_COOKIE}, path `/`: the profile, the desk and
 * the demo outbox follow it); every request is answered inside {@link webLang}, so each text
 * helper of web_page.ts (`t`, `tb`, `pick`) draws that language from the `{bg, en}` pairs.
 * @module
 */
import type { Hono, MiddlewareHandler } from "hono";
import { html } from "hono/html";
import { getCookie, setCookie } from "hono/cookie";
import type { Lang } from "../../contract/mod.ts";
import { type Markup, pageLang, withPageLang } from "../../web_page.ts";
import type { WebC, WebEnv } from "./guard.ts";

/** The cookie that remembers the choice (`en`; anything else means Bulgarian). */
export const WEB_LANG_COOKIE = "svc_lang";

/** How long the choice is remembered: 400 days (the longest a browser keeps a cookie). */
const KEEP_SECONDS = 400 * 24 * 3600;

/**
 * The language a request asks for: its cookie's.
 * @param c the route's context
 * @returns `en` when the cookie says so, else `bg`
 */
export const requestLang = (c: { req: { raw: Request } }): Lang =>
  getCookie(c as WebC, WEB_LANG_COOKIE) === "en" ? "en" : "bg";

/**
 * Middleware: the rest of the request is answered in the cookie's language.
 * @returns Hono middleware
 */
export const webLang = (): MiddlewareHandler<WebEnv> => (c, next) =>
  withPageLang(requestLang(c), () => next());

/** Where the switch may send the browser back to: a path of this application only. */
const backPath = (base: string, p: string | undefined): string =>
  p && (p === base || p.startsWith(`${base}/`) || p.startsWith(`${base}?`)) && !p.includes("\\")
    ? p
    : base;

/**
 * `GET {base}/language?to=en|bg&back=<path>`: remember the choice (cookie) and go back to the
 * page (a path below `base` only; anything else goes to `base`). Open without a session.
 * @param r the application's routes
 * @param base `/profile` or `/admin`
 */
export function languageRoute(r: Hono<WebEnv>, base: string): void {
  r.get("/language", (c) => {
    const to: Lang = c.req.query("to") === "en" ? "en" : "bg";
    setCookie(c, WEB_LANG_COOKIE, to, { path: "/", sameSite: "Lax", maxAge: KEEP_SECONDS });
    return c.redirect(backPath(base, c.req.query("back")), 303);
  });
}

/**
 * The switch: a link to the other language that comes back to `back`.
 * @param base `/profile` or `/admin`
 * @param back the path (and query) of the page shown now
 * @returns `<a id="lang-switch" …>English</a>` on a Bulgarian page, `Български` on an English one
 */
export function langSwitch(base: string, back: string): Markup {
  const to = pageLang() === "bg" ? "en" : "bg";
  const q = new URLSearchParams({ to, back });
  return html`
    <a id="lang-switch" class="lang" lang="${to}" hreflang="${to}"
      href="${base}/language?${q}">${to === "en" ? "English" : "Български"}</a>
  `;
}
