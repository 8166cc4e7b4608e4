/**
 * One agent per computer, visibly: a second agent (another data folder) started on the usual
 * port of a first one takes the next port of the range, and its terminal, its Status page and
 * the banner of every console page say that another agent holds the usual port, name it
 * (version, user, data folder — this user's own process on Linux, so all are visible) and say
 * what to do; the first agent's console warns of the second (one too many) with the command
 * that stops it, and, once stopped that way, no more. Real processes, real Chromium.
 * Screenshots: docs/console-two-agents.png, docs/console-two-agents-first.png.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { launchChromium, skipBrowser, stopWithin } from "../_helpers/browser.ts";
import { freePort, MAIN, startAgent, startTokenService } from "../_helpers/e2e.ts";
import { VERSION } from "../../src/version.ts";
import { agentOpen } from "../_helpers/console_filing.ts";

Deno.test({
  name: "[browser] a second agent says, in the terminal and the console, who holds the usual port",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-two-agents-" });
    const browserP = launchChromium();
    const ts = await startTokenService(join(dir, "ts"));
    const usual = freePort();
    const first = await startAgent(join(dir, "first"), ts.url, {}, usual);
    const second = await startAgent(join(dir, "second"), ts.url, {}, usual);
    const browser = await browserP;
    try {
      equal(new URL(first.url).port, String(usual));
      const own = Number(new URL(second.url).port);
      ok(own > usual && own < usual + 10, second.url);
      const me = (await import("node:os")).userInfo().username;
      // The terminal: the warning in English, then in Bulgarian (two lines, two writes: wait
      // for both, the output may be read between them).
      const deadline = Date.now() + 10_000;
      const warned = () => second.stdout.filter((l) => l.startsWith("! ")).length;
      while (warned() < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const said = second.stdout.filter((l) => l.startsWith("! ")).join("\n");
      match(said, new RegExp(`Another agent on this computer holds the usual port ${usual}`));
      ok(said.includes(`version ${VERSION}`), said);
      ok(said.includes(`user ${me}`), said);
      ok(said.includes(`data folder ${join(dir, "first")}`), said);
      match(said, /Stop the other agent/);
      match(said, /Друг агент на този компютър държи обичайния порт/);
      // The first agent is alone on its port: it says nothing of the kind.
      ok(!first.stdout.some((l) => l.startsWith("! ")), first.stdout.join("\n"));

      // The console: on Status, and as the banner of every page.
      const page = await browser.context.newPage();
      await page.goto(await agentOpen(join(dir, "second")));
      await page.waitForSelector("#status");
      const banner = (await page.textContent("#agent-banner"))!;
      match(banner, new RegExp(`обичайния порт ${usual}`));
      ok(banner.includes(join(dir, "first")) && banner.includes(me), banner);
      match(banner, /Спрете другия агент/);
      ok(banner.includes(`agent stop --data-dir ${join(dir, "first")}`), banner);
      await page.screenshot({ path: "docs/console-two-agents.png", fullPage: true });
      await page.click("#nav-senders");
      await page.waitForSelector("#drop-zone");
      match((await page.textContent("#agent-banner"))!, /Спрете другия агент/);
      // The first agent's console warns too: the second is one too many, and how to stop it.
      const firstPage = await browser.context.newPage();
      await firstPage.goto(await agentOpen(join(dir, "first")));
      await firstPage.waitForSelector("#status");
      const firstBanner = (await firstPage.textContent("#agent-banner"))!;
      match(firstBanner, new RegExp(`Още един агент работи на този компютър, на порт ${own}`));
      ok(firstBanner.includes(`agent stop --data-dir ${join(dir, "second")}`), firstBanner);
      await firstPage.screenshot({ path: "docs/console-two-agents-first.png", fullPage: true });
      // Stopped as it says: the warning goes (looked for again after 5 s).
      const stopped = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "agent", "stop", "--data-dir", join(dir, "second")],
        env: { NO_COLOR: "1" },
      }).output();
      equal(stopped.code, 0, new TextDecoder().decode(stopped.stderr));
      equal((await second.child.status).code, 0);
      await new Promise((r) => setTimeout(r, 5_500));
      await firstPage.reload();
      await firstPage.waitForSelector("#status");
      equal(await firstPage.locator("#agent-banner").count(), 0);
    } finally {
      await browser.close();
      await stopWithin(second);
      await stopWithin(first);
      await stopWithin(ts);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
