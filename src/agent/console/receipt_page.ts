/**
 * A filing's receipt (docs/console.md § A filing's receipt): what was filed, for whom, by whom
 * and what the NRA answered, on one printable page — the company and the declaration in words,
 * the period, the sender, who asked (the integrator, the environment, the folder-wide filing),
 * each file's name, kind, records and SHA-256, the incoming number and the document id, the
 * NRA's answer (or the error in words with what to do next) and the portal's protocol where
 * one is kept (the agent reads it right after filing; shown sandboxed). Times are local with
 * their offset. A print stylesheet leaves out the navigation and the buttons.
 *
 * Route: `GET /console/filings/:id` (404 in words for an unknown id).
 * @module
 */
import { Hono } from "hono";
import { html, raw } from "hono/html";
import { maskPersonalId } from "../../log.ts";
import type { FilingRecord } from "../filing/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import {
  filingName,
  MODE_WORDS,
  NEXT_STEP,
  type RowNames,
  rowNames,
  STATE_CLASS,
  STATE_WORDS,
} from "./filing_words.ts";
import { both, type Markup, say, w, when } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, sendPage } from "./respond.ts";
import { scriptTag } from "../../web_assets.ts";
import { RECEIPT_JS } from "./assets/mod.ts";

const at = (iso: string | null) => when(iso, true);
const item = (label: Markup | string, value: Markup | string, id?: string) =>
  html`
    <tr>
      <th>${label}</th>
      <td ${id ? raw(`id="${id}"`) : ""}>${value}</td>
    </tr>
  `;

/** The NRA's answer in words: accepted (and who recorded it), or the state, the error, what to do. */
function answerCell(row: FilingRecord): Markup {
  if (row.state === "filed") {
    const by = row.resolution === "filed"
      ? w("receipt.accepted_recorded_by", { who: row.resolvedBy ?? "?", at: at(row.resolvedAt) })
      : w("receipt.accepted");
    return html`<span class="ok">${by}</span>${
      row.result?.errorMessage ? html`<br>${row.result.errorMessage}` : ""
    }`;
  }
  const native = row.result?.nativeErrors ?? [];
  return html`<span class="${STATE_CLASS[row.state]}">${say(STATE_WORDS[row.state])}</span>${
    row.errorMessage ? html`<br>${row.errorMessage}` : ""
  }${
    native.length
      ? html`<ul class="small">${native.map((e) => html`<li>${JSON.stringify(e)}</li>`)}</ul>`
      : ""
  }${row.errorCode ? html`<br><span class="small muted">${row.errorCode}</span>` : ""}
    <p class="next" id="next-step">${say(NEXT_STEP[row.state])}</p>`;
}

/** Each file's name, kind, records and SHA-256, and the combined SHA-256; or "no files". */
function filesSection(row: FilingRecord): Markup {
  return row.files.length
    ? html`
      <table
        id="receipt-files"><tr><th>${w("receipt.file")}</th><th>${w("receipt.kind")}</th><th>${w(
          "receipt.records",
        )}</th><th>SHA-256</th></tr>${row.files.map((f) =>
          html`
            <tr>
              <td>${f.name}</td>
              <td class="small">${f.kind}</td>
              <td>${f.numRecords ?? ""}</td>
              <td class="mono small">${f.sha256 ?? "—"}</td>
            </tr>
          `
        )}</table>
      <p class="small">${w("receipt.combined_sha_256_names")}:
              <span class="mono" id="files-sha256">${row.filesSha256 ?? "—"}</span></p>
    `
    : html`<p class="muted small" id="receipt-files">${w("receipt.no_files_the_data")}</p>`;
}

/** The receipt's fields: declaration, company, period, sender, who asked, answer, numbers, times. */
function receiptFields(names: RowNames, row: FilingRecord): Markup {
  return html`
    <table class="fields">
      ${item(w("receipt.declaration"), say(filingName(row.typeId)), "r-declaration")}
      ${item(
        w("receipt.company"),
        html`${names.company(row) ?? ""} <span class="mono">${maskPersonalId(row.eik)}</span>`,
        "r-company",
      )}
      ${item(w("receipt.period"), row.period ?? "—", "r-period")}
      ${item(w("receipt.sender"), names.sender(row.senderId), "r-sender")}
      ${item(
        w("receipt.requested_by"),
        html`${names.integrator(row.integrator)} · ${say(MODE_WORDS[row.mode])}${
          row.origin
            ? html`<br><span class="small">${w("receipt.from_the_page")} <span
                class="mono">${row.origin}</span></span>`
            : ""
        }${
          row.batchId
            ? html`<br><span class="small">${
              w("receipt.in_a_folder_wide")
            } <span class="mono">${row.batchId}</span></span>`
            : ""
        }`,
        "r-requested",
      )}
      ${item(w("receipt.state"), answerCell(row), "r-answer")}
      ${item(w("receipt.incoming_no"), row.incomeNumber ?? "—", "r-incoming")}
      ${item(w("receipt.document_id"), row.documentId ?? "—", "r-document")}
      ${item(w("receipt.received_by_the_nra"), at(row.submissionDate), "r-submitted")}
      ${item(
        w("receipt.created_sent_answered"),
        `${at(row.createdAt)} · ${at(row.sentAt)} · ${at(row.answeredAt)}`,
      )}
    </table>
  `;
}

/** The protocol kept for the filing in a sandboxed frame, or why there is none. */
function protocolSection(row: FilingRecord, protocol: { fetchedAt: string } | null): Markup {
  return protocol
    ? html`
      <p class="small muted">${w("receipt.read")} ${at(protocol.fetchedAt)}</p>
      <iframe class="protocol" id="protocol" sandbox src="/console/filings/${row
        .id}/protocol/body"
        title="${w("receipt.the_nra_s_protocol")}"></iframe>
    `
    : html`<p class="muted" id="no-protocol">${
      row.state === "filed" ? w("receipt.the_portal_gave_no") : w("receipt.only_an_accepted_filing")
    }</p>`;
}

/** `GET /console/filings/:id`: the receipt (404 in words for an unknown id). */
function receiptPage(ctx: ConsoleContext, names: RowNames, c: ConsoleC): Promise<Response> {
  const title = both("receipt.filing_receipt");
  const row = ctx.journal?.get(c.req.param("id") ?? "") ?? null;
  const back = html`<a class="button noprint" id="back" href="/console/filings">${
    w("receipt.back_to_filings")
  }</a>`;
  if (!row) {
    return sendPage(
      c,
      "filings",
      title,
      html`
        <p id="no-receipt">${w("receipt.there_is_no_such")}</p>
        <p>${back}</p>
      `,
      404,
    );
  }
  const protocol = row.documentId ? ctx.journal?.protocol(row.documentId) ?? null : null;
  const body = html`
    <section class="card receipt" id="receipt" data-state="${row.state}">
      ${receiptFields(names, row)}
      <h2>${w("receipt.files")}</h2>
      ${filesSection(row)}
      <h2>${w("receipt.the_nra_s_protocol")}</h2>
      ${protocolSection(row, protocol)}
      <p class="small muted">${w("receipt.record")} <span class="mono">${row.id}</span> · ${w(
        "receipt.times_are_local_bulgaria",
      )}</p>
    </section>
    <p class="noprint"><button id="print" class="primary">${w(
      "receipt.print",
    )}</button> ${back}</p>
    ${scriptTag("", RECEIPT_JS)}
  `;
  return sendPage(c, "filings", title, body);
}

/**
 * The receipt route.
 * @param ctx the console's context (journal, portals and senders for the names)
 * @returns the route
 */
export function receiptRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const names = rowNames(ctx);
  r.get("/console/filings/:id", (c) => receiptPage(ctx, names, c));
  return r;
}
