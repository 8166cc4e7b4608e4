/**
 * The VAT cross-checks (docs/formats.md § VAT cross-checks) in Chromium, against the real token
 * service and agent: a VAT return sent inline (the caller's own bytes, read before the page) whose
 * DEKLAR declares intra-EU supplies while its VIES.TXT has no VIR line shows the cross-check
 * warnings on the confirmation page — in Bulgarian, the English beside — before anything is filed;
 * confirming still files it (warnings do not stop a filing). A consistent set shows no warnings.
 * The page names the return as accountants do, the company as its DEKLAR.TXT does, and shows the
 * VAT payable (DEKLAR 01-50, in the period's currency) and the ledgers' records. Saves
 * docs/confirmation-warnings.png (when SVC_UPDATE_SCREENSHOTS=1 or when it is missing).
 */
import { equal, ok } from "node:assert/strict";
import {
  decide,
  type ExampleEnv,
  pngSize,
  skipBrowser,
  startExampleEnv,
} from "../_helpers/browser.ts";
import { issueToken } from "../_helpers/e2e.ts";
import { fixtureBytes } from "../formats/_helpers.ts";
import { parseDeklar, parsePokupki, parseProdagbi } from "../../src/formats/mod.ts";

const EIK = "203456783"; // the filer of the fixtures' VAT set (fixtures/formats)
const SCREENSHOT = new URL("../../docs/confirmation-warnings.png", import.meta.url);

/** File the fixtures' VAT return of 2026-08 inline, with `vies` as its VIES.TXT. */
async function fileVat(env: ExampleEnv, vies: Uint8Array) {
  const files = {
    "DEKLAR.TXT": await fixtureBytes("deklar/DEKLAR.TXT"),
    "POKUPKI.TXT": await fixtureBytes("pokupki/POKUPKI.TXT"),
    "PRODAGBI.TXT": await fixtureBytes("prodagbi/PRODAGBI.TXT"),
    "VIES.TXT": vies,
  };
  const token = await issueToken(env.ts.url, env.key, { typeId: "vat", eik: EIK });
  const res = await fetch(`${env.agent.url}/api/v1/operations/vat`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": crypto.randomUUID(),
    },
    body: JSON.stringify({
      eik: EIK,
      year: 2026,
      month: 8,
      _inlineDir: {
        name: "2026-08",
        files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
      },
    }),
  });
  return { status: res.status, json: await res.json() };
}

Deno.test({
  name: "[browser] the confirmation page shows the DEKLAR ↔ VIES warnings in Bulgarian and English",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const env = await startExampleEnv();
    try {
      await t.step(
        "[browser] a VIES without VIR lines: warnings before filing (screenshot)",
        async () => {
          const filing = fileVat(env, await fixtureBytes("vies/VIES_NO_VIR.TXT"));
          const page = await env.openConfirmation();
          const text = await page.innerText("#warnings");
          ok(text.includes("Предупрежденията не спират подаването"), text);
          for (
            const s of [
              // (the files are named by their paths; inline ones under "inline/")
              "DEKLAR 01-15 (ВОД на стоки) е 3100.55, а inline/VIES.TXT няма нито един ред VIR за периода",
              "DEKLAR 01-17 (услуги по чл. 21, ал. 2) е 750.00",
              "PRODAGBI ред 4: вътреобщностните доставки за DE811907980",
            ]
          ) ok(text.includes(s), `the page shows "${s}":\n${text}`);
          ok(!text.includes("intra-EU supplies of goods"), "one language at a time");
          equal(await page.locator("#warnings .warning").count(), 3);
          // The return as accountants call it, the company as DEKLAR.TXT names it.
          equal((await page.innerText("#operations")).trim(), "Справка-декларация по ЗДДС");
          equal(
            (await page.innerText(`#eiks .company[data-eik="${EIK}"]`)).trim(),
            `${EIK} — ЕКО ТРЕЙД ООД (от файла)`,
          );
          // What DEKLAR.TXT and the ledgers declare: 2026-08 is in euro.
          const deklar = parseDeklar(await fixtureBytes("deklar/DEKLAR.TXT"));
          const figure = async (k: string) =>
            (await page.innerText(`[data-figure="${k}"]`)).replace(/\s+/g, " ").trim();
          const payable = deklar.vatPayable!.toFixed(2).replace(".", ",");
          equal(await figure("vatPayable"), `ДДС за внасяне ${payable} EUR`);
          equal(await page.locator('[data-figure="vatRefundable"]').count(), 0);
          const purchases = parsePokupki(await fixtureBytes("pokupki/POKUPKI.TXT")).length;
          const sales = parseProdagbi(await fixtureBytes("prodagbi/PRODAGBI.TXT")).length;
          equal(
            await figure("purchaseRecords"),
            `Дневник за покупките ${purchases} записа`,
          );
          equal(
            await figure("salesRecords"),
            `Дневник за продажбите ${sales} записа`,
          );
          equal((await page.innerText("#periods")).trim(), "2026-08");
          await page.waitForSelector("#confirm:enabled");
          const exists = await Deno.stat(SCREENSHOT).then(() => true, () => false);
          const committed = Deno.env.get("SVC_UPDATE_SCREENSHOTS") === "1" || !exists;
          const path = committed
            ? SCREENSHOT.pathname
            : await Deno.makeTempFile({ suffix: ".png" });
          await page.screenshot({ path, fullPage: true });
          equal(pngSize(await Deno.readFile(path)).width, 1280);
          if (!committed) await Deno.remove(path);
          // The switch: the same warnings and figures in English.
          await page.click("#lang-switch");
          await page.waitForSelector('html[lang="en"]');
          const en = await page.innerText("#warnings");
          ok(
            en.includes(
              "DEKLAR 01-15 (intra-EU supplies of goods) is 3100.55 but inline/VIES.TXT has no VIR line for the period",
            ),
            en,
          );
          ok(!/[А-Яа-я]{4}/.test(en.replace(/ЕКО ТРЕЙД ООД/g, "")), `English only:\n${en}`);
          equal((await page.innerText("#operations")).trim(), "VAT return");
          equal(await figure("vatPayable"), `VAT payable ${payable} EUR`);
          equal(await figure("purchaseRecords"), `Purchase ledger ${purchases} records`);
          await page.click("#lang-switch");
          await page.waitForSelector('html[lang="bg"]');
          await page.waitForSelector("#confirm:enabled");
          await decide(page, "confirm");
          const r = await filing;
          equal(r.status, 200, JSON.stringify(r.json));
          equal(r.json.success, true, "warnings do not stop the filing");
          await page.close();
        },
      );
      await t.step("[browser] a consistent VAT set: no warnings row", async () => {
        const filing = fileVat(env, await fixtureBytes("vies/VIES.TXT"));
        const page = await env.openConfirmation();
        equal(await page.locator("#warnings").count(), 0);
        await decide(page, "decline");
        equal((await filing).json.errorCode, "SENDER_NOT_CHOSEN");
        await page.close();
      });
    } finally {
      await env.stop();
    }
  },
});
