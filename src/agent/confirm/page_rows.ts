/**
 * The rows of the confirmation page's table (page.ts draws the page around them): amounts the
 * Bulgarian way, paths that wrap only after their separators, what inline files declare (VAT
 * payable or refundable, ledger records; D1/D6 insured persons and totals), the companies
 * beside their EIKs, the batch and what it allows, the checks' warnings and the paths to be
 * read. Every text from a request or a file goes through `visible` (hidden characters shown).
 * @module
 */
import type { Bilingual } from "../../contract/mod.ts";
import { count, say, w } from "../texts/mod.ts";
import { html, raw } from "hono/html";
import { BATCH_TTL_MS, type CompanyName, type FileFigures, type ShownPath } from "./dialog.ts";
import { hiddenIn, visible } from "./display.ts";

/** Amounts as a Bulgarian accountant writes them: "1 234,56". */
const AMOUNT = new Intl.NumberFormat("bg-BG", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  useGrouping: true,
});

/**
 * An amount with its currency, as the page shows it.
 * @param n the amount (null: blank in the file, shown as 0,00)
 * @param currency "BGN" | "EUR" (null: the period is unknown, no currency shown)
 * @returns e.g. "1 234,56 EUR"
 */
export function formatAmount(n: number | null, currency: string | null): string {
  return AMOUNT.format(n ?? 0) + (currency ? ` ${currency}` : "");
}

/**
 * A path that wraps only after its separators (`/`, `\`): each segment, with the separator
 * that ends it, is one inline block (so a space inside a folder name is no place to break), a
 * `<wbr>` between them; a segment longer than a whole line still breaks anywhere (CSS).
 */
export function wrapped(text: string) {
  return visible(text).split(/(?<=[\\/])/).map((seg, i) =>
    html`${i === 0 ? "" : raw("<wbr>")}<span class="seg">${seg}</span>`
  );
}

/** "12 записа" / "12 records", in the page's language (its plural rules). */
export function records(n: number) {
  return count("count.records", n);
}

/** One figure row: its Bulgarian and English label and its value. */
export function figureRow(key: string, bg: string, en: string, value: unknown, amount = false) {
  return html`
    <tr data-figure="${key}">
      <th>${say({ bg, en })}</th>
      <td${raw(amount ? ' class="amount"' : "")}>${value}</td></tr>
  `;
}

/** What the files already read declare: VAT payable or refundable and the ledgers' records,
 * or D1/D6 insured persons and contributions. */
export function figureRows(f: FileFigures, label: string | null) {
  const heading = html`
    <tr class="figures-head">
      <th class="section"
        colspan="2">${w("confirm.as_the_files_declare")}${label ? ` (${label})` : ""}</th>
    </tr>
  `;
  if (f.kind === "vat") {
    const refund = (f.refundable ?? 0) > 0 && !((f.payable ?? 0) > 0);
    return html`${heading}${
      refund
        ? figureRow(
          "vatRefundable",
          "ДДС за възстановяване",
          "VAT refundable",
          formatAmount(f.refundable, f.currency),
          true,
        )
        : figureRow(
          "vatPayable",
          "ДДС за внасяне",
          "VAT payable",
          formatAmount(f.payable, f.currency),
          true,
        )
    }${
      figureRow(
        "purchaseRecords",
        "Дневник за покупките",
        "Purchase ledger",
        records(f.purchaseRecords),
      )
    }${
      figureRow("salesRecords", "Дневник за продажбите", "Sales ledger", records(f.salesRecords))
    }`;
  }
  return html`${heading}${
    f.employees !== null
      ? figureRow("employees", "Осигурени лица (обр. 1)", "Insured employees (form 1)", f.employees)
      : ""
  }${
    f.insurableIncome !== null
      ? figureRow(
        "insurableIncome",
        "Осигурителен доход",
        "Insurable income",
        formatAmount(f.insurableIncome, f.currency),
        true,
      )
      : ""
  }${
    f.contributions !== null
      ? figureRow(
        "contributions",
        "Осигурителни вноски (обр. 6)",
        "Social and health contributions (form 6)",
        formatAmount(f.contributions, f.currency),
        true,
      )
      : ""
  }${
    f.incomeTax !== null
      ? figureRow(
        "incomeTax",
        "Данък върху доходите (обр. 6)",
        "Income tax (form 6)",
        formatAmount(f.incomeTax, f.currency),
        true,
      )
      : ""
  }`;
}

/** Each EIK with the company's name where one is known, and where the name comes from. */
export function companyRows(
  eiks: readonly string[],
  names: ReadonlyMap<string, CompanyName>,
  mode: string,
) {
  if (!eiks.length) return "—";
  return eiks.map((eik) => {
    const c = names.get(eik);
    const src = !c
      ? ""
      : c.source === "file"
      ? html`${w("confirm.from_the_file")}`
      : mode === "test"
      ? html`${w("confirm.test_profile")}`
      : html`${w("confirm.nra")}`;
    return html`<div class="company" data-eik="${eik}"><span class="eik">${visible(eik)}</span>${
      c
        ? html`
          — <span class="name">${visible(c.name)}</span> <span class="src"
            data-source="${c.source}">${src}</span>
        `
        : ""
    }</div>`;
  });
}

/** The batch: its short identifier, and what confirming it allows, as the manager does it
 * (src/agent/confirm/scope.ts; docs/confirmation.md § What a confirmed batch covers): for 10
 * minutes, later requests of the batch run silently only inside what the page showed; a request
 * asking more opens the page again for what is new, whose decline refuses only that. A batch's
 * first page, declined or timed out, refuses the batch for 10 minutes. */
export function batchRow(batchId: string | null, extension = false) {
  const minutes = BATCH_TTL_MS / 60_000;
  if (batchId === null) {
    return html`
      <tr>
        <th>${w("confirm.batch")}</th>
        <td id="batch-info"><span id="batch">${w("confirm.no_batch")}</span>
          <p class="note" id="batch-scope">${w("confirm.the_confirmation_covers_this")}</p>
        </td>
      </tr>
    `;
  }
  const decline = extension
    ? html`
      ${w("confirm.declining_refuses_only_what")}
    `
    : html`
      ${w("confirm.decline_batch_for", { minutes })}
    `;
  return html`
    <tr>
      <th>${w("confirm.batch")}</th>
      <td id="batch-info"><code class="batch" id="batch" title="${visible(batchId)}">${visible(
        batchId.slice(0, 8),
      )}</code>
        <p class="note" id="batch-scope">${w("confirm.batch_scope", { minutes })}</p>
        <p class="note" id="batch-decline">${decline}</p>
      </td>
    </tr>
  `;
}

/** The checks' warnings about the files already read: each in Bulgarian, the English under it
 * (hidden characters made visible: the texts quote values from the files). */
export function warningsRow(warnings: readonly Bilingual[]) {
  return html`
    <tr>
      <th>${w("confirm.warnings")}</th>
      <td id="warnings">${warnings.map((w) =>
        html`
          <div
            class="warning">${visible(say(w))}</div>
        `
      )}
        <p class="note">${w("confirm.warnings_do_not_stop")}</p>
      </td>
    </tr>
  `;
}

/** One path to be read: the resolved path, and a warning when the page sent it in another
 * form (`..` segments) or with hidden characters — the form itself is not shown, only what it
 * hid, as markers. */
export function pathRow(p: ShownPath) {
  const hidden = hiddenIn(p.sent).join(" ");
  const reshaped = p.sent.split(/[\\/]+/).some((seg) => seg === "." || seg === "..");
  const warning = reshaped
    ? html`
      ${hidden ? w("confirm.path_other_form_hidden", { hidden }) : w("confirm.path_other_form")}
    `
    : hidden
    ? html`${w("confirm.path_hidden", { hidden })}`
    : null;
  return html`<div class="path-row"><code class="path" dir="ltr">${wrapped(p.resolved)}</code>${
    warning ? html`<p class="note warn">${warning}</p>` : ""
  }</div>`;
}
