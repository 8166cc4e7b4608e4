/**
 * Page pieces drawn from the catalogs in the current language: a table's header row, a list or
 * the line that says it is empty, and the language switch (a plain link: the pages' CSP allows
 * no inline script, and none is needed).
 * @module
 */
import { html } from "hono/html";
import type { Markup } from "../../web_page.ts";
import { currentLang } from "./lang.ts";
import { type TextKey, w } from "./words.ts";

/**
 * A table's header row.
 * @param cols each column's title key; null for a column without one
 * @returns `<tr><th>…</th>…</tr>`
 */
export const headRow = (...cols: (TextKey | null)[]): Markup =>
  html`<tr>${cols.map((c) => html`<th>${c ? w(c) : ""}</th>`)}</tr>`;

/**
 * A list shown as a table under its header row, or, when it is empty, the line saying so (and
 * what to do next).
 * @param id the element's id: the table's, or the line's
 * @param cols the column title keys (see {@link headRow})
 * @param rows the rows' markup
 * @param empty what the line says when there are no rows
 */
export const tableOr = (
  id: string,
  cols: (TextKey | null)[],
  rows: readonly Markup[],
  empty: Markup | string,
): Markup =>
  rows.length
    ? html`<table id="${id}">${headRow(...cols)}${rows}</table>`
    : html`<p class="muted empty" id="${id}">${empty}</p>`;

/**
 * The language switch: a link to the other language that comes back to `back`.
 * @param back the path (and query) of the page shown now
 * @returns `<a id="lang-switch" …>English</a>` on a Bulgarian page, and the reverse
 */
export function langSwitch(back: string): Markup {
  const to = currentLang() === "bg" ? "en" : "bg";
  const q = new URLSearchParams({ to, back });
  return html`
    <a id="lang-switch" class="lang" lang="${to}" hreflang="${to}" title="${w("lang.switch_title")}"
      href="/console/language?${q}">${w("lang.switch")}</a>
  `;
}
