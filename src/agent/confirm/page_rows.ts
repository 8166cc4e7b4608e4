/**
 * The rows of the confirmation page's table (page.ts draws the page around them): amounts the
 * Bulgarian way, paths that wrap only after their separators, what inline files declare (VAT
 * payable or refundable, ledger records; D1/D6 insured persons and totals), the companies
 * beside their EIKs, the batch and what it allows, the checks' warnings and the paths to be
 * read. Every text from a request or a file goes through `visible` (hidden characters shown).
 * @module
 */
import { html, raw } from "hono/html";
import {
  BATCH_TTL_MS,
  type CompanyName,
  type FileFigures,
  type PageWarning,
  type ShownPath,
} from "./dialog.ts";
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

/** "12 записа / records" (Bulgarian and English plurals). */
export function records(n: number) {
  return html`${n} ${n === 1 ? "запис" : "записа"} <span class="en">/ ${n} ${
    n === 1 ? "record" : "records"
  }</span>`;
}

/** One figure row: its Bulgarian and English label and its value. */
export function figureRow(key: string, bg: string, en: string, value: unknown, amount = false) {
  return html`
    <tr data-figure="${key}">
      <th>${bg} <span class="en">/ ${en}</span></th>
      <td${raw(amount ? ' class="amount"' : "")}>${value}</td></tr>
  `;
}

/** What the files already read declare: VAT payable or refundable and the ledgers' records,
 * or D1/D6 insured persons and contributions. */
export function figureRows(f: FileFigures, label: string | null) {
  const heading = html`
    <tr class="figures-head">
      <th class="section"
        colspan="2">Според файловете${label
          ? ` (${label})`
          : ""} <span class="en">/ As the files declare</span></th>
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
      ? html`(от файла <span class="en">/ from the file</span>)`
      : mode === "test"
      ? html`(тестов профил <span class="en">/ test profile</span>)`
      : html`(НАП <span class="en">/ NRA</span>)`;
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
        <th>Партида <span class="en">/ Batch</span></th>
        <td id="batch-info"><span id="batch">— (без партида <span class="en">/ no batch</span>)</span>
          <p class="note" id="batch-scope">Потвърждението важи само за тази заявка; следващата заявка ще пита отново. <span class="en">The confirmation covers this request only; the next request asks again.</span></p>
        </td>
      </tr>
    `;
  }
  const decline = extension
    ? html`
      Отказът отказва само новото; потвърденото по-рано остава. <span
        class="en">Declining refuses only what is new; what you confirmed before stands.</span>
    `
    : html`
      Отказ или изтекло време отказва партидата за ${minutes} минути. <span
        class="en">Declining, or letting the time run out, refuses the batch for ${minutes} minutes.</span>
    `;
  return html`
    <tr>
      <th>Партида <span class="en">/ Batch</span></th>
      <td id="batch-info"><code class="batch" id="batch" title="${visible(batchId)}">${visible(
        batchId.slice(0, 8),
      )}</code>
        <p class="note" id="batch-scope">В следващите ${minutes} минути след потвърждението заявките на тази партида от същия интегратор и страница се изпълняват без нов въпрос, от името на избрания подател, само ако искат показаното тук: подаване на същите декларации, справки и резултати за същите фирми, четене на същите файлове и папки (и на файловете в тях). Заявка, която иска повече — друга декларация, друга фирма, друг файл или папка, — отваря тази страница отново само за новото. <span class="en">For ${minutes} minutes after you confirm, requests of this batch from the same integrator and page run without asking again, in the chosen sender's name, only as long as they ask what is shown here: filing the same declarations, reports and results for the same companies, reading the same files and folders (and the files inside them). A request that asks more — another declaration, another company, another file or folder — opens this page again, for what is new only.</span></p>
        <p class="note" id="batch-decline">${decline}</p>
      </td>
    </tr>
  `;
}

/** The checks' warnings about the files already read: each in Bulgarian, the English under it
 * (hidden characters made visible: the texts quote values from the files). */
export function warningsRow(warnings: readonly PageWarning[]) {
  return html`
    <tr>
      <th>Предупреждения <span class="en">/ Warnings</span></th>
      <td id="warnings">${warnings.map((w) =>
        html`
          <div
            class="warning"><span lang="bg">${visible(
              w.bg,
            )}</span><br><span class="en" lang="en">${visible(
              w.en,
            )}</span></div>
        `
      )}
        <p class="note">Предупрежденията не спират подаването; ако нещо не е наред, откажете и поправете файловете. <span class="en">Warnings do not stop the filing; if something is wrong, decline and correct the files.</span></p>
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
      Страницата изпрати този път в друг вид (с връщане към горни папки${hidden
        ? ` и скрити знаци ${hidden}`
        : ""}); горе е това, което агентът ще прочете. <span
        class="en">The page sent this path in
              another form (stepping up through parent folders${hidden
                ? ` and with hidden characters ${hidden}`
                : ""}); shown above is what the agent will actually read.</span>
    `
    : hidden
    ? html`Пътят съдържа скрити знаци: ${hidden}. <span class="en">The path holds hidden or
        direction-changing characters: ${hidden}.</span>`
    : null;
  return html`<div class="path-row"><code class="path" dir="ltr">${wrapped(p.resolved)}</code>${
    warning ? html`<p class="note warn">${warning}</p>` : ""
  }</div>`;
}
