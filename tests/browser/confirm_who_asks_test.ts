/**
 * "Who asks" on the confirmation page in Chromium, against the real token service and agent
 * (docs/confirmation.md § Who asks). An integrator nobody verified — anyone can sign up as
 * "Demo integrator" — is shown after the page's origin, as "presents itself as „…“ (not
 * verified)", with a warning; once the token service's administrator verified its legal name and
 * EIK, the page shows those with "verified by the service's operator" and no warning. Saves
 * docs/confirmation-unverified.png and docs/confirmation-verified.png (when SVC_UPDATE_SCREENSHOTS=1
 * or when missing).
 */
import { equal, ok } from "node:assert/strict";
import { decodeJwt } from "jose";
import type { Page } from "playwright-core";
import { decide, type ExampleEnv, skipBrowser, startExampleEnv } from "../_helpers/browser.ts";
import { issueToken } from "../_helpers/e2e.ts";
import { SQLITE_FILE, sqliteTokenStore } from "../../src/token/mod.ts";

const EIK = "246824682";

/** A `dec1_6` filing of a file on the disk (read after the consent), bound to the example page's
 * origin; waits until the token carries the claims `ready` wants (the token service's issuance
 * cache sees another process's change within a second). */
async function fileFromPage(env: ExampleEnv, ready: (c: Record<string, unknown>) => boolean) {
  const origin = env.example.origin;
  let token = "";
  for (let i = 0; i < 50; i++) {
    token = await issueToken(env.ts.url, env.key, { typeId: "dec1_6", eik: EIK, origin });
    if (ready(decodeJwt(token))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  ok(ready(decodeJwt(token)), "the token carries the expected identity");
  return fetch(`${env.agent.url}/api/v1/operations/dec1_6`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": crypto.randomUUID(),
      origin,
    },
    body: JSON.stringify({ year: 2026, month: 9, eik: EIK, dec1FilePath: "/nonexistent/D1.TXT" }),
  }).then(async (r) => ({ status: r.status, json: await r.json() }));
}

/** Save the page's screenshot under docs/ when asked to (or when it is missing). */
async function shot(page: Page, name: string) {
  const url = new URL(`../../docs/${name}`, import.meta.url);
  const exists = await Deno.stat(url).then(() => true, () => false);
  const committed = Deno.env.get("SVC_UPDATE_SCREENSHOTS") === "1" || !exists;
  const path = committed ? url.pathname : await Deno.makeTempFile({ suffix: ".png" });
  await page.screenshot({ path, fullPage: true });
  if (!committed) await Deno.remove(path);
}

Deno.test({
  name: "[browser] who asks: the origin first and a warning until the operator verified the name",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const env = await startExampleEnv();
    try {
      await t.step(
        "[browser] not verified: origin first, self-declared name, warning",
        async () => {
          const filing = fileFromPage(env, (c) => c.intgVerified === undefined);
          const page = await env.openConfirmation();
          const who = page.locator("#who");
          equal(await who.getAttribute("data-verified"), "no");
          const text = (await who.innerText()).trim();
          const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
          equal(lines[0], `От страница: ${env.example.origin}`, "the origin comes first");
          equal(lines[1], "Кой пита: представя се като „Demo integrator“ (непроверено)");
          ok(
            (await page.innerText("#unverified-warning")).includes(
              "Името не е проверено от оператора на услугата",
            ),
          );
          equal(await page.locator("#verified-mark").count(), 0);
          await page.waitForSelector("#confirm:enabled");
          await shot(page, "confirmation-unverified.png");
          // In English, one language at a time.
          await page.click("#lang-switch");
          await page.waitForSelector(`html[lang="en"]`);
          const en = (await page.innerText("#who")).trim();
          ok(en.includes("presents itself as „Demo integrator“ (not verified)"), en);
          ok(!/[А-Яа-я]/.test(en.replace("Demo integrator", "")), en);
          await page.click("#lang-switch");
          await page.waitForSelector(`html[lang="bg"]`);
          await decide(page, "decline");
          equal((await filing).json.errorCode, "SENDER_NOT_CHOSEN");
          await page.close();
        },
      );

      await t.step("[browser] verified by the operator: legal name, EIK, no warning", async () => {
        const store = sqliteTokenStore(`${env.tsDir}/${SQLITE_FILE}`);
        try {
          const done = await store.updateIntegrator("default", {
            verified: {
              legalName: "Акме Софт ООД",
              eik: "123456786",
              at: Date.now(),
              by: "root@svc.test",
            },
          });
          ok(done);
        } finally {
          await store.close();
        }
        const filing = fileFromPage(env, (c) => c.intgVerified !== undefined);
        const page = await env.openConfirmation();
        equal(await page.getAttribute("#who", "data-verified"), "yes");
        const lines = (await page.innerText("#who")).split("\n").map((l) => l.trim()).filter(
          (l) => l !== "",
        );
        equal(
          lines[0],
          "Кой пита: Акме Софт ООД, ЕИК 123456786 ✓ проверен от оператора на услугата",
        );
        equal(lines[1], `От страница: ${env.example.origin}`);
        equal(await page.locator("#unverified-warning").count(), 0);
        ok(
          !(await page.innerText("body")).includes("Demo integrator"),
          "the self-declared name is not shown",
        );
        await page.waitForSelector("#confirm:enabled");
        await shot(page, "confirmation-verified.png");
        await decide(page, "decline");
        equal((await filing).json.errorCode, "SENDER_NOT_CHOSEN");
        await page.close();
      });
    } finally {
      await env.stop();
    }
  },
});
