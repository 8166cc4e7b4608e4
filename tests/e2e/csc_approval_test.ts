/**
 * A cloud signature approved at the provider (`oauth2code`, docs/signing.md § Remote signing),
 * end to end in Chromium: after the accountant confirms a folder-wide filing, the agent opens its
 * page "Одобрете подписа в приложението на доставчика", which links to the provider's approval of
 * the batch's hashes and waits; when the provider allows fewer hashes per approval the page says
 * which part of how many it is; approved, the batch is filed with one signHash per part; declined
 * at the provider, nothing is sent (SENDER_NOT_CHOSEN). The page's screenshots are
 * docs/remote-approval.png and docs/remote-approval-part.png.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  addCscSenderWithBrowser,
  assertAdded,
  cscBrowser,
  startCscWorld,
} from "../_helpers/csc.ts";
import { afterConsent, decideOn, type LiveWorld, startLiveWorld } from "../_helpers/live_agent.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import { CHROMIUM } from "../_helpers/browser.ts";

const ignore = skipUnless(["openssl", CHROMIUM], "cloud signature approval in the browser");
const CLOUD = "cloud-app";

/** Confirm the next (two-step) page without a PIN, as the person at the machine. */
async function confirmNoPin(w: LiveWorld): Promise<void> {
  const log = await w.agent.waitLog("confirmation page opened", 20_000);
  const url = String(log.url);
  const html = await (await fetch(url)).text();
  ok(!html.includes('name="pin"'), "a credential approved at the provider asks no PIN");
  await decideOn(url, html, CLOUD, null);
  if (html.includes('id="pin-later"')) {
    const after = await afterConsent(url);
    equal(after.next, null, "no PIN step");
  }
}

/** Open the agent's approval page in the browser, as the default browser would. */
async function approvalPage(w: LiveWorld, page: Page): Promise<void> {
  const log = await w.agent.waitLog("remote approval page opened", 20_000);
  await page.goto(String(log.url));
  equal(
    (await page.textContent("#remote-wait"))?.trim(),
    "Одобрете подписа в приложението на доставчика",
  );
}

Deno.test({
  name:
    "[e2e] csc oauth2code: the agent's page sends the accountant to approve at the provider; one approval per part; declined means nothing is sent",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({ contract: true });
    const csc = await startCscWorld(w.dir);
    const browser = await cscBrowser();
    try {
      const added = await addCscSenderWithBrowser(w.agentDir, csc, [
        "--name",
        "Иван Петров (КЕП в приложение)",
        "--id",
        CLOUD,
        "--credential-id",
        csc.sim.credentials.oauth2code,
      ]);
      assertAdded(added, CLOUD);
      ok(added.stdout.includes("approved at the provider"), added.stdout);
      await w.restart();
      const root = join(w.dir, "clients");
      const eiks = await writeCompanyTree(root, 6, 2026, 9, 35_000_000);
      const page = await browser.context.newPage();
      const file = (list: string[]) =>
        w.file("dec1_6_batch", list, { rootFolder: root, year: 2026, month: 9 }, {
          "x-svc-batch-id": crypto.randomUUID(),
          "x-svc-sender-id": CLOUD,
        });

      // One approval for three companies' six files.
      const first = file(eiks.slice(0, 3));
      await confirmNoPin(w);
      await approvalPage(w, page);
      equal((await page.textContent("#remote-count"))?.trim(), "6 подписа за одобрение");
      equal(await page.locator("#remote-parts").count(), 0, "one approval: no parts");
      await page.screenshot({ path: "docs/remote-approval.png", fullPage: true });
      await page.click("#remote-open");
      await page.click("#approve"); // the provider's page
      await page.waitForSelector("#remote-approved");
      const r1 = await first;
      equal(r1.json.submitted, 3, JSON.stringify(r1.json).slice(0, 400));
      equal(csc.sim.stats.signHashCalls, 1);
      equal(csc.sim.stats.hashesSigned, 6);
      equal(csc.sim.stats.authorizations, 0, "approved at the provider, not with a PIN");

      // The provider allows 4 hashes per approval: six files take two, and the page says so.
      csc.sim.faults.maxHashes = 4;
      const second = file(eiks.slice(3, 6));
      await confirmNoPin(w);
      for (const part of [1, 2]) {
        await approvalPage(w, page);
        const parts = (await page.textContent("#remote-parts"))?.trim() ?? "";
        ok(parts.includes(`одобрение ${part} от 2`), parts);
        if (part === 1) {
          await page.screenshot({ path: "docs/remote-approval-part.png", fullPage: true });
        }
        await page.click("#remote-open");
        await page.click("#approve");
        await page.waitForSelector("#remote-approved");
      }
      const r2 = await second;
      equal(r2.json.submitted, 3, JSON.stringify(r2.json).slice(0, 400));
      equal(csc.sim.stats.signHashCalls, 3);

      // Declined at the provider: the batch is refused, nothing reaches the NRA.
      delete csc.sim.faults.maxHashes;
      const sent = w.sim.stats.submitCalls;
      const eiks2 = await writeCompanyTree(join(w.dir, "oct"), 2, 2026, 10, 36_000_000);
      const third = w.file(
        "dec1_6_batch",
        eiks2,
        { rootFolder: join(w.dir, "oct"), year: 2026, month: 10 },
        { "x-svc-batch-id": crypto.randomUUID(), "x-svc-sender-id": CLOUD },
      );
      await confirmNoPin(w);
      await approvalPage(w, page);
      await page.click("#remote-open");
      await page.click("#decline");
      await page.waitForSelector("#remote-declined");
      const r3 = await third;
      equal(r3.json.submitted, 0, JSON.stringify(r3.json).slice(0, 400));
      const codes = (r3.json.items as { errorCode: string }[]).map((i) => i.errorCode);
      ok(codes.every((c) => c === "SENDER_NOT_CHOSEN"), codes.join());
      equal(w.sim.stats.submitCalls, sent, "nothing was sent");
    } finally {
      await browser.close();
      await csc.stop();
      await w.stop();
    }
  },
});
