/**
 * What the confirmation page shows of files already read (inline input): the company's name
 * from DEKLAR.TXT (00-02) and the D6 (field 2), the VAT payable or refundable (01-50 / 01-60)
 * in the period's currency, the ledgers' records, D1 insured persons and D6 contributions; and
 * how the page renders them — an EIK without a known name alone, no batch, the annual D6.
 */
import { withLang } from "../../src/agent/texts/mod.ts";
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  parseD1,
  parseD6,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
} from "../../src/formats/mod.ts";
import { OPERATIONS, type SubmissionOperation } from "../../src/contract/mod.ts";
import { readSubmissionFiles } from "../../src/agent/local/submission_files.ts";
import { currencyOfPeriod, payrollFigures } from "../../src/agent/local/figures.ts";
import {
  type ConfirmSubject,
  type Dialog,
  FAVICON_HREF,
  formatAmount,
  renderConfirmPage,
} from "../../src/agent/confirm/mod.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

const sub = (typeId: string) =>
  OPERATIONS.find((o) => o.typeId === typeId && o.family === "submission") as SubmissionOperation;

const inlineDir = (files: Record<string, Uint8Array>) => ({
  path: null,
  inlineDir: {
    name: "inline",
    files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
  },
});

/** Sum to the cent, as the agent does. */
const cents = (xs: (number | null)[]) =>
  xs.reduce<number>((n, x) => n + Math.round((x ?? 0) * 100), 0) / 100;

Deno.test("[agent] a VAT return's files: name, payable VAT in the period's currency, ledger records", async () => {
  const bytes = {
    "DEKLAR.TXT": await fixtureBytes("deklar/DEKLAR.TXT"),
    "POKUPKI.TXT": await fixtureBytes("pokupki/POKUPKI.TXT"),
    "PRODAGBI.TXT": await fixtureBytes("prodagbi/PRODAGBI.TXT"),
  };
  const f = await readSubmissionFiles(sub("vat"), { year: 2026, month: 8 }, inlineDir(bytes));
  const d = parseDeklar(bytes["DEKLAR.TXT"]);
  deepStrictEqual(f.companies, [{ eik: "203456783", name: "ЕКО ТРЕЙД ООД", source: "file" }]);
  deepStrictEqual(f.figures, {
    kind: "vat",
    eik: "203456783",
    period: "202608",
    currency: "EUR",
    payable: d.vatPayable,
    refundable: d.vatRefundable,
    purchaseRecords: parsePokupki(bytes["POKUPKI.TXT"]).length,
    salesRecords: parseProdagbi(bytes["PRODAGBI.TXT"]).length,
  });
});

Deno.test("[agent] declarations 1 and 6: employer's name, insured persons, contributions and tax", async () => {
  const d1b = await fixtureBytes("d1/EMPL2021.TXT");
  const d6b = await fixtureBytes("d6/NRA62007.TXT");
  const f = await readSubmissionFiles(
    sub("dec1_6"),
    { year: 2026, month: 8, eik: "203456783" },
    inlineDir({ "EMPL2021.TXT": d1b, "NRA62007.TXT": d6b }),
  );
  const d1 = parseD1(d1b);
  deepStrictEqual(f.companies, [{ eik: "203456783", name: "ЕКО ТРЕЙД ООД", source: "file" }]);
  deepStrictEqual(f.figures, {
    kind: "payroll",
    eik: "203456783",
    period: "202608",
    currency: "EUR",
    employees: new Set(d1.map((r) => r.personId)).size,
    insurableIncome: cents(d1.map((r) => r.insurableIncome)),
    // Block 1 of the fixture's two records: DOO 1630.84, UPF 299.07, health 596.06, GVRS 7.47;
    // the second record pays the tax, 612.69.
    contributions: 2533.44,
    incomeTax: 612.69,
  });
  // A D6 alone: no insured persons (they are in the D1), its contributions.
  const only6 = payrollFigures("203456783", "202613", null, parseD6(d6b));
  equal(only6.employees, null);
  equal(only6.insurableIncome, null);
  equal(only6.contributions, 2533.44);
  equal(only6.currency, "EUR");
});

Deno.test("[agent] the period decides the currency: BGN up to 2025-12, EUR from 2026-01", () => {
  equal(currencyOfPeriod("202512"), "BGN");
  equal(currencyOfPeriod("202513"), "BGN");
  equal(currencyOfPeriod("202601"), "EUR");
  equal(currencyOfPeriod(null), null);
  equal(formatAmount(1234.5, "EUR").replace(/\s/g, " "), "1 234,50 EUR");
  equal(formatAmount(null, "BGN"), "0,00 BGN");
});

function dialog(subject: Partial<ConfirmSubject>): Dialog {
  const s: ConfirmSubject = {
    batchId: null,
    senderId: null,
    typeId: "debt_payments",
    filing: null,
    summary: "Debts and payments by year and type",
    eiks: ["121212121"],
    period: null,
    files: [],
    documents: null,
    integratorId: "i",
    integratorName: "Integrator",
    origin: null,
    mode: "live",
    ...subject,
  };
  return {
    id: "d",
    nonce: "n",
    integratorId: "i",
    createdAt: 0,
    expiresAt: 300_000,
    subjects: [s],
    version: 1,
    senders: [{ id: "s", displayName: "Sender" }],
    preselected: "s",
    state: "pending",
    nonceUsed: false,
    done: Promise.resolve({ senderId: "s", pin: null }),
    resolve() {},
    reject() {},
  };
}

Deno.test("[agent] the page: an EIK without a known name alone, no batch, the name not the typeId", () => {
  const html = renderConfirmPage(dialog({}), 0);
  match(
    html,
    /<div class="company" data-eik="121212121"><span class="eik">121212121<\/span><\/div>/,
  );
  match(html, /Задължения и плащания/);
  // One language at a time: Bulgarian by default, English on the switch.
  ok(!html.includes("Debts and payments"));
  const en = withLang("en", () => renderConfirmPage(dialog({}), 0));
  match(en, /Debts and payments/);
  ok(!en.includes("Задължения и плащания"));
  match(en, /<html lang="en">/);
  match(en, /covers this request only/);
  ok(!html.includes(">debt_payments"), "the typeId is not shown");
  ok(!html.includes("Debts and payments by year and type"), "nor the technical summary");
  match(html, /без партида/);
  match(html, /важи само за тази заявка/);
  match(html, /<link rel="icon" type="image\/svg\+xml" href="data:image\/svg\+xml,/);
  ok(FAVICON_HREF.startsWith("data:image/svg+xml,"));
});

const vatFigures = {
  kind: "vat",
  eik: "121212121",
  period: "202512",
  currency: "BGN",
  payable: 0,
  refundable: 1500,
  purchaseRecords: 1,
  salesRecords: 0,
} as const;

Deno.test("[agent] the page: a refund, and D6-only figures without insured persons", () => {
  const vat = renderConfirmPage(
    dialog({
      typeId: "vat",
      batchId: "0f1e2d3c-4b5a-4697-8877-665544332211",
      figures: vatFigures,
    }),
    0,
  );
  match(vat, /ДДС за възстановяване/);
  match(vat, /1\s500,00 BGN/);
  ok(!vat.includes("ДДС за внасяне"));
  match(vat, />1 запис</);
  match(vat, />0 записа</);
  const en = withLang(
    "en",
    () => renderConfirmPage(dialog({ typeId: "vat", figures: vatFigures }), 0),
  );
  match(en, />1 record</);
  match(en, />0 records</);
  match(
    vat,
    /<code class="batch" id="batch" title="0f1e2d3c-4b5a-4697-8877-665544332211">0f1e2d3c<\/code>/,
  );
  const d6 = renderConfirmPage(
    dialog({
      typeId: "dec1_6",
      figures: {
        kind: "payroll",
        eik: "121212121",
        period: "202613",
        currency: "EUR",
        employees: null,
        insurableIncome: null,
        contributions: 10,
        incomeTax: 2,
      },
    }),
    0,
  );
  ok(!d6.includes('data-figure="employees"'));
  match(d6, /data-figure="contributions"/);
  match(d6, /10,00 EUR/);
});
