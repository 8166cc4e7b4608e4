/**
 * The consent page after its confirmation, when its requests read paths on the disk
 * (docs/confirmation.md § Two steps): while the files are read and checked it says so and polls;
 * a file that failed is shown in words — the declaration, what is wrong, what to do, Bulgarian
 * with the English beside — and that no PIN was asked; files that passed move the page on to the
 * PIN step (live mode), or it says the checks passed (test mode, or a sender without a PIN).
 * @module
 */
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
  const a = d.after!;
  const test = d.subjects[0]?.mode === "test";
  const moving = pinStep?.state === "pending";
  const head = moving
    ? html`
      <h1 id="result"
        data-decision="pin">Файловете са проверени; следва ПИН кодът… <span class="en">/ The files passed their checks; the PIN step follows…</span></h1>
    `
    : a.checking.size > 0
    ? html`
      <h1 id="result"
        data-decision="checking">Агентът чете и проверява файловете… <span class="en">/ The agent is reading and checking the files…</span></h1>
      <p
        class="note">Не затваряйте този раздел: след проверката тук ще се покаже резултатът${test
          ? ""
          : " или въвеждането на ПИН кода"}. <span class="en">Keep this tab open: the result${test
          ? ""
          : " or the PIN step"} appears here after the check.</span></p>
    `
    : a.failed.length > 0 && a.passed === 0
    ? html`
      <h1 id="result"
        data-decision="refused">Отказано: файлът не премина проверката <span class="en">/ Refused: the file did not pass its check</span></h1>
    `
    : pinStep?.state === "confirmed"
    ? html`
      <h1 id="result"
        data-decision="confirm">Подписано. Можете да затворите този раздел. <span class="en">Signed. You can close this tab.</span></h1>
    `
    : pinStep && pinStep.state !== "pending"
    ? html`
      <h1 id="result"
        data-decision="decline">Отказано: нищо не е подписано. <span class="en">Declined: nothing was signed.</span></h1>
    `
    : html`
      <h1 id="result"
        data-decision="confirm">Файловете са прочетени и проверени; нищо повече не се иска. Можете да затворите този раздел. <span class="en">The files were read and checked; nothing more is asked. You can close this tab.</span></h1>
    `;
  const failed = a.failed.length
    ? html`<div class="failed" id="failed">${
      a.failed.map((f) => {
        const n = declarationName(f.typeId);
        return html`
          <div class="failure warning" data-error-code="${f.code}">
            <div
              class="op"><span lang="bg">${visible(
                n.bg,
              )}</span> <span class="en" lang="en">/ ${visible(n.en)}</span></div>
            <div class="warn">${f.bg} <span class="en">${visible(f.en)}</span></div>
            <div>Какво да направите: ${f.todo.bg} <span class="en">What to do: ${f.todo
              .en}</span></div>
            ${f.detail
              ? html`<div class="note detail">Подробности <span class="en">/ Details</span>: <span
                  lang="en">${visible(f.detail)}</span> (${f.code})</div>`
              : ""}
          </div>
        `;
      })
    }
        <p class="note" id="no-pin">Нищо не е подписано или изпратено към НАП${
      test ? "" : " и ПИН код не е поискан"
    }. <span class="en">Nothing was signed or sent to the NRA${
      test ? "" : ", and no PIN was asked"
    }.</span></p>
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
