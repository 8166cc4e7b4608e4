/**
 * A folder-wide filing watched from the console in Chromium (docs/console.md § Folder-wide
 * filings): a test-mode agent whose test portal takes 250 ms per filing files 24 companies'
 * D1/D6; the accountant's Filings page shows the batch with a progress bar that moves by
 * itself (the page's script reads the progress; the page is not reloaded), the company being
 * filed and the time left; when it ends, the batch's page lists each company's outcome and
 * offers them as CSV, and the batch's filings as an Excel workbook. Screenshots: docs/console-batch.png (running) and
 * docs/console-batch-outcome.png.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import readXlsxFile from "read-excel-file/universal";
import { launchChromium, skipBrowser } from "../_helpers/browser.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { agentOpen } from "../_helpers/console_filing.ts";

Deno.test({
  name:
    "[browser] console: a folder-wide filing's progress bar moves, then its outcomes per company",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-console-batch-" });
    const root = join(dir, "Клиенти");
    const eiks = await writeCompanyTree(root, 24, 2026, 9, 23_000_000);
    const browserP = launchChromium();
    const ts = await startTokenService(join(dir, "ts"));
    const agentDir = join(dir, "agent");
    const agent = await startAgent(agentDir, ts.url, {
      SVC_TEST_PORTAL_DELAY_MS: "250",
      SVC_BATCH_CONCURRENCY: "2",
    });
    const browser = await browserP;
    try {
      const key = await createKeyCli(join(dir, "ts"), "test");
      const page = await browser.context.newPage();
      await page.goto(await agentOpen(agentDir));
      await page.waitForSelector("#status");
      // The integrator's page starts the batch (20 listed of 24 found); the person confirms.
      const token = await issueToken(ts.url, key, {
        typeId: "dec1_6_batch",
        eiks: eiks.slice(0, 20),
      });
      const filing = fetch(`${agent.url}/api/v1/operations/dec1_6_batch`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-svc-batch-id": crypto.randomUUID(),
        },
        body: JSON.stringify({ rootFolder: root, year: 2026, month: 9 }),
      }).then((r) => r.json());
      await decideNext(agent, "confirm");
      await page.click("#nav-filings");
      await page.waitForSelector("#batches [data-state=running] progress");
      const value = async () => Number(await page.getAttribute("#batches progress", "value"));
      const first = await value();
      // The bar moves without a reload: the same document (its marker stays), a larger value.
      await page.evaluate("window.mark = 42");
      const until = Date.now() + 15_000;
      while ((await value()) <= first && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
      }
      ok((await value()) > first, `the bar moved from ${first}`);
      equal(await page.evaluate("window.mark"), 42, "the page was not reloaded");
      const status = (await page.textContent("#batches .status"))!;
      ok(/подава|filing/.test(status), status);
      ok(eiks.some((e) => status.includes(e)), `names the company: ${status}`);
      ok(/остават|left/.test((await page.textContent("#batches .left"))!));
      await page.screenshot({ path: "docs/console-batch.png", fullPage: true });
      // The end: the page reloads by itself and links the outcome per company.
      const result = await filing;
      equal(result.submitted, 20, JSON.stringify(result).slice(0, 300));
      await page.waitForSelector("#batches [data-state=done]", { timeout: 15_000 });
      await page.click("#batches a.button");
      await page.waitForSelector("#batch-outcomes");
      equal(await page.locator("#batch-outcomes tr.outcome-submitted").count(), 20);
      equal(await page.locator("#batch-outcomes tr.outcome-skipped").count(), 4);
      ok(!(await page.content()).includes(root), "no path on the page");
      await page.screenshot({ path: "docs/console-batch-outcome.png", fullPage: true });
      const href = (await page.getAttribute("#batch-csv", "href"))!;
      const csv = await (await page.context().request.get(new URL(href, page.url()).href)).text();
      equal(csv.split("\r\n")[0], "eik,company,outcome,errorCode,filingId,documentId");
      equal(csv.trim().split("\r\n").length, 25);
      // The batch's filings as the accountant's workbook (docs/console.md § Exports).
      const xlsxHref = (await page.getAttribute("#batch-filings-xlsx", "href"))!;
      const xlsx = await (await page.context().request.get(new URL(xlsxHref, page.url()).href))
        .body();
      const [sheet] = await readXlsxFile(new Blob([new Uint8Array(xlsx)]));
      const [head, ...rows] = sheet!.data;
      equal(rows.length, 20, "one row per company filed");
      const state = head!.indexOf("Състояние");
      ok(rows.every((r) => r[state] === "подадена"), JSON.stringify(rows[0]));
    } finally {
      await browser.close();
      await agent.stop();
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
