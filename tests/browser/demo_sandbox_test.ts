/**
 * The integrator's first five minutes against the demo as `deno task start` runs it (`main.ts
 * demo`, a real process on loopback), nothing configured, in real Chromium with a virtual
 * authenticator (DevTools protocol, WebAuthn domain): sign up on the printed profile address, the
 * link from the demo's outbox (the page, and the line the demo printed), a passkey on
 * `http://localhost:<port>`, a test key, a token, a filing through the demo's agent confirmed on
 * its page; the token request found in the request log by its request id, with its detail; a
 * reload that makes no second key; a rotation that says until when the old secret works; a
 * revocation after its confirmation page, and the revoked key's 401 in the log and its CSV; usage
 * test and live apart, per key; the desk, through the administrator's link of
 * the command the demo printed. Screenshots: docs/profile-outbox.png, profile-log-detail.png,
 * profile-revoke.png, profile-log-errors.png, profile-usage-keys.png.
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

/** Search the log page for a request id (reloading until it is written) and open its detail. */
async function findRequest(page: Page, requestId: string): Promise<void> {
  for (let i = 0;; i++) {
    await page.fill("#filter-id", requestId);
    await page.click("#apply-filter");
    await page.waitForURL(/[?&]id=/);
    const rows = await page.$$("#log tr[data-status]");
    if (rows.length === 1) break;
    if (i === 40) throw new Error(`${requestId} not in the log`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await page.click("#log a.request-id");
  await page.waitForSelector("#request-detail");
  equal(await page.textContent("#detail-request-id"), requestId);
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
  // Application mails go out at the next notice tick: a short one for the walkthrough.
  const demo: Demo = await startDemo({ env: { SVC_NOTICE_INTERVAL_SECONDS: "1" } });
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

    // A labelled test key; the secret once; a reload makes no second key (POST → 303 → GET).
    await page.click("#nav-keys");
    await page.fill("#test-label", "first");
    await page.click("#create-test-key");
    const secret = (await page.textContent("#secret"))!.trim();
    ok(new URL(page.url()).pathname.endsWith("/profile/keys"), page.url());
    equal(await page.textContent("#keys tr[data-key] .key-label"), "first");
    await page.reload();
    await page.waitForSelector("#keys tr[data-key]");
    equal(await page.$("#secret"), null, "the secret is shown once");
    equal((await page.$$("#keys tr[data-key]")).length, 1, "a reload makes no second key");
    equal(
      (await page.textContent("#create-live-key"))!.includes("7"),
      true,
      "before a contract the live key's limits are on its button",
    );
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

    // The token request is in the log; found by its request id, its detail.
    await page.click("#nav-log");
    await reloadUntil(page, `#log tr[data-status='200']`);
    await findRequest(page, requestId);
    equal(await page.textContent("#detail-status"), "200");
    equal(await page.textContent("#detail-type-id"), "vat");
    equal(await page.textContent("#detail-eiks"), "121212121");
    ok((await page.textContent("#detail-key"))!.includes("first"));
    ok(/^\d+\.\d{3} ms$/.test((await page.textContent("#detail-latency"))!.trim()));
    await page.screenshot({ path: "docs/profile-log-detail.png", fullPage: true });

    // Rotation says until when the old secret works; revocation asks first.
    await page.click("#nav-keys");
    await page.click("#keys tr[data-key] button.rotate");
    await page.waitForSelector("#secret");
    const rotated = (await page.textContent("#secret"))!.trim();
    ok(
      (await page.textContent("#flash"))!.match(
        /работи до \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
      ),
    );
    await page.reload();
    await page.waitForSelector("#keys td.status[data-status=revoking]");
    const fresh = await page.getAttribute("#keys td.status[data-status=active]", "data-status");
    equal(fresh, "active");
    await page.click("#keys tr:has(td.status[data-status=active]) a.revoke");
    await page.waitForSelector("#revoke-confirm");
    await page.screenshot({ path: "docs/profile-revoke.png", fullPage: true });
    await page.click("#confirm-revoke");
    await page.waitForSelector("#flash.ok");
    ok(new URL(page.url()).search.includes("done=revoked"));
    await page.reload();
    equal((await page.$$("#keys tr[data-key]")).length, 2, "a reload revokes nothing more");

    // The revoked key's 401 is in the log under it, found by the requestId of its answer.
    const refused = await fetch(`${demo.tokenServiceUrl}/api/v1/tokens/issue`, {
      method: "POST",
      headers: { authorization: `Bearer ${rotated}`, "content-type": "application/json" },
      body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
    });
    equal(refused.status, 401);
    const answer = await refused.json();
    equal(answer.errorCode, "API_KEY_REVOKED");
    await page.click("#nav-log");
    await findRequest(page, answer.requestId);
    equal(await page.textContent("#detail-status"), "401");
    equal(await page.textContent("#detail-error-code"), "API_KEY_REVOKED");
    ok((await page.textContent("#detail-error-text"))!.includes("revoked"));
    // The list filtered to errors, and its CSV.
    await page.click("#back-to-log");
    await page.selectOption("#filter-status", "errors");
    await page.selectOption("#filter-mode", "test");
    await page.click("#apply-filter");
    await page.waitForURL(/status=errors/);
    equal((await page.$$("#log tr[data-status]")).length, 1);
    await page.screenshot({ path: "docs/profile-log-errors.png", fullPage: true });
    const csvUrl = new URL((await page.getAttribute("#log-csv", "href"))!, page.url());
    const csv = await page.request.get(csvUrl.href);
    equal(csv.status(), 200);
    const lines = (await csv.text()).trim().split("\r\n");
    equal(lines.length, 2, lines.join("\n"));
    ok(lines[0]!.startsWith("time_utc,request_id,key_id"));
    ok(lines[1]!.includes(answer.requestId) && lines[1]!.includes("API_KEY_REVOKED"));

    // Usage: test and live apart, per key.
    await page.click("#nav-usage");
    await reloadUntil(page, "#usage-test:text-is('1')");
    equal(await page.textContent("#usage-live"), "0");
    equal(await page.textContent("#usage-keys tr[data-mode=test] td.tokens"), "1");
    await page.screenshot({ path: "docs/profile-usage-keys.png", fullPage: true });

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

    // A colleague invited by e-mail signs in through the outbox, then with their own passkey
    // (another browser: cookies and authenticator of their own).
    await page.click("#nav-members");
    await page.fill("#member-email", "colleague@example.test");
    await page.selectOption("#member-role", "developer");
    await page.click("#member-invite");
    await page.waitForSelector("#flash.ok");
    const other = await launchChromium();
    try {
      const { page: colleague } = await pageWithAuthenticator(other);
      await colleague.goto(await outboxLink(colleague, outbox, "colleague@example.test"));
      await colleague.click("#continue");
      await colleague.waitForSelector("body[data-page=passkeys]");
      await colleague.click("#passkey-register");
      await colleague.waitForSelector("#passkeys tr td, #passkey-status.bad");
      equal(await colleague.$("#passkey-status.bad"), null);
      await colleague.click("#sign-out");
      await colleague.click("#passkey-sign-in");
      await colleague.waitForSelector("body[data-page=keys]");
      equal(await colleague.textContent("#who"), "colleague@example.test");
    } finally {
      await other.close();
    }

    // An application, approved on the desk; its mail (Bulgarian, the sign-up's language) in the
    // outbox after the next notice tick.
    await page.click("#nav-contract");
    await page.fill("#apply-use", "VAT returns for our clients");
    await page.click("#apply");
    await page.waitForSelector("#flash.ok");
    await admin.click("#nav-applications");
    await admin.locator("#pending tr[data-application] button.approve").first().click();
    await admin.waitForSelector("#flash.ok");
    await page.goto(outbox);
    await reloadUntil(page, `.mail[data-to="dev@example.test"]:has-text("е одобрена")`);
  } finally {
    await browser.close();
    await demo.stop();
  }
});
