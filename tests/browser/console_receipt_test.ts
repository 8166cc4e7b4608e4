/**
 * A filing's receipt in Chromium (docs/console.md § A filing's receipt): an integrator files a
 * VAT return with its three files through the agent (test portal, real HTTP); the accountant
 * opens the Filings page, clicks the row and reads the receipt — company and declaration in
 * words, period, sender, who asked, each file's name and SHA-256, the incoming number, the
 * document id and the portal's protocol (read by the agent right after filing, shown in its
 * sandboxed frame), times local with their offset. A refused filing's receipt says what went
 * wrong and what to do. The print stylesheet hides the navigation and the buttons.
 * Screenshots: docs/console-receipt.png, docs/console-receipt-refused.png.
 */
import { equal, match, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { skipBrowser } from "../_helpers/browser.ts";
import { vatFiles } from "../_helpers/company_tree.ts";
import { agentOpen, fileVat, filingWorld, LOCAL_TIME } from "../_helpers/console_filing.ts";

Deno.test({
  name: "[browser] console: each filing opens its receipt, with the incoming number and protocol",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const eik = "121212121";
    const files = (await vatFiles(eik, 2026, 10))!;
    const w = await filingWorld("svc-console-receipt-", async (dir) => {
      await Deno.mkdir(join(dir, "vat-2026-10"));
      for (const [name, bytes] of files) {
        await Deno.writeFile(join(dir, "vat-2026-10", name), bytes);
      }
    });
    const { dir, agentDir, ts, agent, browser, key } = w;
    const folder = join(dir, "vat-2026-10");
    try {
      const filed = await fileVat(ts, agent, key, eik, folder);
      equal(filed.success, true, JSON.stringify(filed));
      const refused = await fileVat(ts, agent, key, "999999904", null);
      equal(refused.success, false, JSON.stringify(refused));

      const page = await browser.context.newPage();
      await page.goto(await agentOpen(agentDir));
      await page.click("#nav-filings");
      const row = page.locator(`#filings tr[data-state=filed]`);
      match((await row.locator("td").first().textContent())!, /\+0[23]:00/, "local time");
      await row.locator("a.receipt-link").click();
      await page.waitForSelector("#receipt[data-state=filed]");
      const text = async (sel: string) => (await page.textContent(sel))!.trim();
      match(await text("#r-declaration"), /Справка-декларация по ЗДДС/);
      ok((await text("#r-company")).includes(eik));
      equal(await text("#r-period"), "2026-10");
      match(await text("#r-sender"), /Тестов подател/);
      match(await text("#r-requested"), /тестов/);
      equal(await text("#r-incoming"), filed.incomeNumber);
      equal(await text("#r-document"), filed.documentId);
      match(await text("#r-submitted"), LOCAL_TIME);
      for (const [name, bytes] of files) {
        const cells = page.locator("#receipt-files tr", { hasText: name });
        equal(await cells.count(), 1, name);
        ok(
          (await cells.textContent())!.includes(createHash("sha256").update(bytes).digest("hex")),
          `${name}'s SHA-256`,
        );
      }
      match(await text("#files-sha256"), /^[0-9a-f]{64}$/);
      // The protocol: kept by the agent right after filing, framed sandboxed.
      const frame = page.frameLocator("#protocol");
      await frame.locator("body").waitFor();
      ok((await frame.locator("body").textContent())!.includes(String(filed.incomeNumber)));
      // A full-page capture leaves the sandboxed frame (another process) blank: the window is
      // made as tall as the page instead.
      const height = await page.evaluate<number>("document.documentElement.scrollHeight");
      await page.setViewportSize({ width: 1280, height });
      await page.waitForTimeout(300);
      await page.screenshot({ path: "docs/console-receipt.png" });
      await page.setViewportSize({ width: 1280, height: 800 });
      // Printed: no navigation, no buttons.
      await page.emulateMedia({ media: "print" });
      equal(await page.isVisible("nav"), false);
      equal(await page.isVisible("#print"), false);
      ok(await page.isVisible("#r-incoming"));
      await page.emulateMedia({ media: "screen" });

      // The refused one: the NRA's words and what to do, no protocol.
      await page.click("#back");
      await page.locator(`#filings tr[data-state=refused] a.receipt-link`).click();
      await page.waitForSelector("#receipt[data-state=refused]");
      match(await text("#r-answer"), /няма право да подава/);
      match(await text("#next-step"), /подайте отново/);
      ok(await page.isVisible("#no-protocol"));
      await page.screenshot({ path: "docs/console-receipt-refused.png", fullPage: true });

      // The same receipt in English, through the switch; the NRA's own words stay as given.
      await page.click("#lang-switch");
      await page.waitForSelector('html[lang="en"]');
      await page.waitForSelector("#receipt[data-state=refused]");
      match(await text("#r-declaration"), /^VAT return$/);
      match(await text("#next-step"), /file again/);
      ok(!/[А-Яа-я]/.test(await text("#next-step")), "the next step in English only");
      match(await text("#r-answer"), /^refused/);
      await page.screenshot({ path: "docs/console-receipt-en.png", fullPage: true });
      await page.click("#lang-switch");
      await page.waitForSelector('html[lang="bg"]');

      // An id the journal does not hold: a page in words, 404.
      const missing = await page.goto(new URL("/console/filings/nope", page.url()).href);
      equal(missing!.status(), 404);
      ok(await page.isVisible("#no-receipt"));
    } finally {
      await w.close();
    }
  },
});
