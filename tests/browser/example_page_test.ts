/**
 * The example integrator page in Chromium against the real token service and agent: the page
 * (its own origin, allowed in agent.json) gets a token per operation from its server and calls
 * the agent with the generated client; the agent's confirmation page is opened from its log in a
 * new tab, as the default browser would; confirm, decline, and 50 concurrent requests of one
 * batch. (The docs' screenshot of the page is taken by confirm_page_test.ts.)
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { decide, type ExampleEnv, skipBrowser, startExampleEnv } from "../_helpers/browser.ts";

/** The example page's default EIK (a test-portal company with due amounts). */
const EIK = "246824682";

/** Wait until a result line has settled; returns its state, text and error code. */
async function settled(page: Page, id: string) {
  const sel = `#${id}:not([data-state=pending]):not([data-state=idle])`;
  const el = await page.waitForSelector(sel, { timeout: 20_000 });
  return {
    state: await el.getAttribute("data-state"),
    text: (await el.textContent()) ?? "",
    code: await el.getAttribute("data-error-code"),
  };
}

/** `p`, or a rejection after `ms`. */
async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(new Error(what)), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test({
  name: "[browser] the example integrator page against the real agent",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const env: ExampleEnv = await startExampleEnv();
    try {
      await t.step("[browser] the example page files after one confirmation", async () => {
        const page = await env.openExample();
        await page.click("#run-first");
        const confirm = await env.openConfirmation();
        // Self-declared (no administrator verified it): shown as such (docs/confirmation.md § Who asks).
        equal((await confirm.textContent("#integrator-name"))?.trim(), "Demo integrator");
        equal(await confirm.getAttribute("#who", "data-verified"), "no");
        equal((await confirm.textContent("#origin"))?.trim(), env.example.origin);
        equal((await confirm.textContent("#eiks .eik"))?.trim(), EIK);
        await decide(confirm, "confirm");
        await confirm.close();

        const first = await settled(page, "result-first");
        equal(first.state, "ok", first.text);
        ok(first.text.includes("debt_payments"), first.text);
        const batchId = (await page.textContent("#batch-id"))!.trim();
        ok(/^[0-9a-f-]{36}$/.test(batchId), batchId);

        // Another report in the same batch was not on the first page: it asks again, for it only
        // (docs/confirmation.md § What a confirmed batch covers).
        await page.click("#run-second");
        const more = await env.openConfirmation();
        ok((await more.innerText("#extension")).includes("Дължими суми"));
        await decide(more, "confirm");
        await more.close();
        const second = await settled(page, "result-second");
        equal(second.state, "ok", second.text);
        ok(second.text.includes("due_amounts"), second.text);
        equal((await page.textContent("#batch-id"))!.trim(), batchId, "the same batch");
        equal(env.confirmationPages(), 2, "the second operation asked for itself only");
        await page.close();
      });

      await t.step("[browser] the secret key never reaches the page", async () => {
        const page = await env.openExample();
        const bodies: string[] = [await page.content()];
        for (const path of ["/app.js", "/app.css"]) {
          bodies.push(await (await fetch(new URL(path, env.example.url))).text());
        }
        ok(bodies.every((b) => !b.includes(env.key)));
        ok(bodies.every((b) => !b.includes("svc_test_")), "no key material at all");
        await page.close();
      });

      await t.step("[browser] a declined confirmation refuses the whole batch", async () => {
        const before = env.confirmationPages();
        const page = await env.openExample();
        await page.click("#run-first");
        const confirm = await env.openConfirmation();
        await decide(confirm, "decline");
        await confirm.close();
        equal((await settled(page, "result-first")).code, "SENDER_NOT_CHOSEN");
        ok((await page.textContent("#message"))!.includes("not confirmed"));

        await page.click("#run-second");
        equal((await settled(page, "result-second")).code, "SENDER_NOT_CHOSEN");
        equal(env.confirmationPages(), before + 1, "no new confirmation page for the batch");
        await page.close();
      });

      await t.step(
        "[browser] 50 concurrent requests of one batch open exactly one confirmation page",
        async () => {
          const before = env.confirmationPages();
          const page = await env.openExample();
          // Chromium keeps at most 6 connections per origin, so the agent sees up to 6 requests
          // waiting on the dialog at once; the others follow after the confirmation.
          const statuses = page.evaluate(async ({ n, eik, agentUrl }) => {
            const batchId = crypto.randomUUID();
            const body = JSON.stringify({ eik, year: 2025 });
            const one = async () => {
              const t = await fetch("/token", {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ typeId: "debt_payments", eik, body }),
              });
              const { token } = await t.json();
              const r = await fetch(`${agentUrl}/api/v1/operations/debt_payments`, {
                method: "POST",
                headers: {
                  authorization: `Bearer ${token}`,
                  "content-type": "application/json",
                  "x-svc-batch-id": batchId,
                },
                body,
              });
              await r.text();
              return r.status;
            };
            return await Promise.all(Array.from({ length: n }, one));
          }, { n: 50, eik: EIK, agentUrl: env.agent.url });
          statuses.catch(() => {}); // awaited below; no unhandled rejection if a step fails first
          const confirm = await env.openConfirmation();
          ok(Number(await confirm.textContent("#requests")) >= 1);
          await decide(confirm, "confirm");
          const all = await withTimeout(statuses, 30_000, "the 50 requests did not finish");
          deepStrictEqual(all, Array(50).fill(200));
          equal(env.confirmationPages(), before + 1, "exactly one confirmation page");
          await confirm.close();
          await page.close();
        },
      );
    } finally {
      await env.stop();
    }
  },
});
