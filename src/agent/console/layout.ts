/**
 * The console's page frame: title, navigation between the five pages, a message line, the
 * bilingual text helper, and the security headers (strict CSP naming the console's scripts by
 * hash, `frame-ancestors 'none'`, no caching, no referrer). Its style sheets and scripts are
 * static files (assets/). Bulgarian first, English beside it.
 * @module
 */
import { html, raw } from "hono/html";
import { type Bilingual, type Markup, PAGE_CSS, pageHeaders, t, tb } from "../../web_page.ts";
import { styleLink } from "../../web_assets.ts";
import { CONSOLE_CSS, CONSOLE_SCRIPTS } from "./assets/mod.ts";

export { type Bilingual, headRow, type Markup, t, tableOr, tb } from "../../web_page.ts";

/** The console's pages, in navigation order. */
export const CONSOLE_PAGES = [
  { path: "/", id: "status", bg: "Състояние", en: "Status" },
  { path: "/console/senders", id: "senders", bg: "Подписи", en: "Senders" },
  { path: "/console/filings", id: "filings", bg: "Подадени", en: "Filings" },
  { path: "/console/diagnostics", id: "diagnostics", bg: "Диагностика", en: "Diagnostics" },
  { path: "/console/log", id: "log", bg: "Дневник", en: "Log" },
] as const;

/** A page id. */
export type ConsolePageId = typeof CONSOLE_PAGES[number]["id"];

/** A message shown at the top of a page after an action. */
export interface Flash extends Bilingual {
  readonly kind: "ok" | "error";
}

/**
 * The console's security headers: the confirmation page's (strict CSP naming the console's
 * scripts by hash, `frame-ancestors 'none'`, no caching), plus frames of its own origin (the
 * sandboxed protocol) and no referrer.
 * @returns headers
 */
export function consoleHeaders(): Record<string, string> {
  const h = pageHeaders(CONSOLE_SCRIPTS);
  return {
    ...h,
    "content-security-policy": `${h["content-security-policy"]}; frame-src 'self'`,
    "referrer-policy": "no-referrer",
  };
}

/** What every console page is drawn with. */
export interface Frame {
  readonly csrf: string;
  readonly flash?: Flash | null;
}

/**
 * A whole console page.
 * @param f the message, and the banner every page shows (another agent on the usual port)
 * @param page which page is current (null: none, e.g. the sign-in explanation)
 * @param title the page's title
 * @param body the page's content
 * @returns HTML
 */
export function consolePage(
  f: Pick<Frame, "flash"> & { readonly banner?: Bilingual | null },
  page: ConsolePageId | null,
  title: Bilingual,
  body: Markup,
): Markup {
  return html`
    <!doctype html>
    <html lang="bg">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title.bg} / ${title.en} — Агент за подаване</title>
        <link rel="icon" type="image/svg+xml" href="/favicon.ico">
        ${styleLink("", PAGE_CSS)}${styleLink("", CONSOLE_CSS)}
      </head>
      <body data-page="${page ?? "none"}">
        <header>
    <span class="brand">${t("Агент за подаване към НАП", "NRA filing agent")}</span>
    ${page
      ? html`<nav>${
        CONSOLE_PAGES.map((p) =>
          html`<a href="${p.path}" id="nav-${p.id}" ${
            p.id === page ? raw('aria-current="page"') : ""
          }>${t(p.bg, p.en)}</a>`
        )
      }</nav>`
      : ""}
        </header>
        <main>
    <h1>${tb(title)}</h1>
    ${f.banner
      ? html`<div class="banner urgent" id="agent-banner" role="alert">${tb(f.banner)}</div>`
      : ""}
    ${f.flash
      ? html`<div class="flash ${f.flash.kind}" id="flash" role="status">${tb(f.flash)}</div>`
      : ""}
    ${body}
        </main>
      </body>
    </html>
  `;
}

/**
 * The hidden CSRF field every console form carries.
 * @param csrf the session's token
 */
export const csrfField = (csrf: string): Markup =>
  html`<input type="hidden" name="csrf" value="${csrf}">`;
