/**
 * The console's whole path (docs/console.md), walked in Chromium against the real programs: after
 * the agent has started (and an integrator filed three VAT returns — one filed, one refused, one
 * whose fate is unknown), the accountant, without a terminal, opens the console with its one-time
 * link, adds a SoftHSM2 certificate found on the token and a PKCS#12 file chosen with the native
 * picker (zenity on Xvfb, answered with xdotool), tests both with their PIN, sees the filed and the
 * refused filing in Filings, resolves the unknown one, runs the diagnostics and reads the log. Each
 * page's screenshot is written to docs/ (docs/console.md shows them). Then a foreign page tries to
 * read the console and to act through it, and fails.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  decide,
  launchChromium,
  skipBrowser,
  startForeignServer,
  stopWithin,
} from "../_helpers/browser.ts";
import {
  createKeyCli,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { writePkcs12, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { answer, withDisplay } from "../_helpers/xvfb.ts";
import { createSoftHsmToken, TOKEN_PIN } from "../signing/softhsm_fixture.ts";
import { agentOpen } from "../_helpers/console_filing.ts";

const P12_PASSWORD = "p12-pass";
const ignore = skipBrowser() ||
  skipUnless(
    ["Xvfb", "zenity", "xdotool", "xclip", "softhsm2-util", "pkcs11-tool", "openssl"],
    "console walk",
  );

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `docs/${name}.png`, fullPage: true });
}

/**
 * The page's message after an action: waits for it, and fails with its words when it is not of
 * the `kind` expected (a bare wait for `#flash.ok` would only time out, saying nothing).
 * @returns its text
 */
async function flash(page: Page, kind: "ok" | "error"): Promise<string> {
  const el = await page.waitForSelector("#flash");
  const text = (await el.textContent())!;
  ok((await el.getAttribute("class"))?.split(" ").includes(kind), `${kind}? ${text}`);
  return text;
}

/** An integrator's filing: token, call, and (for a confirmation) the click in the browser. */
async function file(
  ts: Proc,
  agent: Proc,
  key: string,
  eik: string,
  confirm: (() => Promise<void>) | null,
): Promise<Record<string, unknown>> {
  const token = await issueToken(ts.url, key, { typeId: "vat", eik });
  const res = fetch(`${agent.url}/api/v1/operations/vat`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ eik, year: 2026, month: 10 }),
  });
  if (confirm) await confirm();
  return await (await res).json();
}

Deno.test({
  name: "[browser] console walk: senders, filings, diagnostics and log without a terminal",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withDisplay(async (display) => {
      const dir = await Deno.makeTempDir({ prefix: "svc-console-walk-" });
      await Deno.mkdir(join(dir, "pki"));
      const pki = await writeTestPki(join(dir, "pki"));
      const hsm = await createSoftHsmToken(pki, join(dir, "hsm"));
      const p12 = join(dir, "Иван Петров.p12");
      await writePkcs12(pki.rsa, p12, P12_PASSWORD);
      const home = join(dir, "home");
      await Deno.mkdir(home);
      const browserP = launchChromium();
      const ts = await startTokenService(join(dir, "ts"));
      const agentDir = join(dir, "agent");
      const agent = await startAgent(agentDir, ts.url, {
        ...hsm.env,
        DISPLAY: display,
        NO_AT_BRIDGE: "1",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
      });
      const browser = await browserP;
      const foreign = startForeignServer({
        "/read": () =>
          `<script>fetch(${
            JSON.stringify(agent.url + "/console/senders")
          }, {credentials: "include"})
            .then(r => r.text()).then(t => document.title = "read:" + t.length)
            .catch(e => document.title = "blocked:" + e.name)</script>`,
        "/act": (u) =>
          `<form method="post" action="${agent.url}/console/senders/${
            u.searchParams.get("id")
          }/remove"><input name="csrf" value="guess"></form><script>document.forms[0].submit()</script>`,
      });
      try {
        // The integrator's side: three VAT returns before the accountant looks.
        const key = await createKeyCli(join(dir, "ts"), "test");
        const confirmPage = async () => {
          const log = await agent.waitLog("confirmation page opened", 15_000);
          const p = await browser.context.newPage();
          await p.goto(String(log.url));
          await decide(p, "confirm");
          await p.close();
        };
        const filed = await file(ts, agent, key, "121212121", confirmPage);
        equal(filed.success, true, JSON.stringify(filed));
        // The integrator reads the portal's protocol: the agent keeps it for the console.
        const rt = await issueToken(ts.url, key, { typeId: "vat_result", eik: "121212121" });
        const asked = fetch(`${agent.url}/api/v1/operations/vat_result`, {
          method: "POST",
          headers: { authorization: `Bearer ${rt}`, "content-type": "application/json" },
          body: JSON.stringify({ documentId: filed.documentId, eik: "121212121" }),
        });
        await confirmPage();
        const protocol = await (await asked).json();
        equal(protocol.status, "ok", JSON.stringify(protocol));
        const refused = await file(ts, agent, key, "999999904", confirmPage);
        equal(refused.success, false, JSON.stringify(refused));
        const unknown = await file(ts, agent, key, "999999956", confirmPage);
        equal(unknown.errorCode, "PORTAL_TIMEOUT", JSON.stringify(unknown));

        // The accountant: the Start-menu entry (`agent open`) opens the console.
        const page = await browser.context.newPage();
        await page.goto(await agentOpen(agentDir));
        await page.waitForSelector("#status");
        match((await page.textContent("#port"))!, /^\d+$/);
        ok((await page.textContent("#modes"))!.includes("тестов"));
        await shot(page, "console-status");

        // Senders: the SoftHSM2 token's certificate, found without typing a path.
        await page.click("#nav-senders");
        await page.waitForSelector("tr.found-cert");
        ok((await page.textContent("#found"))!.includes("80******08"), "EGN masked");
        ok(!(await page.content()).includes("8001010008"), "never the whole EGN");
        const firstForm = page.locator("form.add-sender").first();
        await firstForm.locator("input[name=displayName]").fill("Иван Петров (токен)");
        await firstForm.locator("input[name=pin]").fill(TOKEN_PIN);
        await firstForm.locator("input[name=force]").check();
        await firstForm.locator("button").click();
        match(await flash(page, "ok"), /Добавен подател „Иван Петров \(токен\)“/);
        const tokenRow = page.locator("#senders tr[data-sender]").first();
        // A wrong PIN: one clear sentence, no stack trace.
        await tokenRow.locator("input[name=pin]").fill("0000");
        await tokenRow.locator("button.test-sender").click();
        const wrongPin = await flash(page, "error");
        ok(!wrongPin.includes(" at "), "no stack trace");
        match(wrongPin, /ПИН|PIN/);
        await page.locator("#senders tr[data-sender]").first().locator("input[name=pin]").fill(
          TOKEN_PIN,
        );
        await page.locator("#senders tr[data-sender]").first().locator("button.test-sender")
          .click();
        match(await flash(page, "ok"), /подписът е направен и проверен/);

        // A PKCS#12 file chosen with the native picker.
        const picked = page.waitForSelector("#pkcs12", { timeout: 60_000 });
        await page.click("#pick-pkcs12", { noWaitAfter: true });
        await answer(display, "Choose a file", { type: p12, key: "Return" }, picked);
        await picked;
        // The file the dialog was given (pasted into the dialog, Cyrillic name and all).
        equal(await page.textContent("#pkcs12 code"), p12, "the file chosen in the dialog");
        await page.fill("#pkcs12-password", P12_PASSWORD);
        await page.fill("#pkcs12-name", "Иван Петров (файл)");
        await page.check("#pkcs12-force");
        await page.click("#pkcs12-add");
        match(await flash(page, "ok"), /Иван Петров \(файл\)/);
        const fileRow = page.locator("#senders tr[data-sender]", { hasText: "(файл)" });
        await fileRow.locator("input[name=pin]").fill(P12_PASSWORD);
        await fileRow.locator("button.test-sender").click();
        match(await flash(page, "ok"), /„Иван Петров \(файл\)“: подписът е направен и проверен/);
        equal(await page.locator("#senders tr[data-sender]").count(), 2);
        // docs/console-senders.png is taken by console_senders_test.ts.

        // Filings: the filed and the refused one, in words; the unknown one resolved.
        await page.click("#nav-filings");
        await page.waitForSelector("#filings");
        ok((await page.textContent("#filings"))!.includes("Справка-декларация по ЗДДС"));
        equal(await page.locator("#filings tr[data-state=filed]").count(), 1);
        equal(await page.locator("#filings tr[data-state=refused]").count(), 1);
        equal(await page.locator("#filings tr[data-state=unknown]").count(), 1);
        await page.selectOption("#f-state", "refused");
        await page.click("#f-apply");
        await page.waitForSelector("#filings");
        equal(await page.locator("#filings tr[data-id]").count(), 1);
        await page.selectOption("#f-state", "");
        await page.click("#f-apply");
        const row = page.locator("#filings tr[data-state=unknown]");
        await row.locator("details.resolve summary").click();
        await row.locator("input[name=documentId]").fill("4711");
        await row.locator("input[name=incomeNumber]").fill("22000000000001");
        await row.locator("button[value=filed]").click();
        match(await flash(page, "ok"), /Записано: подадена/);
        equal(await page.locator("#filings tr[data-state=unknown]").count(), 0);
        equal(await page.locator("#filings tr[data-state=filed]").count(), 2);
        ok((await page.textContent("#filings"))!.includes("22000000000001"));
        await shot(page, "console-filings");

        // The portal's protocol of the filed one, in a sandboxed frame.
        await page.click("#filings tr[data-state=filed] a.protocol-link");
        await page.waitForSelector("#protocol");
        equal(await page.getAttribute("#protocol", "sandbox"), "");
        const frame = page.frameLocator("#protocol");
        ok((await frame.locator("body").textContent())!.includes(String(filed.documentId)));
        await page.click("#nav-filings");

        // Diagnostics, on demand.
        await page.click("#nav-diagnostics");
        await page.click("#run-doctor");
        // One warning (the agent's own port, outside 17470–17479): the checks' table is open.
        await page.waitForSelector("#doctor-details[open] #doctor");
        ok(await page.locator("#doctor tr[data-check]").count() > 3);
        await shot(page, "console-diagnostics");

        // The log: what happened, redacted.
        await page.click("#nav-log");
        await page.waitForSelector("#log");
        const log = (await page.textContent("#log"))!;
        // In the chosen language (Bulgarian), local time with its offset; fields under details.
        ok(await page.locator('#log tr[data-msg="console resolved filing"]').count() > 0);
        ok(log.includes("уточнена е декларация"), log.slice(0, 500));
        match(log, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d/);
        ok(!log.includes(TOKEN_PIN + '"') && !log.includes(P12_PASSWORD), "no PIN in the log");
        await shot(page, "console-log");

        // The language switch: English on every page from here, remembered; then back.
        await page.click("#lang-switch");
        await page.waitForSelector('html[lang="en"]');
        equal(new URL(page.url()).pathname, "/console/log", "back on the same page");
        ok((await page.textContent("#log"))!.includes("console resolved filing"));
        equal((await page.textContent("#nav-senders"))!.trim(), "Senders");
        await page.click("#nav-status");
        await page.waitForSelector("#status");
        equal(await page.getAttribute("html", "lang"), "en", "the choice is remembered");
        const statusEn = await page.innerText("main");
        ok(
          statusEn.includes("Start at login") && !/[А-Яа-я]{3}/.test(
            statusEn.replace(/Иван Петров|\(токен\)|\(файл\)/g, ""),
          ),
          `the status page in English only:\n${statusEn}`,
        );
        await shot(page, "console-status-en");
        await page.click("#nav-filings");
        await page.waitForSelector("#filings");
        ok((await page.textContent("#filings"))!.includes("VAT return"));
        ok(!(await page.textContent("#filings"))!.includes("Справка-декларация по ЗДДС"));
        await page.click("#lang-switch");
        await page.waitForSelector('html[lang="bg"]');
        ok((await page.textContent("#filings"))!.includes("Справка-декларация по ЗДДС"));

        // A foreign page can neither read the console nor act through it.
        const evil = await browser.context.newPage();
        await evil.goto(`${foreign.origin}/read`);
        await evil.waitForFunction("document.title !== ''");
        match(await evil.title(), /^blocked:/);
        const senderId = (await page.locator("#senders tr[data-sender]").first()
          .getAttribute("data-sender").catch(() => null)) ??
          JSON.parse(await Deno.readTextFile(join(agentDir, "agent.json"))).senders[0].id;
        const [res] = await Promise.all([
          evil.waitForResponse((r) => r.url().includes("/remove")),
          evil.goto(`${foreign.origin}/act?id=${encodeURIComponent(senderId)}`),
        ]);
        equal(res.status(), 403);
        const after = JSON.parse(await Deno.readTextFile(join(agentDir, "agent.json")));
        equal(after.senders.length, 2, "nothing was removed");
        await evil.close();
      } finally {
        await browser.close();
        await foreign.close();
        await stopWithin(agent);
        await stopWithin(ts);
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }),
});
