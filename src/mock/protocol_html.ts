/**
 * The HTML protocol ("протокол за резултат от обработката") the test portal returns for a
 * submission it issued, in Bulgarian and in the shape clients parse: "е приета" for an accepted
 * declaration, "отхвърлена" for a rejected one, the counts "Брой подадени" / "Брой приети" /
 * "Брой отхвърлени" for D1/D6 and "Общ брой вписани" / "Общ брой невписани" for ETZ notices
 * (docs/nra-api.md §4). Implements docs/test-portal.md § Submissions and results (rawBody).
 * @module
 */
import { escapeToBuffer } from "hono/utils/html";
import type { SubmissionKind } from "../contract/mod.ts";
import { bulgarianTime } from "../local_time.ts";

/** The verdict of a protocol. */
export type Verdict = "accepted" | "partial" | "rejected";

/** What a protocol shows. */
export interface ProtocolData {
  readonly kind: SubmissionKind;
  readonly documentId: string;
  readonly incomeNumber: string;
  readonly submittedAt: Date;
  readonly eik: string;
  readonly taxpayerName: string;
  /** Records (D1/D6) or files submitted. */
  readonly count: number;
  readonly verdict: Verdict;
}

/** The Bulgarian name of each submission kind (genitive, after "обработката на"). */
export const KIND_TITLES: Readonly<Record<SubmissionKind, string>> = {
  vat: "справка-декларация по ЗДДС",
  dec1_6: "декларации обр. 1 и обр. 6",
  dec731: "годишна декларация (образец 731)",
  dec736: "годишна декларация (образец 736)",
  etz62: "уведомление по чл. 62, ал. 5 от Кодекса на труда",
  etz123: "уведомление по чл. 123, ал. 5 от Кодекса на труда",
  high_fisc_risk: "уведомление за превоз на стоки с висок фискален риск",
  odit: "стандартизиран одиторски файл (Наредба Н-18)",
};

const NOTICE_KINDS: ReadonlySet<SubmissionKind> = new Set(["etz62", "etz123", "high_fisc_risk"]);

/**
 * Escape text for HTML with hono's escaper (a pure function): & < > " ' become `&amp;`
 * `&lt;` `&gt;` `&quot;` `&#39;`.
 * @param s text
 * @returns the escaped text
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(escapeHtml('ЕТ "Иван" & <син>'), "ЕТ &quot;Иван&quot; &amp; &lt;син&gt;");
 * ```
 */
export function escapeHtml(s: string): string {
  const out: [string] = [""];
  escapeToBuffer(s, out);
  return out[0];
}

function row(label: string, value: string): string {
  return `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`;
}

function counts(d: ProtocolData): string[] {
  const rejected = d.verdict === "accepted" ? 0 : d.verdict === "partial" ? 1 : d.count;
  const accepted = Math.max(0, d.count - rejected);
  if (d.kind === "dec1_6") {
    return [
      row("Брой подадени записи", String(d.count)),
      row("Брой приети записи", String(accepted)),
      row("Брой отхвърлени записи", String(d.count - accepted)),
    ];
  }
  if (d.kind === "etz62" || d.kind === "etz123") {
    return [
      row("Общ брой вписани", String(accepted)),
      row("Общ брой невписани", String(d.count - accepted)),
    ];
  }
  return [];
}

function statusLine(d: ProtocolData): string {
  const subject = NOTICE_KINDS.has(d.kind) ? "Информацията" : "Декларацията";
  if (d.verdict === "rejected") return `${subject} е отхвърлена.`;
  if (d.verdict === "partial" && d.kind === "dec1_6") {
    return "Декларацията е приета частично: 1 запис е отхвърлен.";
  }
  return `${subject} е приета.`;
}

/**
 * The HTML protocol of a submission.
 *
 * Implements docs/test-portal.md § Submissions and results (rawBody, HTML).
 * @param d what to show
 * @returns a complete UTF-8 HTML page
 * @throws nothing
 */
export function protocolHtml(d: ProtocolData): string {
  const errors = d.verdict === "accepted" ? [] : [
    "Грешка: несъответствие между подадените данни и данните в регистрите на НАП " +
    "(тестов портал, специален ЕИК).",
  ];
  return [
    "<!DOCTYPE html>",
    '<html lang="bg">',
    '<head><meta charset="utf-8"><title>Протокол за резултат от обработката</title></head>',
    "<body>",
    "<h1>Национална агенция за приходите</h1>",
    `<h2>Протокол за резултат от обработката на ${escapeHtml(KIND_TITLES[d.kind])}</h2>`,
    "<table>",
    row("Входящ номер", d.incomeNumber),
    row("Дата и час на подаване", bulgarianTime(d.submittedAt)),
    row("Идентификатор на документа", d.documentId),
    row("Задължено лице", `${d.taxpayerName}, ЕИК ${d.eik}`),
    ...counts(d),
    "</table>",
    ...errors.map((e) => `<p class="error">${escapeHtml(e)}</p>`),
    `<p class="status"><strong>${escapeHtml(statusLine(d))}</strong></p>`,
    "<p>Документът е генериран от тестовия портал и не е подаден в НАП.</p>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
