/**
 * The two steps of a live filing from paths on the disk, in Chromium (docs/confirmation.md
 * § Two steps): the NRA simulator, the token service and the agent as real programs, the
 * sender's key in a PKCS#12 file. A wrong file: the consent page has no PIN field; after the
 * click the page says, in Bulgarian and English, that the file is not the declaration and what
 * to do, never shows a PIN field, and the simulator sees nothing. The right files: the consent,
 * then the same tab moves to the PIN step, which shows the company, period, files and what they
 * declare; the PIN typed there signs and files. Saves docs/confirmation-consent.png,
 * docs/confirmation-pin.png and docs/confirmation-check-failed.png (when SVC_UPDATE_SCREENSHOTS=1
 * or when missing).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium, pngSize, skipBrowser } from "../_helpers/browser.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { validEik } from "../_helpers/company_tree.ts";
import { P12_PIN, startLiveWorld } from "../_helpers/live_agent.ts";

/** Save a screenshot into docs/ when asked or missing (else to a temporary file). */
async function shot(page: Page, name: string): Promise<void> {
  const file = new URL(`../../docs/${name}.png`, import.meta.url);
  const exists = await Deno.stat(file).then(() => true, () => false);
  const committed = Deno.env.get("SVC_UPDATE_SCREENSHOTS") === "1" || !exists;
  const path = committed ? file.pathname : await Deno.makeTempFile({ suffix: ".png" });
  await page.screenshot({ path, fullPage: true });
  equal(pngSize(await Deno.readFile(path)).width, 1280);
  if (!committed) await Deno.remove(path);
}

/** Every PIN field the tab ever showed (checked on each page it loads). */
function watchPinFields(page: Page): { seen: string[] } {
  const seen: string[] = [];
  page.on("load", async () => {
    const n = await page.locator('input[name="pin"]').count().catch(() => 0);
    if (n > 0) seen.push(page.url());
  });
  return { seen };
}

Deno.test({
  name:
    "[browser] live filing from the disk: consent first, the file checked, then the PIN step; a wrong file is refused on the page with no PIN asked",
  ignore: skipBrowser() || skipUnless(["openssl"], "live-mode browser tests"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const w = await startLiveWorld();
    const browser = await launchChromium();
    const eik = validEik(30_300_000);
    const openPage = async () => {
      const url = String((await w.agent.waitLog("confirmation page opened", 20_000)).url);
      const page = await browser.context.newPage();
      await page.goto(url);
      return page;
    };
    try {
      const right = await w.payroll(eik);

      await t.step("a D6 named as the D1: refused on the page, no PIN field ever", async () => {
        const pending = w.file("dec1_6", eik, {
          year: 2026,
          month: 9,
          dec1FilePath: right.dec6FilePath,
          dec6FilePath: right.dec1FilePath,
        }, { "x-svc-batch-id": crypto.randomUUID() });
        const page = await openPage();
        const pins = watchPinFields(page);
        await page.waitForSelector("#pin-later");
        equal(await page.locator('input[name="pin"]').count(), 0);
        await page.click("#confirm:enabled");
        await page.waitForSelector('#failed [data-error-code="FILE_KIND_MISMATCH"]');
        const text = await page.textContent("#after");
        ok(text!.includes("Файлът не е декларацията, която се подава."), text!);
        ok(!text!.includes("The file is not the declaration being filed."), "one language");
        ok(text!.includes("ПИН код не е поискан"), text!);
        ok(text!.includes("Изберете правилния файл"), text!);
        ok(text!.includes("Подробности"), "the agent's own words, for support");
        await shot(page, "confirmation-check-failed");
        const r = await pending;
        deepStrictEqual([r.status, r.json.errorCode], [502, "FILE_KIND_MISMATCH"]);
        deepStrictEqual(pins.seen, [], "no page of the tab showed a PIN field");
        equal(await page.locator('input[name="pin"]').count(), 0);
        deepStrictEqual(
          [w.sim.stats.tokenRequests, w.sim.stats.submitCalls],
          [0, 0],
          "the simulator saw nothing",
        );
        await page.close();
      });

      await t.step(
        "the right files: consent, then the PIN step in the same tab, filed",
        async () => {
          const pending = w.file("dec1_6", eik, { year: 2026, month: 9, ...right }, {
            "x-svc-batch-id": crypto.randomUUID(),
          });
          const page = await openPage();
          await page.waitForSelector("#pin-later");
          ok((await page.textContent("#step"))!.includes("Стъпка 1 от 2"));
          equal(await page.locator('input[name="pin"]').count(), 0);
          await page.waitForSelector("#confirm:enabled");
          await shot(page, "confirmation-consent");
          const consentUrl = page.url();
          await page.click("#confirm");
          await page.waitForSelector('#step[data-step="pin"]');
          ok(page.url() !== consentUrl, "the tab moved to the PIN step");
          const what = (await page.textContent("#what"))!;
          ok(what.includes(eik), what);
          ok(what.includes("2026-09"), what);
          ok(what.includes("EMPL2021.TXT") && what.includes("NRA62007.TXT"), what);
          ok(await page.locator('[data-figure="employees"]').count() > 0, "what the D1 declares");
          await page.fill("#pin", P12_PIN);
          await page.waitForSelector("#confirm:enabled");
          await shot(page, "confirmation-pin");
          await page.click("#confirm");
          await page.waitForSelector("#result[data-decision=confirm]");
          const r = await pending;
          equal(r.json.success, true, JSON.stringify(r.json));
          equal(w.sim.stats.submitCalls, 1);
          await page.close();
        },
      );
    } finally {
      await browser.close();
      await w.stop();
    }
  },
});
