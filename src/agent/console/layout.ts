/**
 * The console's page frame: title, navigation between the five pages, a message line, the
 * bilingual text helper, and the security headers (strict CSP with a per-response nonce,
 * `frame-ancestors 'none'`, no caching, no referrer). Bulgarian first, English beside it.
 * @module
 */
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { pageHeaders } from "../confirm/mod.ts";

/** A text in both languages. */
export interface Bilingual {
  readonly bg: string;
  readonly en: string;
}

/** Markup or a promise of it, as hono/html produces. */
export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * Bulgarian text with its English beside it.
 * @param bg the Bulgarian text
 * @param en the English text
 * @returns `bg <span class="en">/ en</span>`
 */
export const t = (bg: string, en: string): Markup =>
  html`${bg} <span class="en" lang="en">/ ${en}</span>`;

/** The same for a {@link Bilingual}. */
export const tb = (b: Bilingual): Markup => t(b.bg, b.en);

/**
 * A table's header row: each column's title in Bulgarian with its English beside it ({@link t}).
 * @param cols the titles, `[bg, en]`; null for a column without one
 * @returns `<tr><th>…</th>…</tr>`
 */
export const headRow = (...cols: (readonly [bg: string, en: string] | null)[]): Markup =>
  html`<tr>${cols.map((c) => html`<th>${c ? t(c[0], c[1]) : ""}</th>`)}</tr>`;

/**
 * A list shown as a table under its header row, or as a muted line when it is empty.
 * @param id the element's id: the table's, or the line's
 * @param cols the column titles (see {@link headRow})
 * @param rows the rows' markup, one item per list entry
 * @param empty what the line says when there are no rows
 * @returns `<table id>…</table>` or `<p class="muted" id>…</p>`
 */
export const tableOr = (
  id: string,
  cols: Parameters<typeof headRow>,
  rows: readonly Markup[],
  empty: Markup,
): Markup =>
  rows.length
    ? html`<table id="${id}">${headRow(...cols)}${rows}</table>`
    : html`<p class="muted" id="${id}">${empty}</p>`;

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

const STYLE = `
*{box-sizing:border-box} body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#123c69;color:#fff;padding:.6rem 1.25rem;display:flex;gap:1.5rem;align-items:center;flex-wrap:wrap}
header .brand{font-weight:600} header .en{color:#c9d6ea}
nav a{color:#fff;text-decoration:none;padding:.35rem .7rem;border-radius:6px;display:inline-block}
nav a[aria-current=page]{background:#2a5a8f} nav a .en{color:#c9d6ea}
main{max-width:72rem;margin:1.25rem auto;padding:0 1.25rem}
h1{font-size:1.3rem;margin:.25rem 0 1rem} h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.en{color:#5a5a5a;font-size:.9em}
table{border-collapse:collapse;width:100%;background:#fff} td,th{border-bottom:1px solid #e3e3e3;padding:.4rem .5rem;text-align:left;vertical-align:top}
th{background:#f1f4f8;font-weight:600}
.card{background:#fff;border:1px solid #dde3ea;border-radius:8px;padding:1rem 1.25rem;margin:0 0 1rem}
.flash{padding:.6rem 1rem;border-radius:6px;margin:0 0 1rem}
.flash.ok{background:#e6f4ea;border:1px solid #9fd3ae} .flash.error{background:#fdecea;border:1px solid #f0a9a0}
.ok{color:#0b6b2e;font-weight:600} .bad{color:#a11d00;font-weight:600} .warn{color:#8a4b00;font-weight:600}
button,.button{font:inherit;padding:.4rem .9rem;border-radius:6px;border:1px solid #7a8699;background:#fff;cursor:pointer;color:#1b1b1b;text-decoration:none;display:inline-block}
button.primary{background:#0b6b2e;color:#fff;border-color:#0b6b2e} button.primary .en{color:#d9f2e1}
button.danger{border-color:#a11d00;color:#a11d00}
input,select{font:inherit;padding:.3rem .4rem;border:1px solid #9aa5b4;border-radius:4px}
form.inline{display:inline} label{margin-right:.75rem}
.filters{display:flex;gap:.75rem;flex-wrap:wrap;align-items:end;margin-bottom:.75rem}
.filters label{display:flex;flex-direction:column;font-size:.9em}
code,.mono{font:13px/1.4 ui-monospace,monospace;overflow-wrap:anywhere}
.muted{color:#666} .small{font-size:.88em} td.nowrap{white-space:pre}
pre.log{background:#10171f;color:#d7e1ec;padding:.75rem;border-radius:6px;overflow-x:auto;font:12.5px/1.45 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
progress{width:100%;height:1.1rem;vertical-align:middle} .batch{border-top:1px solid #e3e3e3;padding-top:.5rem}
iframe.protocol{width:100%;height:28rem;border:1px solid #ccd;background:#fff}
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

/** A fresh CSP nonce. */
export const newNonce = (): string =>
  crypto.getRandomValues(new Uint8Array(16)).toBase64({ alphabet: "base64url", omitPadding: true });

/** What every console page is drawn with. */
export interface Frame {
  readonly nonce: string;
  readonly csrf: string;
  readonly flash?: Flash | null;
}

/**
 * A whole console page.
 * @param f nonce, CSRF token, message
 * @param page which page is current (null: none, e.g. the sign-in explanation)
 * @param title the page's title
 * @param body the page's content
 * @returns HTML
 */
export function consolePage(
  f: Pick<Frame, "nonce" | "flash">,
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
        <style nonce="${f.nonce}">${raw(STYLE)}</style>
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
