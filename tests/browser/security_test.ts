/**
 * Security of the agent as a real browser sees it: a page from an origin that is not on the
 * allow-list gets no CORS grant (its fetches fail) while the open `/health` answers it; the
 * confirmation page refuses to be framed (`frame-ancestors 'none'`) but opens in a tab.
 */
import { equal, ok } from "node:assert/strict";
import {
  decide,
  type ExampleEnv,
  skipBrowser,
  startExampleEnv,
  startForeignServer,
} from "../_helpers/browser.ts";

const FRAME_PAGE = (url: URL) =>
  `<!doctype html><title>framer</title>
<iframe id="dialog" name="dialog" src="${
    url.searchParams.get("src")
  }" width="600" height="300"></iframe>
<iframe id="control" name="control" src="/plain" width="300" height="100"></iframe>`;

Deno.test({
  name: "[browser] the agent's security seen from a real browser",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const env: ExampleEnv = await startExampleEnv();
    const foreign = startForeignServer({
      "/": () => "<!doctype html><title>foreign</title><p>A site the agent does not allow.</p>",
      "/plain": () => '<!doctype html><p id="plain">frameable</p>',
      "/frame": FRAME_PAGE,
    });
    try {
      await t.step("[browser] a page from a foreign origin gets no CORS grant", async () => {
        const page = await env.browser.context.newPage();
        await page.goto(`${foreign.origin}/`);
        const r = await page.evaluate(async (agent) => {
          const attempt = async (f: () => Promise<Response>) => {
            try {
              const res = await f();
              return `status ${res.status}`;
            } catch (e) {
              return `failed: ${(e as Error).name}`;
            }
          };
          return {
            health: await attempt(() => fetch(`${agent}/health`)),
            senders: await attempt(() => fetch(`${agent}/api/senders`)),
            operation: await attempt(() =>
              fetch(`${agent}/api/v1/operations/nap_catalog`, {
                method: "POST",
                headers: { "content-type": "application/json", authorization: "Bearer x" },
                body: "{}",
              })
            ),
          };
        }, env.agent.url);
        equal(r.health, "status 200", "GET /health is open to every origin");
        equal(r.senders, "failed: TypeError", "a simple request gets no CORS grant");
        equal(r.operation, "failed: TypeError", "the preflight is refused");

        // The allowed example origin gets the grant (control).
        const allowed = await env.openExample();
        const ok200 = await allowed.evaluate(async (agent) => {
          return (await fetch(`${agent}/api/senders`)).status;
        }, env.agent.url);
        equal(ok200, 200);
        await allowed.close();
        await page.close();
      });

      await t.step("[browser] the confirmation page refuses to load in a frame", async () => {
        const page = await env.openExample();
        await page.click("#run-first");
        const log = await env.agent.waitLog("confirmation page opened", 15_000);
        const url = String(log.url);

        const framer = await env.browser.context.newPage();
        const refused: string[] = [];
        framer.on("console", (m) => {
          if (/frame-ancestors/i.test(m.text())) refused.push(m.text());
        });
        await framer.goto(`${foreign.origin}/frame?src=${encodeURIComponent(url)}`);
        const control = framer.frame({ name: "control" })!;
        await control.waitForSelector("#plain");
        const dialog = framer.frame({ name: "dialog" })!;
        ok(dialog, "the frame exists");
        for (let i = 0; i < 30 && refused.length === 0; i++) await framer.waitForTimeout(100);
        ok(refused.some((m) => m.includes("frame-ancestors 'none'")), JSON.stringify(refused));
        ok(!dialog.url().startsWith(url), `the frame shows ${dialog.url()}, not the dialog`);
        equal(await dialog.$("#confirm").catch(() => null), null, "no dialog inside the frame");
        await framer.close();

        // The same page opens in a tab, and the user can still decide there.
        const tab = await env.browser.context.newPage();
        await tab.goto(url);
        await decide(tab, "decline");
        await page.waitForSelector("#result-first[data-error-code=SENDER_NOT_CHOSEN]");
        await tab.close();
        await page.close();
      });
    } finally {
      await foreign.close();
      await env.stop();
    }
  },
});
