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
import { currentLang, langSwitch, say, type TextKey, w } from "../texts/mod.ts";
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

/**
 * A whole page of the confirmation (and of the remote approval, remote_approval.ts): the
 * `<head>` every page shares (charset, viewport, icon, title, style) and `body`.
 * @param title the title's text key
 * @param body the page's content
 * @param pageUrl the page's own path, for the language switch; null: no switch
 * @param head more of the `<head>` (a refresh while a remote approval waits), or ""
 * @returns the HTML document
 */
export function pageDocument(
  title: TextKey,
  body: Markup,
  pageUrl: string | null,
  head: Markup | "" = "",
): string {
  return String(html`
    <!doctype html>
    <html lang="${currentLang()}">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <link rel="icon" type="image/svg+xml" href="${FAVICON_HREF}">
        ${head}
        <title>${w(title)}</title>
        ${styleLink("", CONFIRM_CSS)}
      </head>
      <body>
        ${pageUrl ? html`<p class="lang-line">${langSwitch(pageUrl)}</p>` : ""}
        ${body}
      </body>
    </html>
  `);
}

/** What the page lists, merged over the dialog's requests (each value once). */
function pageFacts(d: Dialog) {
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
  const typeIds = [...new Set(d.subjects.map((s) => s.typeId))];
  return { eiks, names, paths, files, periods, docs, warnings, figures, typeIds };
}

/** The step's heading, the test-mode note, and who asks from which page. */
function pageHead(d: Dialog, pinStep: boolean, later: boolean): Markup {
  // non-null: a dialog is opened for at least one subject
  const first = d.subjects[0]!;
  return html`
    ${pinStep
      ? html`
        <h1 id="step"
          data-step="pin">${w("confirm.step_2_of_2")}</h1>
        <p class="checked"
          id="checked">${w("confirm.the_files_were_read")}</p>
      `
      : html`<h1 id="step" data-step="${later ? "consent" : "one"}">${
        later ? html`${w("confirm.step_1_of_2")}` : html`${w("confirm.confirm_the_sender")}`
      }</h1>`}
    ${first.mode === "test"
      ? html`
        <p
          class="test">${w("confirm.test_mode_nothing_is")}</p>
      `
      : ""}
    ${whoAsks(first)}
  `;
}

/**
 * Who asks (docs/confirmation.md § Who asks): a name the token service's administrator verified
 * is shown with its EIK and "verified by the service's operator"; any other name is the one the
 * integrator typed at sign-up, so the page's origin comes first and the name is shown as
 * self-declared, with a warning.
 */
function whoAsks(first: Dialog["subjects"][number]): Markup {
  const fromPage = html`
    <div><strong>${w("confirm.from_page")}:</strong> <span id="origin">${first.origin
      ? visible(first.origin)
      : w("confirm.not_bound")}</span></div>
  `;
  const v = first.integratorVerified ?? null;
  if (v) {
    return html`
      <div class="who verified" id="who" data-verified="yes">
        <div><strong>${w("confirm.who_asks")}:</strong> <span id="integrator"><span
              id="integrator-name">${visible(v.legalName)}</span>, ${w("confirm.who_eik")} <span
              id="integrator-eik">${visible(v.eik)}</span> <span class="verified-mark"
              id="verified-mark">✓ ${w("confirm.who_verified")}</span></span></div>
        ${fromPage}
      </div>
    `;
  }
  return html`
    <div class="who unverified" id="who" data-verified="no">
      ${fromPage}
      <div><strong>${w("confirm.who_asks")}:</strong> <span id="integrator">${w(
        "confirm.who_presents_as",
      )} „<span id="integrator-name">${visible(first.integratorName)}</span>“ (${w(
        "confirm.who_unverified",
      )})</span></div>
      <p class="unverified-warning" id="unverified-warning">⚠ ${w(
        "confirm.who_unverified_warning",
      )}</p>
    </div>
  `;
}

/**
 * The table of what is asked: declarations, companies, periods, the files' figures, the paths
 * (to be read, or read on the PIN step), files sent by the page, documents, warnings, requests,
 * and the batch.
 */
function whatTable(d: Dialog, f: ReturnType<typeof pageFacts>, pinStep: boolean): Markup {
  // non-null: a dialog is opened for at least one subject
  const first = d.subjects[0]!;
  const { eiks, names, paths, files, periods, docs, warnings, figures, typeIds } = f;
  return html`
    <table id="what">
      <tr><th>${w("confirm.what_is_asked")}</th><td id="operations">${typeIds
        .map((t) => {
          const n = declarationName(t);
          return html`
            <div class="op"
              data-type-id="${visible(t)}">${visible(say(n))}</div>
          `;
        })}</td></tr>
      <tr><th>${w("confirm.company_eik")}</th><td id="eiks">${companyRows(
        eiks,
        names,
        first.mode,
      )}</td></tr>
      <tr><th>${w("confirm.period")}</th><td id="periods">${periods.length
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
            <th>${w("confirm.read")}</th>
            <td id="paths">${paths.map(pathRow)}</td>
          </tr>
        `
        : paths.length
        ? html`
          <tr>
            <th>${w("confirm.will_be_read")}</th>
            <td id="paths">${paths.map(pathRow)}
              <p class="note">${w("confirm.the_agent_reads_these")}</p>
            </td>
          </tr>
        `
        : ""}
      ${files.length
        ? html`
          <tr>
            <th>${pinStep
              ? html`${w("confirm.files")}`
              : html`${w("confirm.files_sent_by_the")}`}</th>
            <td id="files">${files.map((f) =>
              html`<div><code class="path" dir="ltr">${wrapped(f)}</code></div>`
            )}</td>
          </tr>
        `
        : ""}
      ${docs
        ? html`
          <tr>
            <th>${w("confirm.files_2")}</th>
            <td id="documents">${docs}</td>
          </tr>
        `
        : ""}
      ${warnings.length ? warningsRow(warnings) : ""}
      <tr><th>${w("confirm.requests")}</th><td id="requests">${d.subjects
        .length}</td></tr>
      ${pinStep ? pinStepRow(first.batchId) : batchRow(first.batchId, !!d.base)}
    </table>
  `;
}

/** The decision form: the senders, the PIN (now or on the next step), Confirm and Decline. */
function decisionForm(d: Dialog, pinStep: boolean, later: boolean): Markup {
  return html`
    <form method="post" action="/confirm/${d.id}/decision" id="decision">
          <input type="hidden" name="nonce" value="${d.nonce}">
    <input type="hidden" name="seen" id="seen" value="${d.version}">
          <fieldset class="senders"><legend>${w("confirm.sender")}</legend>
          ${d.senders.map((s) =>
            html`<label><input type="radio" name="senderId" value="${s.id}" ${
              s.id === d.preselected ? "checked" : ""
            } required> ${visible(s.displayName)}${
              s.qualified === false
                ? html`
                  <span class="warn not-qualified">${w("confirm.not_a_qes")}</span>
                `
                : ""
            }</label>`
          )}
          </fieldset>
      ${later && d.senders.some((s) => s.needsPin)
        ? html`
          <p
            id="pin-later">${w("confirm.the_pin_is_not")}</p>
        `
        : d.senders.some((s) => s.needsPin)
        ? html`<p><label>${w("confirm.signature_pin")}
    <input type="password" name="pin" id="pin" autocomplete="off" maxlength="64"></label>
    <br><span id="pin-note">${w("confirm.the_pin_stays_in")}</span></p>`
        : ""}
          <div class="actions">
            <button class="ok" type="submit" name="decision" value="confirm" id="confirm">${pinStep
              ? html`${w("confirm.sign_and_file")}`
              : later
              ? html`${w("confirm.confirm_and_read")}`
              : html`${w("confirm.confirm")}`}</button>
            <button type="submit" name="decision" value="decline" id="decline" formnovalidate>${w(
              "confirm.decline",
            )}</button>
          </div>
        </form>
  `;
}

/**
 * Render the dialog page.
 * @param d the pending dialog
 * @param now epoch ms (for the countdown)
 * @returns HTML
 */
export function renderConfirmPage(d: Dialog, now: number): string {
  const seconds = Math.max(0, Math.round((d.expiresAt - now) / 1000));
  const pinStep = d.step === "pin";
  // Two steps when files are still to be read and the sender signs with a PIN (live mode).
  const later = twoStep(d) && d.senders.some((s) => s.needsPin);
  const body = html`
    ${pageHead(d, pinStep, later)}
    ${extensionBlock(d)}
    ${whatTable(d, pageFacts(d), pinStep)}
    ${decisionForm(d, pinStep, later)}
    <p class="count"
      id="count">${w(
        "confirm.countdown_before",
      )} <span class="countdown" id="countdown" data-seconds="${seconds}">${seconds}</span> ${w(
        "confirm.countdown_after",
      )}</p>
    ${scriptTag("", CONFIRM_JS)}
  `;
  return pageDocument("confirm.title_confirm", body, `/confirm/${d.id}`);
}

/** The PIN step's batch row: what declining does (the batch's scope was confirmed already). */
function pinStepRow(batchId: string | null) {
  return html`
    <tr>
      <th>${w("confirm.batch")}</th>
      <td id="batch-info"><span id="batch">${batchId === null
        ? html`${w("confirm.no_batch")}`
        : visible(batchId.slice(0, 8))}</span>
        <p class="note" id="batch-decline">${w(
          batchId === null ? "confirm.decline_request_now" : "confirm.decline_batch_now",
        )}</p>
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
    "confirm.title_checking",
    afterBody(d, pinStep),
    `/confirm/${d.id}`,
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
    ? html`${w("confirm.confirmed")}`
    : decision === "confirm"
    ? html`
      ${w("confirm.confirmed_you_can_close")}
    `
    : extension
    ? html`
      ${w("confirm.declined_only_what_was")}
    `
    : html`${w("confirm.declined_the_whole_batch")}`;
  const follow = decision === "confirm" && followUrl ? followBlock(followUrl) : "";
  return noticePage(
    html`<h1 id="result" data-decision="${decision}">${text}</h1>${follow}`,
  );
}

/** A one-line page of the confirmation (after a decision, or when none is waiting). */
function noticePage(h1: Markup): string {
  return pageDocument("confirm.title_decided", h1, null);
}

/**
 * Render the page shown for a dialog that is no longer waiting (decided, timed out, or
 * cancelled because the requesting program went away).
 * @returns HTML
 */
export function renderClosedPage(): string {
  return noticePage(
    html`<h1 id="closed">${w("confirm.this_confirmation_is_no")}</h1>`,
  );
}
