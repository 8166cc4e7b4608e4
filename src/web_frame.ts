/**
 * The one page frame of both programs' pages for people (docs/architecture.md § Page frame and
 * sessions): the agent's console and the token service's profile and desk. The head (charset,
 * viewport, title, icon, the shared style sheet then the application's), a header with the
 * brand, the navigation, what the application adds (the signed-in person), the language switch,
 * then the page's heading, its notices, the message of the last action, the content, and the
 * application's scripts. Each application hands in its own words already in the page's language
 * (the console draws them from its catalogs, the token service from its pairs). No state.
 * @module
 */
import type { Bilingual, Lang } from "./contract/mod.ts";
import { html, raw } from "hono/html";
import { type Markup, PAGE_CSS } from "./web_page.ts";
import { scriptTag, styleLink, type WebAsset } from "./web_assets.ts";

/** A message shown at the top of a page after an action, in both languages. */
export interface Flash extends Bilingual {
  readonly kind: "ok" | "error";
}

/** The HTTP statuses a page of either program answers with. */
export type PageStatus = 200 | 400 | 403 | 404 | 409 | 429 | 502;

/**
 * How an application answers with one whole page in the frame: the console's `sendPage`
 * (agent/console/respond.ts) and each token-service application's `page` (token/web/layout.ts).
 * @param c the route's context (who is signed in, the message kept for the next page)
 * @param page the current page's id (`data-page`, its navigation link marked); null: none
 * @param title the page's title in both languages (the `<title>` and the `<h1>`)
 * @param body the content
 * @param status the HTTP status (200)
 * @param flash a message on top (the console: else the one its session kept)
 * @returns the whole page, with the security headers (web_page.ts)
 */
export type PageSender<C, Id extends string = string> = (
  c: C,
  page: Id | null,
  title: Bilingual,
  body: Markup,
  status?: PageStatus,
  flash?: Flash | null,
) => Promise<Response>;

/** One link of an application's navigation, its label in the page's language. */
export interface FrameNavLink {
  readonly href: string;
  /** The link's id is `nav-<id>`; the page whose id it is shows it as current. */
  readonly id: string;
  readonly label: Markup | string;
}

/** What one page is drawn with. */
export interface FrameParts {
  /** The page's language (`<html lang>`, and which side of {@link Flash} is shown). */
  readonly lang: Lang;
  /** The application's path prefix its assets are served under (`""`, `/profile`, `/admin`). */
  readonly base: string;
  /** The application's style sheet(s), loaded after the shared one (web_page.css). */
  readonly styles: readonly WebAsset[];
  /** The scripts loaded at the end of the body (the CSP must name them: pageHeaders). */
  readonly scripts?: readonly WebAsset[] | undefined;
  /** The `href` of the page's icon, when the application serves one. */
  readonly icon?: string | undefined;
  /** The `<title>`: the page's title, then the application's name. */
  readonly title: string;
  readonly suffix: Markup | string;
  /** The `<h1>`. */
  readonly heading: Markup | string;
  /** The header's first item. */
  readonly brand: Markup | string;
  /** The navigation (none: no `<nav>`, e.g. before signing in). */
  readonly nav: readonly FrameNavLink[] | null;
  /** The current page's id (`data-page`, and the current link); null: none. */
  readonly page: string | null;
  /** What the header shows between the navigation and the language switch. */
  readonly aside?: Markup | undefined;
  /** The language switch (`<a id="lang-switch" class="lang">`). */
  readonly langSwitch: Markup;
  /** What stands above the message line (e.g. the console's banner of another agent). */
  readonly notice?: Markup | undefined;
  readonly flash: Flash | null;
  readonly body: Markup;
}

/**
 * A whole page in the one frame.
 * @param f the page's parts
 * @returns the HTML document
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { html } from "hono/html";
 * const page = String(await framePage({
 *   lang: "en", base: "/profile", styles: [], title: "Keys", suffix: "Profile",
 *   heading: "Keys", brand: html`Profile`, page: "keys", langSwitch: html``,
 *   nav: [{ href: "/profile/keys", id: "keys", label: html`Keys` }],
 *   flash: { kind: "ok", bg: "Готово", en: "Done" }, body: html`<p>…</p>`,
 * }));
 * match(page, /<html lang="en">/);
 * match(page, /<a href="\/profile\/keys" id="nav-keys" aria-current="page">Keys<\/a>/);
 * equal(page.includes('id="flash" role="status">Done</div>'), true);
 * ```
 */
export function framePage(f: FrameParts): Markup {
  return html`<!doctype html>
<html lang="${f.lang}">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${f.title} — ${f.suffix}</title>
    ${f.icon ? html`<link rel="icon" type="image/svg+xml" href="${f.icon}">` : ""}
    ${styleLink(f.base, PAGE_CSS)}${f.styles.map((a) => styleLink(f.base, a))}
  </head>
  <body data-page="${f.page ?? "none"}">
    <header>
      <span class="brand">${f.brand}</span>
      ${f.nav ? navOf(f.nav, f.page) : ""}
      ${f.aside ?? ""}
      ${f.langSwitch}
    </header>
    <main>
      <h1>${f.heading}</h1>
      ${f.notice ?? ""}
      ${
    f.flash
      ? html`<div class="flash ${f.flash.kind}" id="flash" role="status">${f.flash[f.lang]}</div>`
      : ""
  }
      ${f.body}
    </main>
    ${(f.scripts ?? []).map((a) => scriptTag(f.base, a))}
  </body>
</html>`;
}

/** The navigation, the current page's link marked `aria-current`. */
const navOf = (links: readonly FrameNavLink[], page: string | null): Markup =>
  html`<nav>${
    links.map((p) =>
      html`<a href="${p.href}" id="nav-${p.id}" ${
        p.id === page ? raw('aria-current="page"') : ""
      }>${p.label}</a>`
    )
  }</nav>`;

/**
 * The hidden CSRF field every form of a signed-in page carries.
 * @param csrf the session's token
 * @returns `<input type="hidden" name="csrf" value="…">`
 */
export const csrfInput = (csrf: string): Markup =>
  html`<input type="hidden" name="csrf" value="${csrf}">`;
