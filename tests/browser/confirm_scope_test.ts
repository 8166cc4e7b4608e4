/**
 * A batch's confirmation covers what its page showed, in Chromium against the real token service
 * and agent (docs/confirmation.md § What a confirmed batch covers): the user confirms a read of
 * debts and payments while a local program floods the agent's pages with 300 requests carrying
 * no Origin, Referer or fetch metadata; a later request of the same batch filing an annual return
 * 731 opens the page again, showing only what is new ("This batch now also asks to file: Annual
 * tax return form 731 for 121212121, file …"); the user declines it, which refuses only that
 * request, and the batch's confirmed read, sent again, still runs silently. Saves that page's screenshot
 * (docs/confirmation-extension.png when SVC_UPDATE_SCREENSHOTS=1 or when it is missing).
 */
import { equal, match, ok } from "node:assert/strict";
import {
  decide,
  type ExampleEnv,
  pngSize,
  skipBrowser,
  startExampleEnv,
} from "../_helpers/browser.ts";
import { issueToken } from "../_helpers/e2e.ts";
import { sampleDeclarationFile } from "../_helpers/sample_files.ts";

const EIK = "121212121";
const SCREENSHOT = new URL("../../docs/confirmation-extension.png", import.meta.url);

/** Call an operation as the example page would (its origin), in batch `batchId`. */
async function call(
  env: ExampleEnv,
  typeId: string,
  body: Record<string, unknown>,
  batchId: string,
) {
  const origin = env.example.origin;
  const token = await issueToken(env.ts.url, env.key, { typeId, eik: EIK, origin });
  const res = await fetch(`${env.agent.url}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      origin,
      "x-svc-batch-id": batchId,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

Deno.test({
  name:
    "[browser] a confirmed read does not cover a filing: the page asks again for what is new; a decline refuses only that",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const env = await startExampleEnv();
    try {
      const batchId = crypto.randomUUID();
      const read = call(env, "debt_payments", { eik: EIK, year: 2025 }, batchId);
      const first = await env.openConfirmation();
      // A local program floods the agent's pages meanwhile: no Origin, Referer or fetch metadata.
      const flood = await Promise.all(
        Array.from(
          { length: 300 },
          (_, i) =>
            fetch(`${env.agent.url}/confirm/x${i % 2 ? "/state" : ""}`).then(async (r) => {
              await r.body?.cancel();
              return r.status;
            }),
        ),
      );
      ok(flood.includes(429), "the flood spent its own budget");
      match(await first.innerText("#batch-scope"), /само ако повтарят точно показано тук искане/);
      await decide(first, "confirm");
      equal((await read).status, 200);
      await first.close();

      const f = sampleDeclarationFile("dec731", EIK);
      const filing = call(env, "dec731", {
        eik: EIK,
        year: 2025,
        _inlineFile: { name: f.name, contentBase64: f.bytes.toBase64() },
      }, batchId);
      const page = await env.openConfirmation();
      const extension = await page.innerText("#extension");
      for (
        const s of [
          "Тази партида вече е потвърдена за справки за 121212121. Сега иска също:",
          "да подаде: Годишна декларация обр. 731 за 121212121",
          "dec731.xml",
        ]
      ) ok(extension.includes(s), `the page says "${s}":\n${extension}`);
      match(await page.innerText("#batch-decline"), /Отказът отказва само новото/);
      // The same extension in English, through the switch, then back.
      await page.click("#lang-switch");
      await page.waitForSelector('html[lang="en"]');
      const extensionEn = await page.innerText("#extension");
      for (
        const s of [
          "This batch was already confirmed for reports for 121212121. It now also asks to:",
          "file: Annual tax return form 731 for 121212121",
        ]
      ) ok(extensionEn.includes(s), `the page says "${s}":\n${extensionEn}`);
      match(await page.innerText("#batch-decline"), /Declining refuses only what is new/);
      await page.click("#lang-switch");
      await page.waitForSelector('html[lang="bg"]');
      equal(await page.locator("#what .op").count(), 1, "only the new request is asked");
      await page.waitForSelector("#confirm:enabled");
      const exists = await Deno.stat(SCREENSHOT).then(() => true, () => false);
      const committed = Deno.env.get("SVC_UPDATE_SCREENSHOTS") === "1" || !exists;
      const path = committed ? SCREENSHOT.pathname : await Deno.makeTempFile({ suffix: ".png" });
      await page.screenshot({ path, fullPage: true });
      equal(pngSize(await Deno.readFile(path)).width, 1280);
      if (!committed) await Deno.remove(path);
      await decide(page, "decline");
      match(await page.innerText("#result"), /Отказано само новото/);
      const refused = await filing;
      equal(refused.json.errorCode, "SENDER_NOT_CHOSEN");
      match(refused.json.error, /earlier confirmation stands/);
      // The batch's earlier item stays: the confirmed read, sent again, runs without a page.
      const pages = env.confirmationPages();
      equal((await call(env, "debt_payments", { eik: EIK, year: 2025 }, batchId)).status, 200);
      equal(env.confirmationPages(), pages);
      await page.close();
    } finally {
      await env.stop();
    }
  },
});
