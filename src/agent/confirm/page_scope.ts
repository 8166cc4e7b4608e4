/**
 * The part of the confirmation page for a batch already confirmed whose request asks more
 * (docs/confirmation.md § What a confirmed batch covers): what the batch was confirmed for, and
 * only the requests that are not one of its items — "This batch now also asks to file: Annual
 * tax return form 731 for 121212121, period 2025, file …" — in the page's language.
 * @module
 */
import { currentLang, say, w } from "../texts/mod.ts";
import { html } from "hono/html";
import { declarationName, KIND_NAMES } from "../../contract/mod.ts";
import type { Dialog } from "./dialog.ts";
import { visible } from "./display.ts";
import { wrapped } from "./page_rows.ts";
import { outside } from "./scope.ts";

/** "за 121212121, 831234567" / "for …" (nothing without EIKs). */
const forEiks = (eiks: readonly string[], lang: "bg" | "en") =>
  eiks.length ? `${lang === "bg" ? " за " : " for "}${eiks.map(visible).join(", ")}` : "";

/**
 * The block of an extension dialog: the earlier scope and, per request, what it adds.
 * @param d the dialog (nothing for a batch's first dialog)
 * @returns markup, or "" when `d` is not an extension
 */
export function extensionBlock(d: Dialog) {
  const base = d.base;
  if (!base) return "";
  const earlier = [...base.filings].map((k) => KIND_NAMES[k]);
  const lines = d.subjects.map((s) => {
    const add = outside(base, s);
    if (add === null) return "";
    const kind = s.filing;
    const n = kind ? KIND_NAMES[kind] : declarationName(s.typeId);
    const verb = w(kind ? "confirm.verb_file" : "confirm.verb_read");
    const lang = currentLang();
    // The whole item is new: its paths and files, and its period (which may be all that differs).
    const files = [...(s.paths ?? []).map((p) => p.resolved), ...s.files];
    return html`
      <li class="added"
        data-type-id="${visible(s.typeId)}">${verb}: ${visible(n[lang])}${forEiks(
          s.eiks,
          lang,
        )}${s.period
          ? html`, <span class="period">${
            w("confirm.for_the_period", {
              period: visible(s.period),
            })
          }</span>`
          : ""}${files.length
          ? html`<div>${
            files.map((f) =>
              html`
                <code class="path" dir="ltr">${wrapped(f)}</code>
              `
            )
          }</div>`
          : ""}${add.eiks.length
          ? html`<div class="note">${w("confirm.new_company")}: ${
            add.eiks.map(
              visible,
            ).join(", ")
          }</div>`
          : ""}</li>
    `;
  });
  return html`
    <div class="extension" id="extension">
      <p><strong>${earlier.length
        ? w("confirm.already_confirmed_to_file", {
          what: earlier.map(say).join(", "),
          eiks: forEiks([...base.eiks], currentLang()),
        })
        : w("confirm.already_confirmed_reports", {
          eiks: forEiks([...base.eiks], currentLang()),
        })}</strong></p>
      <ul id="added">${lines}</ul>
      <p
        class="note">${w("confirm.you_confirm_only_what")}</p>
    </div>
  `;
}
