/**
 * What every server-rendered page of both programs shares (the agent's console and confirmation
 * page, the token service's profile and administrator's desk): the bilingual text helpers
 * (Bulgarian first, English beside it), table helpers, the security headers (strict CSP by
 * per-response nonce, never framed, never cached), random tokens and their constant-time
 * comparison. No state, no environment.
 * @module
 */
import type { Bilingual } from "./contract/mod.ts";
import { timingSafeEqual } from "node:crypto";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** A text in both languages (the one type for it: src/contract/text.ts). */
export type { Bilingual };

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

/** The pages' style sheet (served inline under the response's CSP nonce). */
export const PAGE_STYLE = `
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
.muted{color:#666} .small{font-size:.88em}
pre.log{background:#10171f;color:#d7e1ec;padding:.75rem;border-radius:6px;overflow-x:auto;font:12.5px/1.45 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
progress{width:100%;height:1.1rem;vertical-align:middle} .batch{border-top:1px solid #e3e3e3;padding-top:.5rem}
iframe.protocol{width:100%;height:28rem;border:1px solid #ccd;background:#fff}
`;

/**
 * Security headers of a page: a strict CSP where `cspNonce` authorises the page's style and
 * script (no inline script otherwise), `frame-ancestors 'none'` and `X-Frame-Options: DENY`
 * (never framed), no caching, no sniffing, its own browsing context group.
 * @param cspNonce the response's nonce
 * @returns headers
 */
export function pageHeaders(cspNonce: string): Record<string, string> {
  return {
    "content-security-policy": [
      "default-src 'none'",
      `script-src 'nonce-${cspNonce}'`,
      `style-src 'nonce-${cspNonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  };
}

/**
 * A random token: `bytes` random bytes, base64url without padding (32 bytes → 43 characters).
 * @param bytes how many random bytes (default 32)
 * @returns the token
 */
export const randomToken = (bytes = 32): string =>
  crypto.getRandomValues(new Uint8Array(bytes)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });

/** A fresh CSP nonce (16 random bytes). */
export const newNonce = (): string => randomToken(16);

/** Constant-time comparison of two tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
