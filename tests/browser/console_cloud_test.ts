/**
 * A cloud sender on the console's Senders page in Chromium against the real agent and the CSC
 * simulator (docs/signing.md § Remote signing): the provider is picked from csc_providers.json,
 * "Sign in at the provider" goes to the provider's sign-in page and back through the agent's
 * callback, the credentials are shown with their certificate facts (holder, masked EGN, issuer),
 * one is added; after the provider revoked the sign-in, "Sign in again" seals a new one. A
 * declined sign-in says so. Screenshots: docs/console-senders-cloud.png and
 * docs/console-cloud-credentials.png.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { CSC_CLIENT_ID, CSC_PIN, cscBrowser, startCscWorld } from "../_helpers/csc.ts";
import { startAgent, startTokenService } from "../_helpers/e2e.ts";
import { agentOpen } from "../_helpers/console_filing.ts";
import { skipBrowser } from "../_helpers/browser.ts";
import { readAgentFile } from "../../src/agent/senders/mod.ts";

Deno.test({
  name:
    "[browser] console senders: a cloud signature signed in at the provider, added, signed in again",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-console-cloud-" });
    const csc = await startCscWorld(dir);
    const agentDir = join(dir, "agent");
    await Deno.mkdir(agentDir);
    await Deno.writeTextFile(
      join(agentDir, "csc_providers.json"),
      JSON.stringify([{
        name: "CSC simulator",
        serviceUrl: csc.sim.serviceUrl,
        clientId: CSC_CLIENT_ID,
        caFile: csc.caFile,
      }]),
    );
    const ts = await startTokenService(join(dir, "ts"));
    const agent = await startAgent(agentDir, ts.url, { DISPLAY: "", WAYLAND_DISPLAY: "" });
    const browser = await cscBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(await agentOpen(agentDir));
      await page.click("#nav-senders");
      await page.waitForSelector("#cloud-form");
      await page.selectOption("select[name=provider]", "CSC simulator");
      await page.screenshot({ path: "docs/console-senders-cloud.png", fullPage: true });

      // Declined at the provider: the page says so, nothing is added.
      await page.click("#cloud-sign-in");
      await page.click("#cloud-go");
      await page.click("#decline");
      await page.waitForSelector("#cloud-failed");
      await page.click("#cloud-continue");
      await page.waitForSelector("#cloud-form");

      await page.selectOption("select[name=provider]", "CSC simulator");
      await page.click("#cloud-sign-in");
      await page.click("#cloud-go");
      await page.click("#approve"); // the provider's sign-in page
      await page.waitForSelector("#cloud-signed-in");
      await page.click("#cloud-continue");
      await page.waitForSelector(".cloud-cred");
      equal(await page.locator(".cloud-cred").count(), 2);
      equal(await page.textContent(".cloud-cred .holder"), "Ivan Petrov");
      ok((await page.content()).includes("80******08"), "the EGN masked");
      ok(!(await page.content()).includes("8001010008"), "never the whole EGN");
      const host = new URL(csc.sim.serviceUrl).host;
      equal(
        (await page.textContent(".cloud-cred .where"))?.trim(),
        `облачен КЕП при CSC simulator (${host})`,
        "the Where column names the provider, not a dash",
      );
      await page.screenshot({ path: "docs/console-cloud-credentials.png", fullPage: true });
      await page.fill("input[name=displayName] >> nth=0", "Иван Петров (облачен КЕП)");
      await page.click(".add-cloud >> nth=0");
      const flash = (await page.textContent("#flash"))!;
      match(flash, /Иван Петров \(облачен КЕП\)/);
      const file = await readAgentFile(agentDir);
      equal(file.senders.length, 1);
      const ref = file.senders[0]!.keystore as Record<string, unknown>;
      equal(ref.type, "csc");
      equal(ref.certId, csc.sim.credentials.explicit);
      const sealed = await Deno.readTextFile(String(ref.tokenFile));
      equal(csc.sim.stats.signIns, 1);
      equal(
        (await page.textContent("#senders .sender-where"))?.trim(),
        `облачен КЕП при ${new URL(csc.sim.serviceUrl).host}`,
      );

      // The provider revoked the sign-in: "Sign in again" seals a new one in the same file.
      csc.sim.revokeAll();
      // The signature test says what to do, in words.
      await page.fill("#senders input[name=pin]", CSC_PIN);
      await page.click(".test-sender");
      const expired = (await page.textContent("#flash"))!;
      match(expired, /изтекъл или е отменен/);
      match(expired, /Влезте отново/);
      await page.click(".sign-in-again");
      await page.click("#cloud-go");
      await page.click("#approve");
      await page.waitForSelector("#cloud-signed-in");
      equal(csc.sim.stats.signIns, 2);
      ok((await Deno.readTextFile(String(ref.tokenFile))) !== sealed, "a new sign-in is kept");
      await page.click("#cloud-continue");
      await page.waitForSelector(".sign-in-again");
      // Signed in again: the signature test passes (signHash through the new sign-in).
      await page.fill("#senders input[name=pin]", CSC_PIN);
      await page.click(".test-sender");
      ok(
        (await page.getAttribute("#flash", "class"))?.includes("ok"),
        await page.textContent("#flash") ?? "",
      );
    } finally {
      await browser.close();
      await agent.stop();
      await ts.stop();
      await csc.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
