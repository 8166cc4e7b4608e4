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
import { declarationName } from "../../contract/mod.ts";
import { localTime } from "../../local_time.ts";
import { maskPersonalId } from "../../log.ts";
import type { FilingRecord } from "../filing/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { MODE_WORDS, NEXT_STEP, rowNames, STATE_CLASS, STATE_WORDS } from "./filing_words.ts";
import { type Markup, t, tb } from "./layout.ts";
import { type ConsoleEnv, sendPage } from "./respond.ts";
import { scriptTag } from "../../web_assets.ts";
import { RECEIPT_JS } from "./assets/mod.ts";

const when = (iso: string | null) => localTime(iso) || "—";
const item = (label: Markup, value: Markup | string, id?: string) =>
  html`
    <tr>
      <th>${label}</th>
      <td ${id ? raw(`id="${id}"`) : ""}>${value}</td>
    </tr>
  `;

/**
 * The receipt route.
 * @param ctx the console's context (journal, portals and senders for the names)
 * @returns the route
 */
export function receiptRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const names = rowNames(ctx);

  const answer = (row: FilingRecord): Markup => {
    if (row.state === "filed") {
      const by = row.resolution === "filed"
        ? t(
          `приета (отбелязано от ${row.resolvedBy ?? "?"} на ${when(row.resolvedAt)})`,
          `accepted (recorded by ${row.resolvedBy ?? "?"} on ${when(row.resolvedAt)})`,
        )
        : t("приета", "accepted");
      return html`<span class="ok">${by}</span>${
        row.result?.errorMessage ? html`<br>${row.result.errorMessage}` : ""
      }`;
    }
    const native = row.result?.nativeErrors ?? [];
    return html`<span class="${STATE_CLASS[row.state]}">${tb(STATE_WORDS[row.state])}</span>${
      row.errorMessage ? html`<br>${row.errorMessage}` : ""
    }${
      native.length
        ? html`<ul class="small">${native.map((e) => html`<li>${JSON.stringify(e)}</li>`)}</ul>`
        : ""
    }${row.errorCode ? html`<br><span class="small muted">${row.errorCode}</span>` : ""}
      <p class="next" id="next-step">${tb(NEXT_STEP[row.state])}</p>`;
  };

  const files = (row: FilingRecord): Markup =>
    row.files.length
      ? html`
        <table
          id="receipt-files"><tr><th>${t("Файл", "File")}</th><th>${t("Вид", "Kind")}</th><th>${t(
            "Записи",
            "Records",
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
        <p class="small">${t(
          "Обща SHA-256 (имена и съдържание)",
          "Combined SHA-256 (names and contents)",
        )}:
                <span class="mono" id="files-sha256">${row.filesSha256 ?? "—"}</span></p>
      `
      : html`<p class="muted small" id="receipt-files">${
        t(
          "Без файлове: данните са изпратени от счетоводната програма.",
          "No files: the data came from the accounting program.",
        )
      }</p>`;

  r.get("/console/filings/:id", (c) => {
    const title = { bg: "Разписка за подаване", en: "Filing receipt" };
    const row = ctx.journal?.get(c.req.param("id")) ?? null;
    const back = html`<a class="button noprint" id="back" href="/console/filings">${
      t("« Към декларациите", "« Back to filings")
    }</a>`;
    if (!row) {
      return sendPage(
        c,
        "filings",
        title,
        html`
          <p id="no-receipt">${t(
            "Няма такава декларация в дневника на този компютър.",
            "There is no such filing in this computer's journal.",
          )}</p>
          <p>${back}</p>
        `,
        404,
      );
    }
    const decl = declarationName(row.typeId);
    const company = names.company(row);
    const protocol = row.documentId ? ctx.journal?.protocol(row.documentId) ?? null : null;
    const body = html`
      <section class="card receipt" id="receipt" data-state="${row.state}">
        <table class="fields">
          ${item(t("Декларация", "Declaration"), tb(decl), "r-declaration")}
          ${item(
            t("Фирма", "Company"),
            html`${company ?? ""} <span class="mono">${maskPersonalId(row.eik)}</span>`,
            "r-company",
          )}
          ${item(t("Период", "Period"), row.period ?? "—", "r-period")}
          ${item(t("Подател", "Sender"), names.sender(row.senderId), "r-sender")}
          ${item(
            t("Поискана от", "Requested by"),
            html`${row.integrator ?? "—"} · ${tb(MODE_WORDS[row.mode])}${
              row.origin
                ? html`<br><span class="small">${t("от страницата", "from the page")} <span
                    class="mono">${row.origin}</span></span>`
                : ""
            }${
              row.batchId
                ? html`<br><span class="small">${
                  t("при подаване на папка", "in a folder-wide filing")
                } <span class="mono">${row.batchId}</span></span>`
                : ""
            }`,
            "r-requested",
          )}
          ${item(t("Състояние", "State"), answer(row), "r-answer")}
          ${item(t("Входящ №", "Incoming no."), row.incomeNumber ?? "—", "r-incoming")}
          ${item(t("Документ №", "Document id"), row.documentId ?? "—", "r-document")}
          ${item(t("Приета в НАП", "Received by the NRA"), when(row.submissionDate), "r-submitted")}
          ${item(
            t("Създадена · изпратена · отговор", "Created · sent · answered"),
            `${when(row.createdAt)} · ${when(row.sentAt)} · ${when(row.answeredAt)}`,
          )}
        </table>
        <h2>${t("Файлове", "Files")}</h2>
        ${files(row)}
        <h2>${t("Протокол от НАП", "The NRA's protocol")}</h2>
        ${protocol
          ? html`
            <p class="small muted">${t("прочетен", "read")} ${when(protocol.fetchedAt)}</p>
            <iframe class="protocol" id="protocol" sandbox src="/console/filings/${row
              .id}/protocol/body"
              title="Протокол"></iframe>
          `
          : html`<p class="muted" id="no-protocol">${
            row.state === "filed"
              ? t(
                "Порталът не даде протокол за тази декларация (или той не можа да бъде прочетен).",
                "The portal gave no protocol for this filing (or it could not be read).",
              )
              : t("Протокол има само за приета декларация.", "Only an accepted filing has one.")
          }</p>`}
        <p class="small muted">${t("Запис №", "Record")} <span class="mono">${row.id}</span> · ${t(
          "часовете са местни (България)",
          "times are local (Bulgaria)",
        )}</p>
      </section>
      <p class="noprint"><button id="print" class="primary">${t(
        "Печат",
        "Print",
      )}</button> ${back}</p>
      ${scriptTag("", RECEIPT_JS)}
    `;
    return sendPage(c, "filings", title, body);
  });
  return r;
}
