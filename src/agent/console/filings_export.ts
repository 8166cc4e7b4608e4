/**
 * The accountant's exports of the Filings page (docs/console.md § Exports): the filtered view
 * (a company and a period, a state) or one folder-wide filing (`batch`), as CSV (src/csv.ts:
 * RFC 4180, a UTF-8 byte order mark so Excel reads the Cyrillic, the formula guard) or as an
 * Excel workbook (src/xlsx.ts), with Bulgarian headings, local times with their offset
 * (src/local_time.ts), the company's and the declaration's names and the states in words. The
 * journal's own columns (English names, UTC) stay available as JSON and through
 * `journal export` (docs/journal.md § Export).
 *
 * Route: `GET /console/filings/export?format=csv|xlsx|json` with `eik`, `period`, `state` or
 * `batch`; a bad filter answers the Filings page with the error (400), never a partial file.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError, isAppError } from "../../contract/mod.ts";
import { localTime, localWallClock } from "../../local_time.ts";
import { filingErrorWords } from "./error_words.ts";
import type { XlsxValue } from "../../xlsx.ts";
import { exportJournal, type FilingRecord } from "../filing/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { filingName, MODE_WORDS, type RowNames, rowNames, STATE_WORDS } from "./filing_words.ts";
import { both, type Markup, w } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, errorFlash, sendPage } from "./respond.ts";

/** A column's value in the Excel workbook where it differs from the CSV's text (a date). */
type XlsxCell = (r: FilingRecord) => XlsxValue;

/** The columns of the accountant's export: Bulgarian heading, width (characters), value, and
 * for the times a real date of the workbook (local wall-clock time; the CSV keeps the offset). */
const COLUMNS: readonly (readonly [
  string,
  number,
  (r: FilingRecord, n: RowNames) => string,
  XlsxCell?,
])[] = [
  [
    "Създадена (местно време)",
    27,
    (r) => localTime(r.createdAt),
    (r) => localWallClock(r.createdAt),
  ],
  ["Декларация", 34, (r) => filingName(r.typeId).bg],
  ["ЕИК / ЕГН", 14, (r) => r.eik],
  ["Фирма", 30, (r, n) => n.company(r) ?? ""],
  ["Период", 9, (r) => r.period ?? ""],
  ["Подател", 24, (r, n) => n.sender(r.senderId)],
  ["Състояние", 12, (r) => STATE_WORDS[r.state].bg],
  ["Входящ №", 16, (r) => r.incomeNumber ?? ""],
  ["Документ №", 22, (r) => r.documentId ?? ""],
  [
    "Подадена в НАП (местно време)",
    27,
    (r) => localTime(r.submissionDate) || (r.submissionDate ?? ""),
    (r) => localWallClock(r.submissionDate) ?? r.submissionDate,
  ],
  [
    "Отговор на НАП / грешка",
    40,
    (r) => r.state === "filed" ? "" : filingErrorWords(r.errorCode, r.errorMessage)?.bg ?? "",
  ],
  ["Интегратор", 18, (r, n) => r.integrator === null ? "" : n.integrator(r.integrator)],
  ["Страница", 28, (r) => r.origin ?? ""],
  ["Среда", 9, (r) => MODE_WORDS[r.mode].bg],
  ["Файлове", 30, (r) => r.files.map((f) => f.name).join("; ")],
  ["SHA-256 на файловете", 66, (r) => r.filesSha256 ?? ""],
  ["Партида", 38, (r) => r.batchId ?? ""],
  ["Уточнена от", 14, (r) => r.resolvedBy ?? ""],
  ["Запис №", 38, (r) => r.id],
  // The details for whoever helps: the stable code and the message as recorded.
  ["Код на грешката", 24, (r) => r.errorCode ?? ""],
  ["Текст на грешката", 40, (r) => r.errorMessage ?? ""],
];

/** The headings of the accountant's export, in order. */
export const EXPORT_HEADINGS: readonly string[] = COLUMNS.map((c) => c[0]);

/** The export's filters: the Filings page's, or one batch. */
type ExportQuery = { eik?: string; period?: string; state?: string; batch?: string };

/**
 * The export buttons of a view (CSV and Excel for the accountant, JSON for integrators).
 * @param q the view's filters (or `batch`)
 * @returns the links
 */
export function exportLinks(q: ExportQuery): Markup {
  const href = (format: string) =>
    `/console/filings/export?${new URLSearchParams({ ...q, format } as Record<string, string>)}`;
  return html`<a class="button" id="export-csv" href="${href("csv")}">CSV</a>
<a class="button" id="export-xlsx" href="${href("xlsx")}">Excel</a>
<details class="inline small"><summary>${w("export.for_programs")}</summary>
<a class="button" id="export-json" href="${href("json")}">${w("export.json")}</a></details>`;
}

/** The rows of an export query; throws AppError CONSOLE_INPUT_INVALID / JOURNAL_QUERY_INVALID. */
function rowsOf(ctx: ConsoleContext, c: ConsoleC): { rows: FilingRecord[]; name: string } {
  const q = (k: string) => (c.req.query(k) ?? "").trim();
  const batch = q("batch");
  if (batch) {
    if (!/^[\w-]{1,64}$/.test(batch)) {
      throw new AppError("CONSOLE_INPUT_INVALID", "The batch id is not valid", {
        field: "batch",
        bg: "Номерът на партидата не е верен",
      });
    }
    return { rows: ctx.journal?.batchRows(batch) ?? [], name: `batch-${batch}` };
  }
  const f: Record<string, string> = {};
  for (const k of ["eik", "period", "state"]) if (q(k)) f[k] = q(k);
  const rows = ctx.journal?.exportRows(f) ?? [];
  return { rows, name: ["filings", f.eik, f.period, f.state].filter(Boolean).join("-") };
}

/**
 * The export route.
 * @param ctx the console's context (journal, portals and senders for the names)
 * @returns the route
 */
export function filingsExportRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get("/console/filings/export", async (c) => {
    const format = c.req.query("format");
    let found;
    try {
      if (format !== "csv" && format !== "xlsx" && format !== "json") {
        throw new AppError("CONSOLE_INPUT_INVALID", "Choose CSV, Excel or JSON", {
          field: "format",
          bg: "Изберете CSV, Excel или JSON",
        });
      }
      found = rowsOf(ctx, c);
    } catch (e) {
      if (!isAppError(e)) throw e;
      const title = both("export.filings");
      return sendPage(c, "filings", title, html``, 400, errorFlash(e, title));
    }
    const headers = (type: string) => ({
      "content-type": type,
      "content-disposition": `attachment; filename="${found.name}.${format}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    if (format === "json") {
      return c.body(await exportJournal(found.rows, "json"), 200, headers("application/json"));
    }
    const file = await accountantExport(found.rows, rowNames(ctx), format);
    return c.body(file.body as Uint8Array<ArrayBuffer> | string, 200, headers(file.type));
  });
  return r;
}

/**
 * The accountant's export file of journal rows (the columns of {@link EXPORT_HEADINGS}). The
 * writers load on first use: the resident agent does not carry them.
 * @param rows journal rows, in the order they are to appear
 * @param names the company and sender names
 * @param format "csv" (UTF-8 with a byte order mark) or "xlsx"
 * @returns the file's body and its media type
 */
export async function accountantExport(
  rows: readonly FilingRecord[],
  names: RowNames,
  format: "csv" | "xlsx",
): Promise<{ body: string | Uint8Array; type: string }> {
  const cells = rows.map((row) => COLUMNS.map(([, , v]) => v(row, names)));
  if (format === "csv") {
    const { toCsv } = await import("../../csv.ts");
    // The byte order mark: Excel reads a CSV without it in the OS's 8-bit code page.
    return {
      body: "\uFEFF" + toCsv(EXPORT_HEADINGS, cells),
      type: "text/csv; charset=utf-8",
    };
  }
  const { toXlsx } = await import("../../xlsx.ts");
  // non-null: cells has one row of COLUMNS.length per row (built above): the indexes are in range.
  const book = rows.map((row, i) => COLUMNS.map((c, k) => c[3] ? c[3](row) : cells[i]![k]));
  return {
    body: await toXlsx("Декларации", EXPORT_HEADINGS, book, COLUMNS.map((c) => c[1])),
    type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  };
}
