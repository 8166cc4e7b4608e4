/**
 * The console's Senders page in Chromium against the real agent, without any native dialog
 * (no display: the system dialog cannot open, and the page says so): a signature file
 * (PKCS#12) dropped on the page and another one's path typed both become senders; each
 * certificate is shown before it is added (holder, masked EGN, issuer, validity, qualified or
 * not, the checks in words) and after; a non-qualified sender is marked on Senders, on the
 * confirmation page and on Filings; a certificate expiring in 20 days is warned of on Status
 * and Senders. The dropped file is kept in the data folder byte for byte, its key encrypted.
 * Screenshots: docs/console-senders.png and docs/console-certificate.png.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { decide, launchChromium, skipBrowser, stopWithin } from "../_helpers/browser.ts";
import { createKeyCli, issueToken, startAgent, startTokenService } from "../_helpers/e2e.ts";
import { makeCert, pem, writePkcs12, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { pkcs12HasPlainKey } from "../../src/signing/mod.ts";
import { agentOpen } from "../_helpers/console_filing.ts";

const PASSWORD = "p12-pass";
const DAY = 86_400_000;
const ignore = skipBrowser() || skipUnless(["openssl"], "console senders");

async function flash(page: Page, kind: "ok" | "error"): Promise<string> {
  const el = await page.waitForSelector("#flash");
  const text = (await el.textContent())!;
  ok((await el.getAttribute("class"))?.split(" ").includes(kind), `${kind}? ${text}`);
  return text;
}

/** A signer's certificate and key as PEM files, then a PKCS#12 file with a password. */
async function p12Of(
  dir: string,
  name: string,
  cert: Awaited<ReturnType<typeof makeCert>>,
): Promise<string> {
  const certPem = join(dir, `${name}.cert.pem`), keyPem = join(dir, `${name}.key.pem`);
  await Deno.writeTextFile(certPem, pem("CERTIFICATE", cert.der));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", cert.keys.privateKey));
  await Deno.writeTextFile(keyPem, pem("PRIVATE KEY", pkcs8));
  return await writePkcs12({ certPem, keyPem }, join(dir, `${name}.p12`), PASSWORD);
}

/** Drop a file on the page as a person drags it from the file manager. */
async function dropFile(page: Page, name: string, bytes: Uint8Array) {
  // Runs in the page (a string: Deno's types have no DOM).
  await page.evaluate(`(() => {
    const bin = Uint8Array.from(atob(${JSON.stringify(bytes.toBase64())}), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bin], ${JSON.stringify(name)}, { type: "application/x-pkcs12" }));
    document.getElementById("drop-zone").dispatchEvent(
      new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }),
    );
  })()`);
}

Deno.test({
  name: "[browser] console senders: a dropped and a typed signature file, seen in words",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-console-senders-" });
    const pki = await writeTestPki(dir);
    // Qualified, 20 days left; and one without QcStatements (not qualified).
    const soon = await makeCert({
      subject: "CN=Мария Иванова, 2.5.4.5=PNOBG-7501010010, C=BG",
      issuer: pki.ca,
      notAfter: new Date(Date.now() + 20 * DAY + 12 * 3_600_000),
    });
    const plain = await makeCert({ subject: "CN=Georgi Plain, C=BG", issuer: pki.ca, qc: false });
    const soonP12 = await p12Of(dir, "maria", soon);
    const plainP12 = await p12Of(dir, "plain", plain);
    const soonBytes = await Deno.readFile(soonP12);
    const browserP = launchChromium();
    const ts = await startTokenService(join(dir, "ts"));
    const agentDir = join(dir, "agent");
    // No display: the system file dialog cannot open here.
    const agent = await startAgent(agentDir, ts.url, { DISPLAY: "", WAYLAND_DISPLAY: "" });
    const browser = await browserP;
    try {
      const page = await browser.context.newPage();
      await page.goto(await agentOpen(agentDir));
      await page.click("#nav-senders");
      await page.waitForSelector("#drop-zone");

      // The system dialog cannot open: the page says so and what to do, not "no file chosen".
      await page.click("#pick-pkcs12");
      const noDialog = await flash(page, "error");
      match(noDialog, /не може да се отвори/);
      match(noDialog, /Въведете пътя до файла или го пуснете в полето за файл/);
      ok(!noDialog.includes("Type the file's path"), "one language at a time");
      ok(!noDialog.includes("Не е избран файл"));

      // 1. Dropped on the page: the agent keeps it as it came (its key encrypted).
      await dropFile(page, "Мария Иванова.p12", soonBytes);
      await page.waitForSelector("#pkcs12");
      const kept = (await page.textContent("#pkcs12 code"))!;
      ok(kept.startsWith(join(agentDir, "certificates")), kept);
      deepEqual(await Deno.readFile(kept), soonBytes, "kept byte for byte");
      equal(await pkcs12HasPlainKey(await Deno.readFile(kept)), false, "its key stays encrypted");
      equal((await Deno.stat(kept)).mode! & 0o077, 0, "readable by the agent's user only");
      // Before adding: the certificate, in words.
      await page.fill("#pkcs12-password", PASSWORD);
      await page.click("#pkcs12-inspect");
      await page.waitForSelector("#cert-view");
      equal(await page.textContent("#cert-view .holder"), "Мария Иванова");
      equal(await page.textContent("#cert-view .personal-id"), "75******10");
      equal(
        await page.textContent("#cert-view .issuer"),
        "B-Trust Test Operational Qualified CA (BORICA AD)",
      );
      match((await page.textContent("#cert-view .valid-to"))!, /изтича след 20 дни/);
      equal(await page.getAttribute("#cert-view", "data-qualified"), "true");
      equal(await page.locator("#cert-view li[data-ok=false]").count(), 0);
      ok(!(await page.content()).includes("7501010010"), "never the whole EGN");
      equal(await page.inputValue("#pkcs12-name"), "Мария Иванова");
      await page.screenshot({ path: "docs/console-certificate.png", fullPage: true });
      // The password was remembered (memory only) for the add.
      await page.waitForSelector("#password-remembered");
      await page.click("#pkcs12-add");
      match(await flash(page, "ok"), /Добавен подател „Мария Иванова“/);

      // 2. A typed path: the certificate is not qualified; refused in words, then forced.
      await page.fill("#pkcs12-path", `"${plainP12}"`);
      await page.click("#path-open");
      await page.waitForSelector("#pkcs12");
      equal(await page.textContent("#pkcs12 code"), plainP12);
      await page.fill("#pkcs12-password", PASSWORD);
      await page.fill("#pkcs12-name", "Георги (тестов)");
      await page.click("#pkcs12-add");
      const refused = await flash(page, "error");
      match(refused, /подписът не е квалифициран \(КЕП\)/);
      ok(!refused.includes("the signature is not qualified"), "one language at a time");
      ok(!/QcStatements|keyUsage/.test(refused), refused);
      equal(await page.getAttribute("#cert-view", "data-qualified"), "false");
      match(
        (await page.textContent("#cert-view li[data-check=qcStatements][data-ok=false]"))!,
        /не е квалифициран/,
      );
      await page.fill("#pkcs12-name", "Георги (тестов)");
      await page.check("#pkcs12-force");
      await page.click("#pkcs12-add");
      match(await flash(page, "ok"), /Георги \(тестов\)/);

      // After adding: both senders with their certificates; the non-qualified one marked.
      const rows = page.locator("#senders tr[data-sender]");
      equal(await rows.count(), 2);
      const maria = page.locator("#senders tr[data-sender]", { hasText: "Мария" });
      equal(await maria.locator(".personal-id").textContent(), "75******10");
      match((await maria.locator(".issuer").textContent())!, /B-Trust/);
      equal(await maria.locator(".expiry").getAttribute("data-expiry"), "30");
      equal(await maria.locator(".not-qualified").count(), 0);
      const georgi = page.locator("#senders tr[data-sender]", { hasText: "Георги" });
      equal(await georgi.locator(".not-qualified").count(), 1);
      match((await georgi.locator(".failed-checks").textContent())!, /не е квалифициран \(КЕП\)/);
      equal(await maria.locator(".failed-checks").count(), 0);
      match((await page.textContent("#expiry-banner"))!, /Мария Иванова: изтича след 20 дни/);
      const agentJson = await Deno.readTextFile(join(agentDir, "agent.json"));
      ok(!agentJson.includes(PASSWORD), "no password in agent.json");
      await page.screenshot({ path: "docs/console-senders.png", fullPage: true });

      // Status: the warning too.
      await page.click("#nav-status");
      await page.waitForSelector("#status");
      match((await page.textContent("#expiry-banner"))!, /Мария Иванова: изтича след 20 дни/);

      // A filing in the non-qualified sender's name: marked on the confirmation page and Filings.
      const georgiId = (await georgi.getAttribute("data-sender").catch(() => null)) ??
        JSON.parse(agentJson).senders[1].id;
      const key = await createKeyCli(join(dir, "ts"), "test");
      const token = await issueToken(ts.url, key, { typeId: "vat", eik: "121212121" });
      const res = fetch(`${agent.url}/api/v1/operations/vat`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-svc-sender-id": georgiId,
        },
        body: JSON.stringify({ eik: "121212121", year: 2026, month: 10 }),
      });
      const log = await agent.waitLog("confirmation page opened", 15_000);
      const confirm = await browser.context.newPage();
      await confirm.goto(String(log.url));
      const label = confirm.locator("fieldset.senders label", { hasText: "Георги" });
      equal(await label.locator(".not-qualified").count(), 1);
      equal(
        await confirm.locator("fieldset.senders label", { hasText: "Мария" })
          .locator(".not-qualified").count(),
        0,
      );
      await decide(confirm, "confirm");
      await confirm.close();
      const filed = await (await res).json();
      equal(filed.success, true, JSON.stringify(filed));
      await page.click("#nav-filings");
      await page.waitForSelector("#filings");
      const filing = page.locator("#filings tr[data-id]").first();
      match((await filing.locator("td.sender").textContent())!, /Георги \(тестов\)/);
      equal(await filing.locator(".not-qualified").count(), 1);
    } finally {
      await browser.close();
      await stopWithin(agent);
      await stopWithin(ts);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
