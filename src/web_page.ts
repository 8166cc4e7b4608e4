/**
 * What every server-rendered page of both programs shares (the agent's console and confirmation
 * page, the token service's profile and administrator's desk): the text helpers, which draw a
 * `{bg, en}` pair in the language of the page being drawn (Bulgarian unless {@link withPageLang}
 * says English: the token service's pages set it per request from their language cookie), table helpers, the shared style sheet (`web_page.css`,
 * served as a page asset: web_assets.ts), the security headers (strict CSP naming the page's
 * scripts by hash, never framed, never cached), random tokens and their constant-time
 * comparison. No state but the request's language (an `AsyncLocalStorage`), no environment.
 * @module
 */
import type { Bilingual, Lang } from "./contract/mod.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import { timingSafeEqual } from "node:crypto";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { scriptSrc, type WebAsset, webAsset } from "./web_assets.ts";
import pageCss from "./web_page.css" with { type: "text" };

/** A text in both languages (the one type for it: src/contract/text.ts). */
export type { Bilingual };

/** Markup or a promise of it, as hono/html produces. */
export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

const pageLangStore = new AsyncLocalStorage<Lang>();

/**
 * Run `fn` with `lang` as the language every text helper here draws (awaits included).
 * @param lang `bg` or `en`
 * @param fn what builds the page
 * @returns what `fn` returns
 */
export const withPageLang = <T>(lang: Lang, fn: () => T): T => pageLangStore.run(lang, fn);

/** The language of the page being drawn (`bg` outside {@link withPageLang}). */
export const pageLang = (): Lang => pageLangStore.getStore() ?? "bg";

/**
 * The text of a pair in the page's language, as a plain string (for attributes, titles).
 * @param b the pair
 * @returns `b.bg` or `b.en`
 */
export const pick = (b: Bilingual): string => b[pageLang()];

/**
 * One text in the page's language: the Bulgarian unless the page is drawn in English.
 * @param bg the Bulgarian text
 * @param en the English text
 * @returns the chosen text, escaped
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(String(await t("Ключове", "Keys")), "Ключове");
 * equal(String(await withPageLang("en", () => t("Ключове", "Keys"))), "Keys");
 * ```
 */
export const t = (bg: string, en: string): Markup => html`${pageLang() === "en" ? en : bg}`;

/** The same for a {@link Bilingual}. */
export const tb = (b: Bilingual): Markup => t(b.bg, b.en);

/**
 * A table's header row: each column's title in the page's language ({@link t}).
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

/** The style sheet every page of both programs loads first (`web_page.css`). */
export const PAGE_CSS: WebAsset = webAsset("page.css", pageCss);

/**
 * Security headers of a page: a strict CSP whose only scripts are `scripts`, named by their
 * SHA-256 (web_assets.ts; no inline script, no nonce) and whose style sheets come from its own
 * origin (no inline style), `frame-ancestors 'none'` and `X-Frame-Options: DENY` (never framed),
 * no caching, no sniffing, its own browsing context group.
 * @param scripts the scripts the page may load
 * @returns headers
 */
export function pageHeaders(scripts: readonly WebAsset[]): Record<string, string> {
  return {
    "content-security-policy": [
      "default-src 'none'",
      scriptSrc(scripts),
      "style-src 'self'",
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

/** Constant-time comparison of two tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
