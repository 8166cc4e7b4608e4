/**
 * Stop and restart, as the accountant meets them (docs/console.md § Stopping the agent,
 * § Opening the console; docs/cli.md § agent stop), with real processes and real Chromium: the
 * console's "Stop the agent" asks, then the agent process ends cleanly (exit 0, lock released);
 * after the restart on the same port the old tab's page says the session is gone, how to open
 * the console, and its button has the agent open a fresh link — through the system's browser
 * opener (a recording `xdg-open` first on PATH) — that lands on the page asked for; then
 * `agent stop` stops the restarted agent. Screenshots: docs/console-stop.png,
 * docs/console-how-to-open.png.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { launchChromium, skipBrowser, stopWithin } from "../_helpers/browser.ts";
import { freePort, MAIN, type Proc, startAgent, startTokenService } from "../_helpers/e2e.ts";
import { agentOpen } from "../_helpers/console_filing.ts";

/** A process's exit within `ms`, or a failure. */
async function exitWithin(p: Proc, ms: number): Promise<Deno.CommandStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the agent did not stop")), ms);
  });
  try {
    return await Promise.race([p.child.status, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The first URL the recording browser opener was given after `seen` lines. */
async function openedUrl(file: string, seen: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const lines = (await Deno.readTextFile(file).catch(() => "")).split("\n").filter(Boolean);
    if (lines.length > seen) return lines[seen]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the agent opened no browser tab");
}

Deno.test({
  name: "[browser] stop from the console, restart, the old tab leads back in; `agent stop`",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-stop-" });
    const bin = join(dir, "bin"), opened = join(dir, "opened.txt");
    await Deno.mkdir(bin);
    await Deno.writeTextFile(join(bin, "xdg-open"), `#!/bin/sh\necho "$1" >> '${opened}'\n`, {
      mode: 0o755,
    });
    const env = { SVC_OPEN_BROWSER: "auto", PATH: `${bin}:${Deno.env.get("PATH")}` };
    const data = join(dir, "agent");
    const port = freePort();
    const browserP = launchChromium();
    const ts = await startTokenService(join(dir, "ts"));
    let agent = await startAgent(data, ts.url, env, port);
    const browser = await browserP;
    try {
      const page = await browser.context.newPage();
      await page.goto(await agentOpen(data));
      await page.click("#stop-agent");
      await page.waitForSelector("#stop-question");
      match(
        (await page.textContent("#stop-question"))!,
        /довърши подаванията.*svc-filing agent|main\.ts agent/s,
      );
      await page.screenshot({ path: "docs/console-stop.png", fullPage: true });
      // Cancel keeps it running.
      await page.click("#stop-cancel");
      await page.waitForSelector("#status");
      await page.click("#stop-agent");
      await page.click("#stop-confirm");
      await page.waitForSelector("#stopping");
      const st = await exitWithin(agent, 15_000);
      equal(st.code, 0, "a clean stop");
      ok(agent.logs.some((l) => l.msg === "console stop"), JSON.stringify(agent.logs));
      ok(agent.logs.some((l) => l.msg === "shutting down: finishing running requests"));
      await Deno.stat(join(data, "agent.lock")).then(
        () => ok(false, "the lock is released"),
        (e) => ok(e instanceof Deno.errors.NotFound),
      );

      // Restarted on the same port: the old tab's next page.
      agent = await startAgent(data, ts.url, env, port);
      equal(new URL(agent.url).port, String(port));
      await page.goto(`${agent.url}/console/filings?state=unknown`);
      await page.waitForSelector("#how-to-open");
      match((await page.textContent("#why"))!, /агентът е стартиран отново/);
      match((await page.textContent("#open-words"))!, /agent open в терминал/);
      await page.screenshot({ path: "docs/console-how-to-open.png", fullPage: true });
      const before = (await Deno.readTextFile(opened).catch(() => "")).split("\n").filter(Boolean);
      await page.click("#reopen");
      await page.waitForSelector("#flash");
      const link = await openedUrl(opened, before.length);
      match(link, /\/console\/open\?code=.*&next=%2Fconsole%2Ffilings/);
      const tab = await browser.context.newPage();
      await tab.goto(link);
      equal(
        new URL(tab.url()).pathname + new URL(tab.url()).search,
        "/console/filings?state=unknown",
      );
      equal(await tab.getAttribute("body", "data-page"), "filings");

      // `agent stop`, then again with nothing running.
      const stop = async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", MAIN, "agent", "stop", "--data-dir", data],
          env: { NO_COLOR: "1" },
        }).output();
        return { code: out.code, text: new TextDecoder().decode(out.stdout) };
      };
      const first = await stop();
      equal(first.code, 0, first.text);
      match(first.text, /Stopping the agent \(pid \d+, port \d+\)[\s\S]*The agent has stopped\./);
      equal((await exitWithin(agent, 5_000)).code, 0);
      ok(agent.logs.some((l) => l.msg === "agent stop asked"));
      const again = await stop();
      equal(again.code, 0);
      match(again.text, /No agent is running for this data folder\./);
    } finally {
      await browser.close();
      await stopWithin(agent);
      await stopWithin(ts);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
