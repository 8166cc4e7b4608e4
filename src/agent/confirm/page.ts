/**
 * The confirmation page the agent opens in the default browser: who asks (integrator name and
 * calling origin, from the verified token), what (operations, EIKs, period, the local paths the
 * agent will read once the user confirms — resolved, with hidden characters made visible —,
 * inline files and their number of documents, and the warnings of the checks of files already
 * read, in Bulgarian with the English beside), the sender choice, confirm / decline, and a
 * countdown. Bulgarian and English. Nothing on the page comes from the user's disk: paths are
 * read only after the decision. Served with a strict CSP (`frame-ancestors 'none'`, only its own
 * static scripts, named by hash, and style sheets: assets/) and acted on only with the one-time nonce from the agent's own origin.
 * @module
 */
import { html } from "hono/html";
import { type Markup, pageHeaders } from "../../web_page.ts";
import { scriptTag, styleLink } from "../../web_assets.ts";
import { CONFIRM_CSS, CONFIRM_JS } from "./assets/mod.ts";
import { declarationName } from "../../contract/mod.ts";
import { type CompanyName, type Dialog, twoStep } from "./dialog.ts";
import { visible } from "./display.ts";
import { batchRow, companyRows, figureRows, pathRow, warningsRow, wrapped } from "./page_rows.ts";
import { extensionBlock } from "./page_scope.ts";
import { afterBody } from "./page_after.ts";
import { followBlock } from "./page_follow.ts";

export { pageHeaders };

/** The agent's icon: a white tick on green, as an inline SVG (allowed by the page's CSP,
 * `img-src 'self' data:`), so the browser asks the agent for no `/favicon.ico`. */
const FAVICON_SVG = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>" +
  "<rect width='32' height='32' rx='7' fill='#0b6b2e'/>" +
  "<path d='M8.5 16.5l5 5L23.5 11' fill='none' stroke='#fff' stroke-width='3.4' " +
  "stroke-linecap='round' stroke-linejoin='round'/></svg>";

/** The `href` of the pages' icon: a `data:image/svg+xml` URI. */
export const FAVICON_HREF = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/** A whole page of the confirmation: the `<head>` every page shares (charset, viewport, icon,
 * title, style) and `body`. */
function pageDocument(title: string, body: Markup): string {
  return String(html`
    <!doctype html>
    <html lang="bg">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <link rel="icon" type="image/svg+xml" href="${FAVICON_HREF}">
        <title>${title}</title>
        ${styleLink("", CONFIRM_CSS)}
      </head>
      <body>
        ${body}
      </body>
    </html>
  `);
}

/**
 * Render the dialog page.
 * @param d the pending dialog
 * @param now epoch ms (for the countdown)
 * @returns HTML
 */
export function renderConfirmPage(d: Dialog, now: number): string {
  const first = d.subjects[0]!;
  const eiks = [...new Set(d.subjects.flatMap((s) => s.eiks))];
  const names = new Map<string, CompanyName>();
  // A name from the files wins over the portal's.
  const allNames = d.subjects.flatMap((s) => s.companies ?? []);
  for (const c of [...allNames.filter((c) => c.source === "file"), ...allNames]) {
    if (!names.has(c.eik)) names.set(c.eik, c);
  }
  const paths = [
    ...new Map(d.subjects.flatMap((s) => s.paths ?? []).map((p) => [p.resolved, p])).values(),
  ];
  // The PIN step lists the files read once: those the paths named are shown under "Read".
  const named = new Set(d.step === "pin" ? paths.map((p) => p.resolved) : []);
  const files = [...new Set(d.subjects.flatMap((s) => s.files))].filter((f) => !named.has(f));
  const periods = [...new Set(d.subjects.map((s) => s.period).filter((p): p is string => !!p))];
  const docs = d.subjects.reduce((n, s) => n + (s.documents ?? 0), 0);
  const warnings = [
    ...new Map(d.subjects.flatMap((s) => s.warnings ?? []).map((w) => [w.en, w])).values(),
  ];
  const figures = [
    ...new Map(
      d.subjects.flatMap((s) => s.figures ? [s.figures] : []).map((f) => [JSON.stringify(f), f]),
    ).values(),
  ];
  const seconds = Math.max(0, Math.round((d.expiresAt - now) / 1000));
  const typeIds = [...new Set(d.subjects.map((s) => s.typeId))];
  const pinStep = d.step === "pin";
  // Two steps when files are still to be read and the sender signs with a PIN (live mode).
  const later = twoStep(d) && d.senders.some((s) => s.needsPin);
  const body = html`
          ${pinStep
            ? html`
              <h1 id="step"
                data-step="pin">Стъпка 2 от 2: подпис с ПИН код <span class="en">/ Step 2 of 2: sign with the PIN</span></h1>
              <p class="checked"
                id="checked">Файловете са прочетени и проверени: това са декларацията, фирмата и периодът, които се подават. <span class="en">The files were read and checked: this is the declaration, company and period being filed.</span></p>
            `
            : html`<h1 id="step" data-step="${later ? "consent" : "one"}">${
              later
                ? html`Стъпка 1 от 2: съгласие <span class="en">/ Step 1 of 2: consent</span>`
                : html`Потвърдете подателя <span class="en">/ Confirm the sender</span>`
            }</h1>`}
          ${first.mode === "test"
            ? html`
              <p
                class="test">Тестов режим: нищо не се подава към НАП. <span class="en">Test mode: nothing is filed with the NRA.</span></p>
            `
            : ""}
          <div class="who" id="who">
      <div><strong>Кой пита <span class="en">/ Who asks</span>:</strong> <span id="integrator">${visible(
        first.integratorName,
      )}</span></div>
      <div><strong>От страница <span class="en">/ From page</span>:</strong> <span id="origin">${first
          .origin
        ? visible(first.origin)
        : "— (не е обвързан / not bound)"}</span></div>
    </div>
          ${extensionBlock(d)}
          <table id="what">
            <tr><th>Какво се иска <span class="en">/ What is asked</span></th><td id="operations">${typeIds
              .map((t) => {
                const n = declarationName(t);
                return html`
                  <div class="op"
                    data-type-id="${visible(t)}"><span lang="bg">${visible(
                      n.bg,
                    )}</span> <span class="en" lang="en">/ ${visible(n.en)}</span></div>
                `;
              })}</td></tr>
            <tr><th>Фирма (ЕИК) <span class="en">/ Company (EIK)</span></th><td id="eiks">${companyRows(
              eiks,
              names,
              first.mode,
            )}</td></tr>
            <tr><th>Период <span class="en">/ Period</span></th><td id="periods">${periods.length
              ? periods.join(", ")
              : "—"}</td></tr>
            ${figures.map((f) =>
              figureRows(
                f,
                figures.length > 1 ? `${names.get(f.eik)?.name ?? ""} ${f.eik}`.trim() : null,
              )
            )}
            ${paths.length && pinStep
              ? html`
                <tr>
                  <th>Прочетено <span class="en">/ Read</span></th>
                  <td id="paths">${paths.map(pathRow)}</td>
                </tr>
              `
              : paths.length
              ? html`
                <tr>
                  <th>Ще бъде прочетено <span class="en">/ Will be read</span></th>
                  <td id="paths">${paths.map(pathRow)}
                    <p class="note">Агентът ще прочете тези файлове и папки едва след като потвърдите; досега нищо не е прочетено. <span class="en">The agent reads these files and folders only after you confirm; nothing has been read yet.</span></p>
                  </td>
                </tr>
              `
              : ""}
            ${files.length
              ? html`
                <tr>
                  <th>${pinStep
                    ? html`Файлове <span class="en">/ Files</span>`
                    : html`Файлове от страницата <span class="en">/ Files sent by the page</span>`}</th>
                  <td id="files">${files.map((f) =>
                    html`<div><code class="path" dir="ltr">${wrapped(f)}</code></div>`
                  )}</td>
                </tr>
              `
              : ""}
            ${docs
              ? html`
                <tr>
                  <th>Брой файлове <span class="en">/ Files</span></th>
                  <td id="documents">${docs}</td>
                </tr>
              `
              : ""}
            ${warnings.length ? warningsRow(warnings) : ""}
            <tr><th>Заявки <span class="en">/ Requests</span></th><td id="requests">${d.subjects
              .length}</td></tr>
            ${pinStep ? pinStepRow(first.batchId) : batchRow(first.batchId, !!d.base)}
          </table>
          <form method="post" action="/confirm/${d.id}/decision" id="decision">
            <input type="hidden" name="nonce" value="${d.nonce}">
      <input type="hidden" name="seen" id="seen" value="${d.version}">
            <fieldset class="senders"><legend>Подател <span class="en">/ Sender</span></legend>
            ${d.senders.map((s) =>
              html`<label><input type="radio" name="senderId" value="${s.id}" ${
                s.id === d.preselected ? "checked" : ""
              } required> ${visible(s.displayName)}${
                s.qualified === false
                  ? html`
                    <span class="warn not-qualified">не е КЕП <span class="en">/ not a QES</span></span>
                  `
                  : ""
              }</label>`
            )}
            </fieldset>
        ${later && d.senders.some((s) => s.needsPin)
          ? html`
            <p
              id="pin-later">ПИН кодът не се иска сега: агентът първо ще прочете и провери файловете, после ще ви покаже какво е прочетено и ще поиска ПИН кода. Ако файл не е декларацията, за която е посочен, заявката се отказва и ПИН код не се иска. <span class="en">The PIN is not asked now: the agent first reads and checks the files, then shows you what it read and asks for the PIN. If a file is not the declaration it is named for, the request is refused and no PIN is asked.</span></p>
          `
          : d.senders.some((s) => s.needsPin)
          ? html`<p><label>ПИН код на подписа <span class="en">/ Signature PIN</span>
    <input type="password" name="pin" id="pin" autocomplete="off" maxlength="64"></label>
    <br><span id="pin-note">ПИН кодът остава само в паметта на агента, за тази партида; не се записва и не се изпраща към уеб страницата. <span class="en">The PIN stays in this agent's memory for this batch only; it is never stored or sent to the web page.</span></span></p>`
          : ""}
            <div class="actions">
              <button class="ok" type="submit" name="decision" value="confirm" id="confirm">${pinStep
                ? html`Подпиши и подай <span class="en">/ Sign and file</span>`
                : later
                ? html`Потвърди и прочети <span class="en">/ Confirm and read</span>`
                : html`Потвърди <span class="en">/ Confirm</span>`}</button>
              <button type="submit" name="decision" value="decline" id="decline" formnovalidate>Откажи <span class="en">/ Decline</span></button>
            </div>
          </form>
          <p class="count"
      id="count"><span lang="bg">Остават <span class="countdown" id="countdown" data-seconds="${seconds}">${seconds}</span> сек.; след това искането се отказва автоматично.</span> <span class="en" lang="en">/ <span class="countdown">${seconds}</span> s left; then the request is declined automatically.</span></p>
          ${scriptTag("", CONFIRM_JS)}
  `;
  return pageDocument("Потвърждение на подател / Confirm the sender", body);
}

/** The PIN step's batch row: what declining does (the batch's scope was confirmed already). */
function pinStepRow(batchId: string | null) {
  return html`
    <tr>
      <th>Партида <span class="en">/ Batch</span></th>
      <td id="batch-info"><span id="batch">${batchId === null
        ? html`— (без партида <span class="en">/ no batch</span>)`
        : visible(batchId.slice(0, 8))}</span>
        <p class="note" id="batch-decline">Отказ или изтекло време отказва ${batchId === null
          ? "заявката"
          : "партидата"}: нищо не се подписва и подава. <span class="en">Declining, or letting the time run out, refuses the ${batchId ===
            null
          ? "request"
          : "batch"}: nothing is signed or filed.</span></p>
      </td>
    </tr>
  `;
}

/**
 * Render the consent page once confirmed, while and after its files are read and checked.
 * @param d the confirmed two-step dialog (with `after`)
 * @param pinStep the PIN step it moved on to, when one was opened
 * @returns HTML
 */
export function renderAfterPage(d: Dialog, pinStep: Dialog | undefined): string {
  return pageDocument(
    "Проверка на файловете / Checking the files",
    afterBody(d, pinStep),
  );
}

/**
 * Render the page shown after a decision.
 * @param decision the decision taken
 * @param extension the dialog asked what a request added to a confirmed batch
 * @param followUrl where the page follows the confirmed filings (page_follow.ts); null: not
 * @returns HTML
 */
export function renderDonePage(
  decision: "confirm" | "decline",
  extension = false,
  followUrl: string | null = null,
): string {
  const text = decision === "confirm" && followUrl
    ? html`Потвърдено. <span class="en">Confirmed.</span>`
    : decision === "confirm"
    ? html`
      Потвърдено. Можете да затворите този раздел. <span
        class="en">Confirmed. You can close this tab.</span>
    `
    : extension
    ? html`
      Отказано само новото; потвърденото по-рано остава. <span
        class="en">Declined: only what was new is refused; what you confirmed before stands.</span>
    `
    : html`Отказано. <span class="en">Declined: the whole batch is refused.</span>`;
  const follow = decision === "confirm" && followUrl ? followBlock(followUrl) : "";
  return noticePage(
    html`<h1 id="result" data-decision="${decision}">${text}</h1>${follow}`,
  );
}

/** A one-line page of the confirmation (after a decision, or when none is waiting). */
function noticePage(h1: Markup): string {
  return pageDocument("Потвърждение / Confirmation", h1);
}

/**
 * Render the page shown for a dialog that is no longer waiting (decided, timed out, or
 * cancelled because the requesting program went away).
 * @returns HTML
 */
export function renderClosedPage(): string {
  return noticePage(
    html`<h1 id="closed">Това потвърждение вече не чака отговор. <span class="en">This confirmation is
            no longer waiting: it was decided, timed out, or the program that asked went away.
            You can close this tab.</span></h1>`,
  );
}
