/**
 * The console's Filings page (docs/console.md): the journal as a table — when, integrator, the
 * declaration in accountants' words, EIK and company name, period, sender, state, incoming
 * number and document id, error text — with filters (EIK, period, state), keyset paging
 * (`before`, so page 200 of 10,000+ rows costs what page 1 does; BENCHMARKS.md § Journal
 * pages), export of the filtered view (filings_export.ts), each row's receipt (receipt_page.ts),
 * the portal's protocol when one is known
 * (served sandboxed: no script, no same-origin), and, for an "unknown" row, the way to resolve
 * it: check on the NRA portal, then mark it filed (with the document id and incoming number
 * found there) or not filed — recorded with the OS user and the time.
 *
 * Routes: `GET /console/filings` (here; its rows: filings_row.ts),
 * `GET /console/filings/:id/protocol` (+ `/body`, the framed protocol: filings_protocol.ts),
 * `POST /console/filings/:id/resolve` (filings_resolve.ts).
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { isAppError } from "../../contract/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { batchesPanel } from "./batches_page.ts";
import { type FilingFilters, filingRow, filterForm } from "./filings_row.ts";
import { protocolBody, protocolPage } from "./filings_protocol.ts";
import { resolveFiling } from "./filings_resolve.ts";
import { both, count, headRow, w } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, errorFlash, sendPage } from "./respond.ts";

export { STATE_WORDS } from "./filing_words.ts";

/** The filters of the request as the journal takes them (empty ones left out). */
function filtersOf(c: ConsoleC): FilingFilters {
  const f: Record<string, string> = {};
  for (const k of ["eik", "period", "state"]) {
    const v = (c.req.query(k) ?? "").trim();
    if (v) f[k] = v;
  }
  return f as FilingFilters;
}

/**
 * `GET /console/filings`: the filtered journal, newest first, one page (`before`: the keyset of
 * the next), with the folder-wide filings' panel on the first page.
 * @param ctx the console's context
 * @param drawRow the row drawer ({@link filingRow})
 * @param c the request
 */
function listPage(
  ctx: ConsoleContext,
  drawRow: ReturnType<typeof filingRow>,
  c: ConsoleC,
): Promise<Response> {
  const title = both("filings.filings");
  const journal = ctx.journal;
  const filters = filtersOf(c);
  const before = c.req.query("before") || undefined;
  const csrf = c.get("session").csrf;
  const form = filterForm(filters);
  if (!journal) {
    return sendPage(c, "filings", title, html`<p>${w("filings.no_journal")}</p>`);
  }
  let page;
  try {
    page = journal.page({ ...filters, ...(before ? { before } : {}) });
  } catch (e) {
    if (!isAppError(e)) throw e;
    return sendPage(
      c,
      "filings",
      title,
      form,
      400,
      errorFlash(e, both("filings.the_filter_is_not")),
    );
  }
  const body = html`
    ${before ? "" : batchesPanel(ctx)}
    ${form}
    <p class="muted small" id="count">${count("count.filings", page.total)}</p>
    ${page.rows.length === 0
      ? html`<p class="muted empty" id="filings-empty">${
        w(Object.keys(filters).length ? "filings.empty_filtered" : "filings.empty")
      }</p>`
      : ""}
    <table id="filings" ${page.rows.length ? "" : "hidden"}>${headRow(
      "filings.when",
      "filings.integrator",
      "filings.declaration",
      "filings.eik_company",
      "filings.period",
      "filings.sender",
      "filings.state",
      "filings.incoming_no_document",
      "filings.error",
    )}
    ${page.rows.map((row) => drawRow(row, csrf))}</table>
    <p>${before
      ? html`
        <a class="button" id="first-page" href="/console/filings?${new URLSearchParams(
          filters,
        )}">${w("filings.newest")}</a>
      `
      : ""}${page.next
      ? html`<a class="button" id="next-page" href="/console/filings?${new URLSearchParams({
        ...filters,
        before: page.next,
      })}">${w("filings.older")}</a>`
      : ""}</p>
  `;
  return sendPage(c, "filings", title, body);
}

/**
 * The Filings routes.
 * @param ctx the console's context (journal, senders, portals for company names)
 * @returns the routes
 */
export function filingsRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const drawRow = filingRow(ctx);
  r.get("/console/filings", (c) => listPage(ctx, drawRow, c));
  r.get("/console/filings/:id/protocol", (c) => protocolPage(ctx, c));
  r.get("/console/filings/:id/protocol/body", (c) => protocolBody(ctx, c));
  r.post("/console/filings/:id/resolve", (c) => resolveFiling(ctx, c));
  return r;
}
