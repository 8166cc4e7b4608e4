/**
 * The example integrator page's month-end filing in Chromium: the page (its own origin, allowed in
 * agent.json) files the D1/D6 of a folder's companies with `dec1_6_batch` and shows a progress bar
 * from `watchBatch`, read with the token of the batch's own request from the page's origin; the
 * accountant confirms in the agent's page. Screenshot: docs/example-batch-progress.png.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { decide, skipBrowser, startExampleEnv } from "../_helpers/browser.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";

Deno.test({
  name: "[browser] the example page files a folder's D1/D6 and shows the batch's progress bar",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const env = await startExampleEnv({
      agentEnv: { SVC_TEST_PORTAL_DELAY_MS: "200", SVC_BATCH_CONCURRENCY: "2" },
    });
    const dir = await Deno.makeTempDir({ prefix: "svc-example-batch-" });
    try {
      const root = join(dir, "Клиенти");
      const eiks = await writeCompanyTree(root, 16, 2026, 9, 25_000_000);
      const page = await env.openExample();
      await page.fill("#batch-root", root);
      await page.fill("#batch-eiks", eiks.slice(0, 14).join(", "));
      await page.click("#run-batch");
      const confirm = await env.openConfirmation();
      equal((await confirm.textContent("#origin"))?.trim(), env.example.origin);
      await decide(confirm, "confirm");
      await confirm.close();
      // While it runs: the bar and the line follow the agent's progress.
      await page.waitForSelector("#batch-progress:has-text(', filing ')", { timeout: 15_000 });
      const line = (await page.textContent("#batch-progress"))!;
      ok(/of 16 companies/.test(line), line);
      ok(eiks.some((e) => line.includes(e)), `names the company being filed: ${line}`);
      await page.screenshot({ path: "docs/example-batch-progress.png", fullPage: true });
      const sel = "#result-batch:not([data-state=pending]):not([data-state=idle])";
      const result = await page.waitForSelector(sel, { timeout: 30_000 });
      equal(await result.getAttribute("data-state"), "ok", (await result.textContent())!);
      ok((await result.textContent())!.includes("14 filed, 2 skipped"));
      await page.waitForSelector("#batch-progress[data-state=done]", { timeout: 5_000 });
      equal(await page.getAttribute("#batch-bar", "value"), "16");
      ok(Number(await page.getAttribute("#batch-progress", "data-reads")) >= 3, "several reads");
    } finally {
      await env.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
