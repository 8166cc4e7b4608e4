/**
 * The integrator's first five minutes against the demo as `deno task start` runs it (`main.ts
 * demo`, a real process on loopback), nothing configured, in real Chromium with a virtual
 * authenticator (DevTools protocol, WebAuthn domain): sign up on the printed profile address, the
 * link from the demo's outbox (the page, and the line the demo printed), a passkey on
 * `http://localhost:<port>`, a test key, a token, a filing through the demo's agent confirmed on
 * its page, the token request in the request log; the desk, through the administrator's link of
 * the command the demo printed. Screenshots: docs/profile-outbox.png.
 */
import { equal, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { type Chromium, decide, launchChromium, skipBrowser } from "../_helpers/browser.ts";
import { type Demo, MAIN, startDemo } from "../_helpers/e2e.ts";

/** A new tab with a virtual platform authenticator that answers without a person. */
async function pageWithAuthenticator(browser: Chromium) {
  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { page, cdp, authenticatorId };
}

/** Reload the page until `selector` is on it (10 s at most). */
async function reloadUntil(page: Page, selector: string): Promise<void> {
  for (let i = 0;; i++) {
    if (await page.$(selector)) return;
    if (i === 40) throw new Error(`not on ${page.url()}: ${selector}`);
    await new Promise((r) => setTimeout(r, 250));
    await page.reload();
  }
}

/** The outbox's newest link to `to` (reloading the outbox page until it is there). */
async function outboxLink(page: Page, outbox: string, to: string): Promise<string> {
  await page.goto(outbox);
  const sel = `.mail[data-to="${to}"] .mail-link`;
  await reloadUntil(page, sel);
  return (await page.getAttribute(sel, "href"))!;
}

Deno.test({
  name:
    "[browser] the demo is a sandbox: sign-up through its outbox, a passkey on localhost, a key, a token, a filing, the request in the log",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const demo: Demo = await startDemo();
  const browser = await launchChromium();
  try {
    const profile = demo.printed.Profile!;
    const outbox = demo.printed.Outbox!;
    // The pages are on localhost (the passkeys' relying party), the service listens on loopback.
    equal(new URL(profile).hostname, "localhost");
    equal(new URL(demo.tokenServiceUrl).hostname, "localhost");
    ok(demo.lines.some((l) => / \(listening on http:\/\/127\.0\.0\.1:\d+\)$/.test(l)));
    ok(demo.printed.Desk!.endsWith("/admin"));

    const { page, cdp, authenticatorId } = await pageWithAuthenticator(browser);
    await page.goto(profile);
    await page.fill("#company", "Счетоводство Пример ООД");
    await page.fill("#sign-up-email", "dev@example.test");
    await page.click("#sign-up");
    await page.waitForSelector("#check-mail");
    equal(await page.$(".warn"), null, "no 'no SMTP server' warning in the demo");

    // The mail is in the outbox page and on the demo's output, with the same link.
    const link = await outboxLink(page, outbox, "dev@example.test");
    ok(
      demo.lines.some((l) => l.startsWith(`Mail to dev@example.test: ${link} `)),
      demo.lines.join("\n"),
    );
    await page.$$eval(".mail-link, pre", (els) => {
      for (const el of els) el.textContent = el.textContent.replace(/code=\S+/g, "code=…");
    });
    await page.screenshot({ path: "docs/profile-outbox.png", fullPage: true });
    await page.goto(link);
    await page.click("#continue");
    await page.waitForSelector("body[data-page=keys]");

    // A passkey works: the relying party is localhost.
    await page.click("#nav-passkeys");
    await page.click("#passkey-register");
    await page.waitForSelector("#passkeys tr td, #passkey-status.bad");
    equal(
      await page.$("#passkey-status.bad"),
      null,
      await page.textContent("#passkey-status") ?? "",
    );
    const auths = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    equal(auths.credentials.length, 1);

    // A test key, a token with it, a filing through the demo's agent.
    await page.click("#nav-keys");
    await page.fill("#test-label", "first");
    await page.click("#create-test-key");
    const secret = (await page.textContent("#secret"))!.trim();
    const issued = await fetch(`${demo.tokenServiceUrl}/api/v1/tokens/issue`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
    });
    equal(issued.status, 200);
    const requestId = issued.headers.get("x-request-id")!;
    ok(requestId, "every answer names its request");
    const { token } = await issued.json();
    const filing = fetch(`${demo.agentUrl}/api/v1/operations/vat`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "x-svc-batch-id": crypto.randomUUID(),
      },
      body: JSON.stringify({ eik: "121212121", year: 2026, month: 10 }),
    });
    const opened = await demo.log.waitLog("confirmation page opened", 20_000);
    const confirmPage = await browser.context.newPage();
    await confirmPage.goto(String(opened.url));
    await decide(confirmPage, "confirm");
    const filed = await filing;
    equal(filed.status, 200, await filed.clone().text());
    await filed.body?.cancel();

    // The token request is in the log, by its request id.
    await page.click("#nav-log");
    await reloadUntil(page, `#log tr[data-status='200']`);
    ok((await page.content()).includes(requestId));

    // The desk: the printed command gives an administrator's link (run from source here).
    const desk = demo.lines.find((l) => l.startsWith("Desk: "))!;
    const args = / token-service admin-invite (.*)\)$/.exec(desk)![1]!.split(" ");
    const invite = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "token-service", "admin-invite", ...args],
      env: { NO_COLOR: "1" },
    }).output();
    equal(invite.code, 0, new TextDecoder().decode(invite.stderr));
    const inviteUrl = /(http:\/\/localhost:\d+\/admin\/link\?code=\S+)/.exec(
      new TextDecoder().decode(invite.stdout),
    )![1]!;
    const admin = await browser.context.newPage();
    await admin.goto(inviteUrl);
    await admin.click("#continue");
    await admin.waitForSelector("body[data-page=admins]");
  } finally {
    await browser.close();
    await demo.stop();
  }
});
