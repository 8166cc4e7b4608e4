/**
 * The console's page frame: title, navigation between the five pages, the language switch, a
 * message line, and the security headers (strict CSP with a per-response nonce,
 * `frame-ancestors 'none'`, no caching, no referrer). One language at a time, from the catalogs
 * (src/agent/texts/): Bulgarian unless the accountant switched to English.
 * @module
 */
import { html, raw } from "hono/html";
import { type Bilingual, type Markup, PAGE_STYLE, pageHeaders } from "../../web_page.ts";
import { currentLang, langSwitch, say, type TextKey, w } from "../texts/mod.ts";

export { type Bilingual, type Markup } from "../../web_page.ts";
export {
  both,
  bothWith,
  count,
  headRow,
  say,
  tableOr,
  type TextKey,
  w,
  when,
} from "../texts/mod.ts";

/** The console's pages, in navigation order. */
export const CONSOLE_PAGES = [
  { path: "/", id: "status", key: "nav.status" },
  { path: "/console/senders", id: "senders", key: "nav.senders" },
  { path: "/console/filings", id: "filings", key: "nav.filings" },
  { path: "/console/diagnostics", id: "diagnostics", key: "nav.diagnostics" },
  { path: "/console/log", id: "log", key: "nav.log" },
] as const satisfies readonly { path: string; id: string; key: TextKey }[];

/** A page id. */
export type ConsolePageId = typeof CONSOLE_PAGES[number]["id"];

/** A message shown at the top of a page after an action. */
export interface Flash extends Bilingual {
  readonly kind: "ok" | "error";
}

/** The console's own rules on top of the shared page style: the drop zone, the certificate card, banners. */
const CONSOLE_STYLE = `
header .lang{margin-left:auto;color:#fff;border:1px solid #7d9cc4;border-radius:6px;padding:.2rem .6rem;text-decoration:none}
#drop-zone{border:2px dashed #7a8699;border-radius:8px;padding:1rem;background:#fff;margin:0 0 .75rem} #drop-zone.over{background:#e8f0fb;border-color:#2a5a8f}
dl.cert{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0} dl.cert dt{color:#444} dl.cert dd{margin:0}
ul.checks{margin:.25rem 0;padding-left:1.2rem} .banner{padding:.6rem 1rem;border-radius:6px;margin:0 0 1rem;background:#fff4e0;border:1px solid #e5b567} .banner.urgent{background:#fdecea;border-color:#f0a9a0}
td.nowrap{white-space:pre}
.receipt table.fields th{width:16rem;background:none} .next{margin:.5rem 0 0;font-weight:600}
@media print{header,.noprint,#flash{display:none} body{background:#fff;font-size:12pt} main{margin:0;max-width:none;padding:0}
.card{border:none;padding:0} .en{color:#444} iframe.protocol{height:40rem;border:none} a{color:inherit;text-decoration:none}}
`;

/**
 * The console's security headers: the confirmation page's (strict CSP by nonce,
 * `frame-ancestors 'none'`, no caching), plus frames of its own origin (the sandboxed protocol)
 * and no referrer.
 * @param cspNonce the response's nonce (authorises the page's style and script)
 * @returns headers
 */
export function consoleHeaders(cspNonce: string): Record<string, string> {
  const h = pageHeaders(cspNonce);
  return {
    ...h,
    "content-security-policy": `${h["content-security-policy"]}; frame-src 'self'`,
    "referrer-policy": "no-referrer",
  };
}

export { newNonce } from "../../web_page.ts";

/** What every console page is drawn with. */
export interface Frame {
  readonly nonce: string;
  readonly csrf: string;
  readonly flash?: Flash | null;
}

/**
 * A whole console page.
 * @param f nonce, message, the banner every page shows (another agent on the usual port), and
 *   the page's own path (where the language switch comes back to)
 * @param page which page is current (null: none, e.g. the sign-in explanation)
 * @param title the page's title
 * @param body the page's content
 * @returns HTML
 */
export function consolePage(
  f: Pick<Frame, "nonce" | "flash"> & {
    readonly banner?: Bilingual | null;
    readonly back?: string;
  },
  page: ConsolePageId | null,
  title: Bilingual,
  body: Markup,
): Markup {
  return html`
    <!doctype html>
    <html lang="${currentLang()}">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${say(title)} — ${w("layout.title_suffix")}</title>
        <link rel="icon" type="image/svg+xml" href="/favicon.ico">
        <style nonce="${f.nonce}">${raw(PAGE_STYLE + CONSOLE_STYLE)}</style>
      </head>
      <body data-page="${page ?? "none"}">
        <header>
    <span class="brand">${w("layout.nra_filing_agent")}</span>
    ${page
      ? html`<nav>${
        CONSOLE_PAGES.map((p) =>
          html`<a href="${p.path}" id="nav-${p.id}" ${
            p.id === page ? raw('aria-current="page"') : ""
          }>${w(p.key)}</a>`
        )
      }</nav>`
      : ""}
    ${langSwitch(f.back ?? "/")}
        </header>
        <main>
    <h1>${say(title)}</h1>
    ${f.banner
      ? html`<div class="banner urgent" id="agent-banner" role="alert">${say(f.banner)}</div>`
      : ""}
    ${f.flash
      ? html`<div class="flash ${f.flash.kind}" id="flash" role="status">${say(f.flash)}</div>`
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
