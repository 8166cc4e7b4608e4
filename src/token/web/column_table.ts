/**
 * A list shown as a table from its columns (docs/token-service.md § The profile,
 * § The administrator's desk): each column gives its title and how a row fills its cell, so a
 * page names what it shows once instead of writing the header row and the row's cells apart.
 * @module
 */
import { html, raw } from "hono/html";
import { type Markup, tableOr } from "../../web_page.ts";

/** One column: its title `[bg, en]` (null: none), its cell's content, the cell's class. */
export type Column<R> = readonly [
  title: readonly [bg: string, en: string] | null,
  cell: (row: R) => Markup | string | number,
  cls?: string,
];

/** What {@link columnTable} shows. */
export interface ColumnTable<R> {
  readonly columns: readonly Column<R>[];
  readonly rows: readonly R[];
  /** The row's `data-*` attribute: its name (a constant of the page) and its value; none if
   * absent. */
  readonly mark?: (row: R) => readonly [name: string, value: string];
  /** What the line says when there are no rows. */
  readonly empty: Markup;
}

/**
 * The rows as a table under the columns' titles, or a muted line when there are none.
 * @param id the element's id: the table's, or the line's
 * @param o the columns, the rows, each row's mark and the empty line
 * @returns `<table id>…</table>` or `<p class="muted" id>…</p>` (web_page.ts `tableOr`)
 */
export function columnTable<R>(id: string, o: ColumnTable<R>): Markup {
  const cells = (r: R) =>
    o.columns.map(([, cell, cls]) =>
      cls === undefined ? html`<td>${cell(r)}</td>` : html`<td class="${cls}">${cell(r)}</td>`
    );
  const rows = o.rows.map((r) => {
    if (!o.mark) return html`<tr>${cells(r)}</tr>`;
    const [name, value] = o.mark(r);
    return html`<tr ${raw(name)}="${value}">${cells(r)}</tr>`;
  });
  return tableOr(id, o.columns.map(([title]) => title), rows, o.empty);
}
