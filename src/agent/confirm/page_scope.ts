/**
 * The part of the confirmation page for a batch already confirmed whose request asks more
 * (docs/confirmation.md § What a confirmed batch covers): what the batch was confirmed for, and
 * only what is new — "This batch now also asks to file: Annual tax return form 731 for
 * 121212121, file …". Bulgarian first, the English beside it.
 * @module
 */
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
    const verb = kind ? ["да подаде", "file"] : ["справка", "read"];
    const files = [
      ...add.paths.map((p) => p.resolved),
      ...(kind || add.inline ? s.files : []),
    ];
    return html`
      <li class="added"
        data-type-id="${visible(s.typeId)}"><span lang="bg">${verb[0]}: ${visible(
          n.bg,
        )}${forEiks(s.eiks, "bg")}</span> <span class="en" lang="en">/ ${verb[1]}: ${visible(
          n.en,
        )}${forEiks(s.eiks, "en")}</span>${files.length
          ? html`<div>${
            files.map((f) =>
              html`
                <code class="path" dir="ltr">${wrapped(f)}</code>
              `
            )
          }</div>`
          : ""}${add.eiks.length
          ? html`<div class="note">Нова фирма <span class="en">/ New company</span>: ${
            add.eiks.map(
              visible,
            ).join(", ")
          }</div>`
          : ""}</li>
    `;
  });
  return html`
    <div class="extension" id="extension">
      <p><strong>Тази партида вече е потвърдена${earlier.length
        ? ` за подаване на: ${earlier.map((n) => n.bg).join(", ")}`
        : " за справки"}${forEiks([...base.eiks], "bg")}. Сега иска също:</strong>
        <span class="en">This batch was already confirmed${earlier.length
          ? ` to file: ${earlier.map((n) => n.en).join(", ")}`
          : " for reports"}${forEiks([...base.eiks], "en")}. It now also asks to:</span></p>
      <ul id="added">${lines}</ul>
      <p
        class="note">Потвърждавате само новото; отказът отказва само него. <span class="en">You confirm only what is new; declining refuses only that.</span></p>
    </div>
  `;
}
