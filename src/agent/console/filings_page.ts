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
 * Routes: `GET /console/filings`,
 * `GET /console/filings/:id/protocol` (+ `/body`, the framed protocol),
 * `POST /console/filings/:id/resolve`.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError, declarationName, isAppError } from "../../contract/mod.ts";
import { maskPersonalId } from "../../log.ts";
import { type FilingRecord, type FilingState, isFilingRunning } from "../filing/mod.ts";
import { MODE_WORDS, rowNames, STATE_CLASS, STATE_WORDS } from "./filing_words.ts";
import { notQualifiedMark } from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import { batchesPanel } from "./batches_page.ts";
import { exportLinks } from "./filings_export.ts";
import { both, bothWith, count, csrfField, headRow, type Markup, say, w, when } from "./layout.ts";
import {
  type ConsoleC,
  type ConsoleEnv,
  doneAndGo,
  errorFlash,
  formOf,
  sendPage,
} from "./respond.ts";

export { STATE_WORDS } from "./filing_words.ts";

/** The filters of the request as the journal takes them (empty ones left out). */
function filtersOf(c: ConsoleC): { eik?: string; period?: string; state?: FilingState } {
  const f: Record<string, string> = {};
  for (const k of ["eik", "period", "state"]) {
    const v = (c.req.query(k) ?? "").trim();
    if (v) f[k] = v;
  }
  return f as { eik?: string; period?: string; state?: FilingState };
}

/** A journal time as the page shows it: local, with its offset (src/local_time.ts). */

/**
 * The Filings routes.
 * @param ctx the console's context (journal, senders, portals for company names)
 * @returns the routes
 */
export function filingsRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const title = both("filings.filings");

  const names = rowNames(ctx);
  const company = names.company;
  const senderName = names.sender;

  const notQualified = (id: string | null) =>
    ctx.senders.current().find((s) => s.id === id)?.qualified === false;

  const rowHtml = (row: FilingRecord, csrf: string): Markup => {
    const name = declarationName(row.typeId);
    const co = company(row);
    const sending = row.state === "unknown" && ctx.journal !== undefined &&
      isFilingRunning(ctx.journal, row.id);
    const resolveForm = sending
      ? html`<div class="small muted">${w("filings.being_sent_awaiting_the")}</div>`
      : row.state === "unknown"
      ? html`
        <details class="resolve" id="resolve-${row.id}">
          <summary>${w("filings.resolve")}</summary>
          <p class="small">${w("filings.check_on_the_nra")}</p>
          <form method="post" action="/console/filings/${row.id}/resolve">${csrfField(csrf)}
        <label class="small">${w("filings.document_id")} <input name="documentId" size="14"></label>
        <label class="small">${w(
          "filings.incoming_no",
        )} <input name="incomeNumber" size="14"></label>
        <button name="how" value="filed" class="primary">${w("filings.it_was_filed")}</button>
        <button name="how" value="not_filed">${w("filings.it_was_not_filed")}</button>
          </form>
        </details>
      `
      : "";
    return html`
      <tr data-id="${row.id}" data-state="${row.state}">
        <td class="small nowrap">${when(row.createdAt).replace(" ", "\n")}</td>
        <td class="small">${row.integrator ?? "—"}<br><span class="muted">${say(
          MODE_WORDS[row.mode],
        )}</span></td>
        <td><a class="receipt-link" href="/console/filings/${row.id}">${say(name)}</a></td>
        <td><span class="mono">${maskPersonalId(row.eik)}</span>${co
          ? html`<br><span class="small">${co}</span>`
          : ""}</td>
        <td>${row.period ?? "—"}</td>
        <td class="small sender">${senderName(row.senderId)}${notQualified(row.senderId)
          ? html`
            ${notQualifiedMark()}
          `
          : ""}</td>
        <td class="${STATE_CLASS[row.state]}">${say(STATE_WORDS[row.state])}${row.resolution
          ? html`<br><span class="small muted">${
            w("filings.resolved_by", { who: row.resolvedBy ?? "?" })
          } ${when(row.resolvedAt)}</span>`
          : ""}${resolveForm}</td>
        <td class="small mono">${row.incomeNumber ?? ""}${row.documentId
          ? html`<br>${row.documentId}`
          : ""}${row.documentId && ctx.journal?.protocol(row.documentId)
          ? html`<br><a class="protocol-link" href="/console/filings/${row.id}/protocol">${
            w("filings.protocol")
          }</a>`
          : ""}</td>
        <td class="small">${row.state === "filed"
          ? ""
          : html`${row.errorMessage ?? ""}${
            row.errorCode ? html`<br><span class="muted">${row.errorCode}</span>` : ""
          }`}</td>
      </tr>
    `;
  };

  r.get("/console/filings", (c) => {
    const journal = ctx.journal;
    const filters = filtersOf(c);
    const before = c.req.query("before") || undefined;
    const csrf = c.get("session").csrf;
    const form = html`<form method="get" action="/console/filings" class="filters" id="filters">
<label>${w("filings.eik")}<input name="eik" id="f-eik" value="${
      filters.eik ?? ""
    }" size="14"></label>
<label>${w("filings.period")}<input name="period" id="f-period" value="${
      filters.period ?? ""
    }" placeholder="2026-10" size="9"></label>
<label>${w("filings.state")}<select name="state" id="f-state"><option value="">${
      w("filings.all")
    }</option>${
      (Object.keys(STATE_WORDS) as FilingState[]).map((s) =>
        html`<option value="${s}" ${s === filters.state ? "selected" : ""}>${
          say(STATE_WORDS[s])
        }</option>`
      )
    }</select></label>
<button id="f-apply">${w("filings.show")}</button>
${exportLinks(filters)}</form>`;
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
      ${page.rows.map((row) => rowHtml(row, csrf))}</table>
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
  });

  // The portal's protocol: a page with the protocol in a sandboxed frame (no script, an opaque
  // origin: it can reach neither the console nor the agent), and the protocol itself.
  const protocolOf = (id: string) => {
    const row = ctx.journal?.get(id) ?? null;
    const p = row?.documentId ? ctx.journal?.protocol(row.documentId) ?? null : null;
    return row && p ? { row, p } : null;
  };
  r.get("/console/filings/:id/protocol", (c) => {
    const found = protocolOf(c.req.param("id"));
    const ptitle = both("filings.the_portal_s_protocol");
    if (!found) {
      return sendPage(
        c,
        "filings",
        ptitle,
        html`<p>${w("filings.no_protocol_is_kept")}</p>`,
        404,
      );
    }
    const name = declarationName(found.row.typeId);
    return sendPage(
      c,
      "filings",
      ptitle,
      html`
        <p>${say(name)} · <span class="mono">${maskPersonalId(
          found.row.eik,
        )}</span> · ${found.row.period ?? ""} · ${w("filings.document")} <span class="mono">${found
          .row.documentId}</span> · ${w("filings.read")} ${when(
            found.p.fetchedAt,
          )}</p>
        <iframe class="protocol" id="protocol" sandbox src="/console/filings/${found.row
          .id}/protocol/body"
          title="${say(ptitle)}"></iframe>
        <p><a class="button" href="/console/filings">${w("filings.back_to_filings")}</a></p>
      `,
    );
  });
  r.get("/console/filings/:id/protocol/body", (c) => {
    const found = protocolOf(c.req.param("id"));
    if (!found) return c.text("", 404);
    return c.body(found.p.body, 200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy":
        "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
      "x-frame-options": "SAMEORIGIN",
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    });
  });

  r.post("/console/filings/:id/resolve", async (c) => {
    const what = both("filings.resolving");
    const f = await formOf(c);
    const id = c.req.param("id");
    const clean = (v: string | undefined) => {
      const s = (v ?? "").trim();
      if (s.length > 64 || !/^[\p{L}\p{N} ./_-]*$/u.test(s)) {
        throw new AppError("CONSOLE_INPUT_INVALID", "A number is too long or has odd characters", {
          field: "documentId",
          bg: "Номерът е твърде дълъг или съдържа странни знаци",
        });
      }
      return s || null;
    };
    try {
      if (f.how !== "filed" && f.how !== "not_filed") {
        throw new AppError("CONSOLE_INPUT_INVALID", "Choose filed or not filed", {
          field: "how",
          bg: "Изберете „подадена“ или „не е подадена“",
        });
      }
      const how = f.how === "filed"
        ? {
          filed: true as const,
          documentId: clean(f.documentId),
          incomeNumber: clean(f.incomeNumber),
        }
        : { filed: false as const };
      const by = ctx.console?.osUser?.() || "console";
      if (ctx.journal && isFilingRunning(ctx.journal, id)) {
        throw new AppError(
          "CONSOLE_INPUT_INVALID",
          "This filing is being sent now; wait for its answer",
          {
            field: "id",
            bg: "Тази декларация се изпраща в момента; изчакайте отговора",
          },
        );
      }
      const row = ctx.journal?.resolve(id, how, by, new Date(ctx.clock.now())) ?? null;
      if (!row) {
        throw new AppError("CONSOLE_INPUT_INVALID", "This filing is not waiting to be resolved", {
          field: "id",
          bg: "Тази декларация не чака уточняване",
        });
      }
      ctx.log("info", "console resolved filing", { filingId: id, state: row.state, by });
      return doneAndGo(c, "/console/filings", {
        kind: "ok",
        ...bothWith("filings.recorded", (l) => ({ state: STATE_WORDS[row.state][l], by })),
      });
    } catch (e) {
      if (!isAppError(e)) throw e;
      return doneAndGo(c, "/console/filings", errorFlash(e, what));
    }
  });
  return r;
}
