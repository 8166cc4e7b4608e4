/**
 * A folder-wide filing the agent was killed in, in the console in Chromium (docs/console.md
 * § Interrupted batches): a test-mode agent files 10 companies one at a time, 300 ms each; it
 * is SIGKILLed after a few, started again, and the accountant's Filings page shows the batch
 * interrupted with how many companies are not filed yet; its page lists exactly those (the
 * journal holds the others as filed) and says how to resend only them. Screenshots:
 * docs/console-filings-interrupted.png and docs/console-batch-interrupted.png.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
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

const N = 10;
const ENV = { SVC_TEST_PORTAL_DELAY_MS: "300", SVC_BATCH_CONCURRENCY: "1" };

Deno.test({
  name:
    "[browser] console: a batch the agent was killed in shows interrupted, with the companies not filed",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-console-interrupted-" });
    const root = join(dir, "Клиенти");
    const eiks = await writeCompanyTree(root, N, 2026, 9, 24_000_000);
    const browserP = launchChromium();
    const ts = await startTokenService(join(dir, "ts"));
    const agentDir = join(dir, "agent");
    let agent = await startAgent(agentDir, ts.url, ENV);
    const browser = await browserP;
    try {
      const key = await createKeyCli(join(dir, "ts"), "test");
      const token = await issueToken(ts.url, key, { typeId: "dec1_6_batch", eiks });
      const filing = fetch(`${agent.url}/api/v1/operations/dec1_6_batch`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-svc-batch-id": crypto.randomUUID(),
        },
        body: JSON.stringify({ rootFolder: root, year: 2026, month: 9 }),
      }).then((r) => r.body?.cancel(), () => null);
      await decideNext(agent, "confirm");
      // A few companies filed (300 ms each), then the agent is killed.
      await new Promise((r) => setTimeout(r, 1500));
      agent.child.kill("SIGKILL");
      await agent.child.status;
      await filing;
      agent = await startAgent(agentDir, ts.url, ENV);
      const page = await browser.context.newPage();
      await page.goto(await agentOpen(agentDir));
      await page.waitForSelector("#status");
      await page.click("#nav-filings");
      await page.waitForSelector("#batches [data-state=interrupted]");
      const status = (await page.textContent("#batches [data-state=interrupted] .status"))!;
      const m = /(\d+) от (\d+) фирми още не са подадени/.exec(status);
      ok(m, status);
      const left = Number(m![1]);
      equal(Number(m![2]), N);
      ok(left > 0 && left < N, `killed mid-batch: ${left} left`);
      await page.screenshot({ path: "docs/console-filings-interrupted.png", fullPage: true });
      // The batch's page: exactly those companies, and how to file only them.
      await page.click("#batches [data-state=interrupted] a.button");
      await page.waitForSelector("#batch-remaining");
      const listed = await page.locator("#batch-remaining td.mono").allTextContents();
      equal(listed.length, left);
      ok(listed.every((e) => eiks.includes(e)));
      ok((await page.textContent("#batch-resend-how"))!.includes("изпратете същото подаване"));
      ok(!(await page.content()).includes(root), "no path on the page");
      await page.screenshot({ path: "docs/console-batch-interrupted.png", fullPage: true });
    } finally {
      await browser.close();
      await agent.stop();
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
