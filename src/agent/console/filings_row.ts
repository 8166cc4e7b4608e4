/**
 * One row of the console's Filings table (docs/console.md § Filings) and the table's filter form:
 * when, integrator and mode, the declaration in accountants' words (linked to its receipt), EIK
 * and company, period, sender (marked when not a QES), state with its resolution, incoming
 * number, document id and protocol link, and the error; an "unknown" row carries the form that
 * resolves it (filed with the numbers found on the NRA portal, or not filed), unless it is being
 * sent right now.
 * @module
 */
import { html } from "hono/html";
import { maskPersonalId } from "../../log.ts";
import { type FilingRecord, type FilingState, isFilingRunning } from "../filing/mod.ts";
import { filingName, MODE_WORDS, rowNames, STATE_CLASS, STATE_WORDS } from "./filing_words.ts";
import { filingErrorWords } from "./error_words.ts";
import { notQualifiedMark } from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import { exportLinks } from "./filings_export.ts";
import { csrfField, type Markup, say, w, when } from "./layout.ts";

/** The Filings page's filters (empty ones left out; a type, so it reads as a query record). */
export type FilingFilters = { eik?: string; period?: string; state?: FilingState };

/** A failed row's error: the words (error_words.ts), the code and the message as recorded in
 * the details. */
function errorCell(row: FilingRecord): Markup {
  const words = filingErrorWords(row.errorCode, row.errorMessage);
  if (!words) return html`${row.errorMessage ?? ""}`;
  return html`
    ${say(words)}<details
      class="muted"><summary>${w("tools.log_details")}</summary><code class="error-code">${row
        .errorCode}</code>${row.errorMessage ? html`<br>${row.errorMessage}` : ""}</details>
  `;
}

/**
 * The filter form: EIK, period, state, and the export links of the filtered view.
 * @param filters the filters in force
 * @returns `<form id="filters">`
 */
export function filterForm(filters: FilingFilters): Markup {
  return html`<form method="get" action="/console/filings" class="filters" id="filters">
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
}

/**
 * The resolve form of an "unknown" row, or a note when the filing is being sent right now.
 * @param row the journal row
 * @param sending whether the filing is in flight
 * @param csrf the session's CSRF token
 * @returns markup ("" for a row that needs no resolving)
 */
function resolveCell(row: FilingRecord, sending: boolean, csrf: string): Markup | "" {
  return sending
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
}

/**
 * The row drawer of a console context.
 * @param ctx the console's context (journal, senders, portals for company names)
 * @returns `(row, csrf) => <tr>`
 */
export function filingRow(ctx: ConsoleContext): (row: FilingRecord, csrf: string) => Markup {
  const names = rowNames(ctx);
  const company = names.company;
  const senderName = names.sender;
  const notQualified = (id: string | null) =>
    ctx.senders.current().find((s) => s.id === id)?.qualified === false;
  return (row, csrf) => {
    const name = filingName(row.typeId);
    const co = company(row);
    const sending = row.state === "unknown" && ctx.journal !== undefined &&
      isFilingRunning(ctx.journal, row.id);
    const resolveForm = resolveCell(row, sending, csrf);
    return html`
      <tr data-id="${row.id}" data-state="${row.state}">
        <td class="small nowrap">${when(row.createdAt).replace(" ", "\n")}</td>
        <td class="small">${names.integrator(row.integrator)}<br><span class="muted">${say(
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
        <td class="small error-words">${row.state === "filed" ? "" : errorCell(row)}</td>
      </tr>
    `;
  };
}
