/**
 * After "Confirm" the confirmation page follows the filing (docs/confirmation.md § After
 * Confirm), in Chromium against the real agent and token service: a VAT return is filed, the
 * page the person confirmed on shows "filed, incoming no. …" with a link that opens the
 * filing's receipt in the console; a refused one shows the NRA's words and what to do.
 * Screenshots: docs/confirmation-followed.png, docs/confirmation-followed-refused.png.
 */
import { equal, match, ok } from "node:assert/strict";
import { decide, skipBrowser } from "../_helpers/browser.ts";
import { agentOpen, fileVat, filingWorld } from "../_helpers/console_filing.ts";
import type { Proc } from "../_helpers/e2e.ts";

/** A VAT return filed over HTTP; its confirmation page is opened and confirmed in `page`. */
function fileAndConfirm(
  ts: Proc,
  agent: Proc,
  key: string,
  eik: string,
  page: import("playwright-core").Page,
): Promise<Record<string, unknown>> {
  return fileVat(ts, agent, key, eik, null, async () => {
    const log = await agent.waitLog("confirmation page opened", 15_000);
    await page.goto(String(log.url));
    await decide(page, "confirm");
  });
}

Deno.test({
  name: "[browser] confirmation: after Confirm the page follows the filing to its receipt",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await filingWorld("svc-confirm-follow-");
    const { agentDir, ts, agent, browser, key } = w;
    try {
      // The accountant has the console open (its session cookie is in this browser).
      const consolePage = await browser.context.newPage();
      await consolePage.goto(await agentOpen(agentDir));

      const page = await browser.context.newPage();
      const filed = await fileAndConfirm(ts, agent, key, "121212121", page);
      equal(filed.success, true, JSON.stringify(filed));
      await page.waitForSelector("#follow[data-state=done]");
      const item = page.locator("#follow-list li");
      equal(await item.count(), 1);
      const text = (await item.textContent())!;
      ok(text.includes(`входящ № ${filed.incomeNumber}`), text);
      equal(await item.getAttribute("class"), "ok");
      ok(await page.isVisible("#follow-note"), "it says the tab can be closed");
      await page.screenshot({ path: "docs/confirmation-followed.png", fullPage: true });
      const [receipt] = await Promise.all([
        browser.context.waitForEvent("page"),
        item.locator("a.receipt-link").click(),
      ]);
      await receipt.waitForSelector("#receipt[data-state=filed]");
      equal((await receipt.textContent("#r-incoming"))!.trim(), filed.incomeNumber);
      await receipt.close();

      const refused = await fileAndConfirm(ts, agent, key, "999999904", page);
      equal(refused.success, false);
      await page.waitForSelector("#follow[data-state=done]");
      const no = (await page.locator("#follow-list li").textContent())!;
      match(no, /отказана\. .*няма право да подава.* подайте отново/);
      equal(await page.locator("#follow-list li").getAttribute("class"), "bad");
      await page.screenshot({ path: "docs/confirmation-followed-refused.png", fullPage: true });
    } finally {
      await w.close();
    }
  },
});
