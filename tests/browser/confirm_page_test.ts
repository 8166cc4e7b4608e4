/**
 * The confirmation page in Chromium against the real token service and agent (issue 13 § 7,
 * § 10): a path sent with `..` segments and a right-to-left override is shown resolved, with
 * the hidden character made visible; a web page on another loopback port that loads hundreds of
 * `<img>` of `/confirm/*` gets cheap refusals and spends no budget of the user's page, which —
 * open in three tabs, polling every second — still confirms. Saves the page screenshot
 * (docs/confirmation.png when SVC_UPDATE_SCREENSHOTS=1 or when it is missing).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  decide,
  type ExampleEnv,
  pngSize,
  skipBrowser,
  startExampleEnv,
  startForeignServer,
} from "../_helpers/browser.ts";
import { issueToken } from "../_helpers/e2e.ts";

const EIK = "246824682";
const SCREENSHOT = new URL("../../docs/confirmation.png", import.meta.url);

/** A foreign page loading `n` images of the agent's confirmation URLs (and their state). */
const FLOOD_PAGE = (url: URL) => {
  const agent = url.searchParams.get("agent")!;
  const n = Number(url.searchParams.get("n"));
  const imgs = Array.from(
    { length: n },
    (_, i) => `<img src="${agent}/confirm/x${i % 2 ? "/state" : ""}?i=${i}" width="1" height="1">`,
  );
  return `<!doctype html><title>flood</title><p>A site that floods the agent.</p>${imgs.join("")}`;
};

/** Start a D1 scan of `rootFolder` from a local program (no page origin). */
async function scanD1(env: ExampleEnv, rootFolder: string) {
  const token = await issueToken(env.ts.url, env.key, { typeId: "dec1_files_scan" });
  const res = await fetch(`${env.agent.url}/api/v1/operations/dec1_files_scan`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ rootFolder, year: 2026, month: 9 }),
  });
  return { status: res.status, json: await res.json() };
}

/** Start a `dec1_6` filing naming `dec1FilePath`, as the example page would (its origin). */
async function fileDec16(env: ExampleEnv, dec1FilePath: string) {
  const origin = env.example.origin;
  const token = await issueToken(env.ts.url, env.key, { typeId: "dec1_6", eik: EIK, origin });
  const res = await fetch(`${env.agent.url}/api/v1/operations/dec1_6`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": crypto.randomUUID(),
      origin,
    },
    body: JSON.stringify({ year: 2026, month: 9, eik: EIK, dec1FilePath }),
  });
  return { status: res.status, json: await res.json() };
}

/** How Chromium reports the agent's cheap refusal of a cross-site image: the refusal's
 * `Cross-Origin-Resource-Policy: same-origin` blocks it before the page sees a status. */
const REFUSED = "net::ERR_BLOCKED_BY_RESPONSE.NotSameOrigin";

/** Record the outcome of a tab's requests whose URL contains `part`: the status, or the
 * network error of a request that got no usable response. */
function statuses(page: Page, part: string): (number | string)[] {
  const seen: (number | string)[] = [];
  page.on("response", (r) => {
    if (r.url().includes(part)) seen.push(r.status());
  });
  page.on("requestfailed", (r) => {
    if (r.url().includes(part)) seen.push(r.failure()?.errorText ?? "failed");
  });
  return seen;
}

Deno.test({
  name: "[browser] the confirmation page: no website can block it, and it shows what is read",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const env: ExampleEnv = await startExampleEnv();
    const foreign = startForeignServer({ "/flood": FLOOD_PAGE });
    const home = await Deno.makeTempDir({ prefix: "svc-home-" });
    try {
      await t.step(
        "[browser] a path with `..` segments and a right-to-left override is shown resolved, the override visible",
        async () => {
          const user = join(home, "home", "u");
          await Deno.mkdir(join(user, ".ssh"), { recursive: true });
          // "Documents/‮TXT.exe/../../../../home/u/.ssh": looks like a file in Documents,
          // is the user's .ssh folder.
          const sent = `${user}/Documents/\u202eTXT.exe/../../../../home/u/.ssh`;
          const scan = scanD1(env, sent);
          const page = await env.openConfirmation();
          const text = await page.innerText("body");
          ok(text.includes(`${user}/.ssh`), `the resolved path is shown:\n${text}`);
          ok(text.includes("⟨U+202E⟩"), "the override is made visible");
          ok(!text.includes("\u202e"), "the override itself is not on the page");
          ok(!text.includes("/../") && !text.includes("TXT.exe"), "the raw segments are not shown");
          equal(await page.locator("#paths code.path").count(), 1);
          await decide(page, "decline");
          deepStrictEqual((await scan).json.errorCode, "SENDER_NOT_CHOSEN");
          await page.close();
        },
      );

      await t.step("[browser] the page of a filing from a local folder (screenshot)", async () => {
        // Nothing is read before the decision: the folder need not exist for the page.
        const file = "/home/maria/Документи/Заплати/2026-09/EMPL2021.TXT";
        const filing = fileDec16(env, file);
        const page = await env.openConfirmation();
        ok((await page.innerText("#paths")).includes(file));
        equal((await page.textContent("#origin"))?.trim(), env.example.origin);
        await page.waitForSelector("#confirm:enabled");
        const exists = await Deno.stat(SCREENSHOT).then(() => true, () => false);
        const committed = Deno.env.get("SVC_UPDATE_SCREENSHOTS") === "1" || !exists;
        const path = committed ? SCREENSHOT.pathname : await Deno.makeTempFile({ suffix: ".png" });
        await page.screenshot({ path });
        deepStrictEqual(pngSize(await Deno.readFile(path)), { width: 1280, height: 800 });
        if (!committed) await Deno.remove(path);
        await decide(page, "decline");
        equal((await filing).json.errorCode, "SENDER_NOT_CHOSEN");
        await page.close();
      });
      await t.step(
        "[browser] 260 images from a foreign page neither block nor slow the user's page, open in three polling tabs",
        async () => {
          const flood = await env.browser.context.newPage();
          const refused = statuses(flood, "/confirm/");
          const floodUrl = `${foreign.origin}/flood?n=130&agent=${
            encodeURIComponent(env.agent.url)
          }`;
          await flood.goto(floodUrl, { waitUntil: "load" });
          equal(refused.length, 130, "every image was requested");

          const example = await env.openExample();
          await example.click("#run-first");
          const tabs = [await env.openConfirmation()];
          const url = tabs[0]!.url();
          const polls = [statuses(tabs[0]!, "/state")];
          for (let i = 0; i < 2; i++) {
            const tab = await env.browser.context.newPage();
            polls.push(statuses(tab, "/state"));
            await tab.goto(url);
            await tab.waitForSelector("#confirm");
            tabs.push(tab);
          }
          // The flood again, while the three tabs poll.
          await flood.reload({ waitUntil: "load" });
          equal(refused.length, 260);
          await tabs[0]!.waitForTimeout(3_500);
          for (const p of polls) {
            ok(p.length >= 2, `each tab polls: ${p.length}`);
            ok(p.every((s) => s === 200), `the page's polling is never limited: ${p}`);
          }
          await decide(tabs[1]!, "confirm");
          const result = await example.waitForSelector(
            "#result-first:not([data-state=pending]):not([data-state=idle])",
            { timeout: 20_000 },
          );
          equal(await result.getAttribute("data-state"), "ok");
          // Every image got the cheap refusal.
          ok(refused.every((s) => s === REFUSED), `cross-site refusals: ${[...new Set(refused)]}`);
          for (const tab of tabs) await tab.close();
          await flood.close();
          await example.close();
        },
      );
    } finally {
      await foreign.close();
      await env.stop();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
