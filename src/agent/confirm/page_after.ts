/**
 * The consent page after its confirmation, when its requests read paths on the disk
 * (docs/confirmation.md § Two steps): while the files are read and checked it says so and polls;
 * a file that failed is shown in words — the declaration, what is wrong, what to do, Bulgarian
 * with the English beside — and that no PIN was asked; files that passed move the page on to the
 * PIN step (live mode), or it says the checks passed (test mode, or a sender without a PIN).
 * @module
 */
import { say, w } from "../texts/mod.ts";
import { html } from "hono/html";
import { declarationName } from "../../contract/mod.ts";
import type { AfterConsent, Dialog } from "./dialog.ts";
import { visible } from "./display.ts";
import { scriptTag } from "../../web_assets.ts";
import { AFTER_JS } from "./assets/mod.ts";

/** The counts the page polls for (checking/failed/passed). */
export function afterKey(a: AfterConsent): string {
  return [a.checking.size, a.failed.length, a.passed].join("/");
}

/**
 * The body of the consent page once it was confirmed (the caller wraps it in the page's
 * document).
 * @param d the confirmed dialog (with `after`)
 * @param pinStep the PIN step it moved on to, when one was opened (a waiting one: the page moves
 *   there)
 * @returns markup
 */
export function afterBody(d: Dialog, pinStep: Dialog | undefined) {
  // non-null: only a confirmed two-step dialog reaches this page, and it carries `after`
  const a = d.after!;
  const test = d.subjects[0]?.mode === "test";
  const moving = pinStep?.state === "pending";
  const head = moving
    ? html`
      <h1 id="result"
        data-decision="pin">${w("confirm.the_files_passed_their")}</h1>
    `
    : a.checking.size > 0
    ? html`
      <h1 id="result"
        data-decision="checking">${w("confirm.the_agent_is_reading")}</h1>
      <p
        class="note">${w(test ? "confirm.keep_tab_open" : "confirm.keep_tab_open_pin")}</p>
    `
    : a.failed.length > 0 && a.passed === 0
    ? html`
      <h1 id="result"
        data-decision="refused">${w("confirm.refused_the_file_did")}</h1>
    `
    : pinStep?.state === "confirmed"
    ? html`
      <h1 id="result"
        data-decision="confirm">${w("confirm.signed_you_can_close")}</h1>
    `
    : pinStep && pinStep.state !== "pending"
    ? html`
      <h1 id="result"
        data-decision="decline">${w("confirm.declined_nothing_was_signed")}</h1>
    `
    : html`
      <h1 id="result"
        data-decision="confirm">${w("confirm.the_files_were_read_2")}</h1>
    `;
  const failed = a.failed.length
    ? html`<div class="failed" id="failed">${
      a.failed.map((f) => {
        const n = declarationName(f.typeId);
        return html`
          <div class="failure warning" data-error-code="${f.code}">
            <div
              class="op">${visible(say(n))}</div>
            <div class="warn">${visible(say(f))}</div>
            <div>${w("confirm.what_to_do", { todo: say(f.todo) })}</div>
            ${f.detail
              ? html`<div class="note detail">${w("confirm.details")}: <span
                  lang="en">${visible(f.detail)}</span> (${f.code})</div>`
              : ""}
          </div>
        `;
      })
    }
        <p class="note" id="no-pin">${
      w(test ? "confirm.nothing_signed" : "confirm.nothing_signed_no_pin")
    }</p>
      </div>`
    : "";
  return html`
    <div id="after" data-path="/confirm/${encodeURIComponent(
      d.id,
    )}" data-poll="${a.checking.size > 0 || moving ? "1" : "0"}" data-key="${afterKey(
      a,
    )}">
          ${head}${failed}</div>
    ${scriptTag("", AFTER_JS)}
  `;
}
