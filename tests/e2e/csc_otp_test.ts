/**
 * A cloud signature that asks a PIN and a one-time code (`authMode` `explicit`, `OTP.type`
 * `online`; docs/signing.md § Remote signing), end to end in Chromium: `senders add --csc` adds
 * it without a warning, the accountant types the PIN on the confirmation page, the agent asks the
 * provider to send the code (`credentials/sendOTP`) and opens its page asking it; the code typed
 * there goes with the PIN to `credentials/authorize` and the filing is signed (openssl verifies
 * the CMS). A wrong code refuses the filing (OTP_INCORRECT) with nothing sent to the NRA. Neither
 * the PIN nor the code is logged. The page's screenshot is docs/remote-otp.png.
 */
import { equal, notEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  addCscSenderWithBrowser,
  assertAdded,
  CSC_PIN,
  cscBrowser,
  type CscWorld,
  startCscWorld,
} from "../_helpers/csc.ts";
import { type LiveWorld, startLiveWorld } from "../_helpers/live_agent.ts";
import { run } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { CHROMIUM } from "../_helpers/browser.ts";

const ignore = skipUnless(["openssl", CHROMIUM], "cloud signature with a one-time code");
const CLOUD = "cloud-otp";

/** The confirmation page in the browser: choose the cloud sender, type the PIN, confirm. */
async function confirmInBrowser(w: LiveWorld, page: Page): Promise<void> {
  const log = await w.agent.waitLog("confirmation page opened", 20_000);
  await page.goto(String(log.url));
  await page.check(`input[name=senderId][value=${CLOUD}]`);
  if (await page.locator("#pin-later").count()) {
    // Two steps (docs/confirmation.md § Two steps): consent, checks, then the PIN step.
    await page.click("#confirm");
    await page.waitForSelector("#pin", { timeout: 30_000 });
    await page.check(`input[name=senderId][value=${CLOUD}]`);
  }
  await page.fill("#pin", CSC_PIN);
  await page.click("#confirm");
}

/** The agent's page asking the code: it was sent just before; returns that code. */
async function otpPage(w: LiveWorld, csc: CscWorld, page: Page): Promise<string> {
  const log = await w.agent.waitLog("one-time code page opened", 20_000);
  await page.goto(String(log.url));
  equal((await page.textContent("#otp-ask"))?.trim(), "Въведете еднократния код на подписа");
  ok((await page.textContent("#otp-where"))?.includes("изпрати код на телефона"));
  equal((await page.textContent("#remote-count"))?.trim(), "2 подписа за одобрение");
  const sent = csc.sim.sentOtp(csc.sim.credentials.otp);
  ok(sent !== null, "the provider was asked to send the code before the page opened");
  return sent;
}

async function verifyLast(w: LiveWorld, caPem: string): Promise<void> {
  const ca = join(w.dir, "otp-signer-ca.pem");
  await Deno.writeTextFile(ca, caPem);
  for (const [i, f] of w.sim.received.entries()) {
    const c = join(w.dir, `otp${i}.bin`);
    const s = join(w.dir, `otp${i}.p7s`);
    await Deno.writeFile(c, f.content);
    await Deno.writeFile(s, f.pkcs7);
    const r = await run("openssl", [
      ...["cms", "-verify", "-binary", "-inform", "DER", "-in", s, "-content", c],
      ...["-CAfile", ca, "-purpose", "any", "-out", "/dev/null"],
    ]);
    ok(r.code === 0 && /Verification successful/.test(r.stderr), `${f.fileName}: ${r.stderr}`);
  }
}

Deno.test({
  name:
    "[e2e] csc explicit + online OTP: PIN on the confirmation page, the code on the agent's page after sendOTP; a wrong code files nothing",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld();
    const csc = await startCscWorld(w.dir, { otp: true });
    const browser = await cscBrowser();
    try {
      const added = await addCscSenderWithBrowser(w.agentDir, csc, [
        "--name",
        "Иван Петров (облачен КЕП с SMS код)",
        "--id",
        CLOUD,
        "--credential-id",
        csc.sim.credentials.otp,
      ]);
      assertAdded(added, CLOUD);
      ok(
        added.stdout.includes("PIN on the confirmation page, one-time code sent by the provider"),
        added.stdout,
      );
      ok(!/does not ask yet/.test(added.stdout + added.stderr), "no warning any more");
      await w.restart();
      const files = await w.payroll("203456783");
      const page = await browser.context.newPage();
      const file = () =>
        w.file("dec1_6", "203456783", { year: 2026, month: 9, ...files }, {
          "x-svc-batch-id": crypto.randomUUID(),
          "x-svc-sender-id": CLOUD,
        });

      // PIN and the right code: D1 and D6 in one authorization, signed, filed.
      const first = file();
      await confirmInBrowser(w, page);
      const code = await otpPage(w, csc, page);
      await page.screenshot({ path: "docs/remote-otp.png", fullPage: true });
      await page.fill("#otp", code);
      await page.click("#otp-sign");
      await page.waitForSelector("#otp-given");
      const r1 = await first;
      equal(r1.status, 200, JSON.stringify(r1.json));
      equal(r1.json.success, true, JSON.stringify(r1.json));
      equal(csc.sim.stats.authorizations, 1, "one authorization with PIN and code");
      equal(csc.sim.stats.hashesSigned, 2);
      await verifyLast(w, csc.sim.signerCaPem);
      const sent = w.sim.stats.submitCalls;

      // A wrong code: refused with its own code, nothing reaches the NRA.
      const second = file();
      await confirmInBrowser(w, page);
      const right = await otpPage(w, csc, page);
      const wrong = right === "000000" ? "111111" : "000000";
      notEqual(wrong, right);
      await page.fill("#otp", wrong);
      await page.click("#otp-sign");
      await page.waitForSelector("#otp-given");
      const r2 = await second;
      equal(r2.json.errorCode, "OTP_INCORRECT", JSON.stringify(r2.json));
      equal(r2.status, 502);
      equal(w.sim.stats.submitCalls, sent, "nothing was sent to the NRA");
      equal(csc.sim.stats.hashesSigned, 2, "nothing more was signed");

      const logs = JSON.stringify(w.agent.logs);
      for (const secret of [CSC_PIN, code, wrong]) {
        ok(!logs.includes(`"${secret}"`), `${secret} is not logged`);
      }
    } finally {
      await browser.close();
      await csc.stop();
      await w.stop();
    }
  },
});
