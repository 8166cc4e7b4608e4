/**
 * The people of the profile and the desk, walked in real Chromium against the token service as
 * a real program with a real SMTP sink (docs/token-service.md § Team and roles, § Taking
 * access back, § Mails to the integrator): an owner invites a colleague, who signs in with the
 * mailed link and then with their own passkey (their own virtual authenticator); a read-only
 * member is refused a key; the owner ends a session of theirs opened in another browser, and
 * removes their last passkey through the mailed link (the authenticator's passkey then signs in
 * no more); an administrator removes another, whose desk stops at once; an application is
 * approved and its mail arrives. The public URL is `http://localhost:<port>` (WebAuthn refuses
 * IP addresses). Screenshots of the new and changed pages go to docs/.
 */
import { equal, match, ok } from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { type Chromium, launchChromium, skipBrowser, stopWithin } from "../_helpers/browser.ts";
import { freePort, MAIN, startTokenService } from "../_helpers/e2e.ts";
import { type SmtpSink, startSmtpSink } from "../_helpers/smtp.ts";

/** A new tab with its own virtual platform authenticator (DevTools protocol, WebAuthn). */
async function pageWithAuthenticator(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `docs/${name}.png`, fullPage: true });

/** The newest link to `path` in a mail to `to` after the first `after` mails (waits). */
async function mailedLink(sink: SmtpSink, to: string, after: number, path: string) {
  const re = new RegExp(`(http://\\S+${path.replaceAll("/", "\\/")}\\?code=\\S+)`);
  for (let i = 0; i < 100; i++) {
    const m = sink.messages.slice(after).find((x) => x.to.includes(to) && re.test(x.text));
    if (m) return re.exec(m.text)![1]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to} with ${path}`);
}

/** Register a passkey on the current page (its `#passkey-register` button). */
async function createPasskey(page: Page, done: string): Promise<void> {
  await page.click("#passkey-register");
  await page.waitForSelector(`${done}, #passkey-status.bad`);
  equal(await page.$("#passkey-status.bad"), null, await page.textContent("#passkey-status") ?? "");
}

/** Sign in to the profile with a mailed link in `page`. */
async function signInByMail(page: Page, sink: SmtpSink, url: string, email: string) {
  const n = sink.messages.length;
  await page.goto(`${url}/profile`);
  await page.fill("#sign-in-email", email);
  await page.click("#sign-in");
  await page.waitForSelector("#check-mail");
  await page.goto(await mailedLink(sink, email, n, "/profile/link"));
  await page.click("#continue");
  await page.waitForSelector("body[data-page=keys]");
}

Deno.test({
  name: "profile and desk people in Chromium: team, roles, sessions, passkeys, admins, mails",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "svc-people-" });
    const sink = await startSmtpSink();
    const port = freePort();
    const url = `http://localhost:${port}`;
    const ts = await startTokenService(`${dir}/ts`, {
      SVC_TOKEN_ISSUER: url,
      SVC_SMTP_HOST: "127.0.0.1",
      SVC_SMTP_PORT: String(sink.port),
      SVC_SMTP_FROM: "noreply@svc.test",
      SVC_NOTICE_INTERVAL_SECONDS: "1",
    }, port);
    const browsers: Chromium[] = [];
    const browser = async () => {
      const b = await launchChromium();
      browsers.push(b);
      return b;
    };
    try {
      // The owner signs up.
      const owner = await pageWithAuthenticator((await browser()).context);
      await owner.goto(`${url}/profile`);
      await owner.fill("#company", "Счетоводство Пример ООД");
      await owner.fill("#sign-up-email", "owner@example.test");
      await owner.selectOption("#locale", "en");
      await owner.click("#sign-up");
      await owner.waitForSelector("#check-mail");
      await owner.goto(await mailedLink(sink, "owner@example.test", 0, "/profile/link"));
      await owner.click("#continue");
      await owner.waitForSelector("body[data-page=keys]");

      // A colleague, invited as developer, signs in by the mail and then with their own passkey.
      await owner.click("#nav-members");
      let n = sink.messages.length;
      await owner.fill("#member-email", "dev@example.test");
      await owner.selectOption("#member-role", "developer");
      await owner.click("#member-invite");
      await owner.waitForSelector("#flash.ok");
      const colleagueBrowser = await browser();
      const colleague = await pageWithAuthenticator(colleagueBrowser.context);
      await colleague.goto(await mailedLink(sink, "dev@example.test", n, "/profile/link"));
      await colleague.click("#continue");
      await colleague.waitForSelector("body[data-page=passkeys]");
      await createPasskey(colleague, "#passkeys tr[data-passkey]");
      await colleague.click("#sign-out");
      await colleague.click("#passkey-sign-in");
      await colleague.waitForSelector("body[data-page=keys]");
      equal(await colleague.textContent("#who"), "dev@example.test");
      await colleague.fill("#test-label", "dev's key");
      await colleague.click("#create-test-key");
      await colleague.waitForSelector("#secret");
      await colleague.click("#sign-out");

      // A read-only member: refused a key.
      n = sink.messages.length;
      await owner.fill("#member-email", "viewer@example.test");
      await owner.selectOption("#member-role", "readonly");
      await owner.click("#member-invite");
      await owner.waitForSelector("tr[data-member='viewer@example.test'], #flash.ok");
      const viewer = await colleagueBrowser.context.newPage();
      await viewer.goto(await mailedLink(sink, "viewer@example.test", n, "/profile/link"));
      await viewer.click("#continue");
      await viewer.waitForSelector("body[data-page=passkeys]");
      await viewer.click("#nav-keys");
      await viewer.fill("#test-label", "not allowed");
      await viewer.click("#create-test-key");
      await viewer.waitForSelector("#error");
      equal(await viewer.getAttribute("#error", "data-code"), "WEB_FORBIDDEN");
      match((await viewer.textContent("#error"))!, /само преглед/);
      await shot(viewer, "profile-role-refused");
      await viewer.goto(`${url}/profile/members`);
      await viewer.click("#sign-out");
      await viewer.close();

      await owner.goto(`${url}/profile/members`);
      await owner.waitForSelector("#team-audit tr[data-action='key.create']");
      match((await owner.textContent("#team-audit"))!, /dev@example\.test/);
      await shot(owner, "profile-members");

      // The owner's second session, in the colleague's browser; ended from the first.
      const elsewhere = await colleagueBrowser.context.newPage();
      await signInByMail(elsewhere, sink, url, "owner@example.test");
      await owner.click("#nav-sessions");
      equal(await owner.locator("#sessions tr[data-session]").count(), 2);
      await shot(owner, "profile-sessions");
      await owner.locator("#sessions tr[data-session]:not([data-current]) button.session-end")
        .click();
      await owner.waitForSelector("body[data-page=sessions]");
      equal(await owner.locator("#sessions tr[data-session]").count(), 1);
      await elsewhere.reload();
      await elsewhere.waitForSelector("#sign-in-form");

      // The owner's passkey, then removed: the last one, so through the mailed link.
      await owner.click("#nav-passkeys");
      await createPasskey(owner, "#passkeys tr[data-passkey]");
      await shot(owner, "profile-passkeys-remove");
      n = sink.messages.length;
      await owner.click("button.passkey-remove");
      await owner.waitForSelector("#check-mail");
      const removal = await mailedLink(sink, "owner@example.test", n, "/profile/passkey/remove");
      await owner.goto(removal);
      await owner.click("#confirm-remove");
      await owner.waitForSelector("#flash.ok");
      await owner.goto(`${url}/profile/passkeys`);
      equal(await owner.locator("#passkeys tr[data-passkey]").count(), 0);
      // The authenticator still holds it; the service refuses it.
      await owner.click("#sign-out");
      await owner.click("#passkey-sign-in");
      await owner.waitForSelector("#passkey-status.bad");
      await signInByMail(owner, sink, url, "owner@example.test");

      // The application, for the desk to approve.
      await owner.click("#nav-contract");
      await owner.fill("#apply-use", "VAT returns for our clients");
      await owner.click("#apply");
      await owner.waitForSelector("#flash.ok");

      // The administrators: the first by `token-service admin-invite`, a second from the desk.
      const invite = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          MAIN,
          "token-service",
          "admin-invite",
          "--email",
          "root@svc.test",
          "--url",
          url,
          "--data-dir",
          `${dir}/ts`,
        ],
        env: { NO_COLOR: "1" },
      }).output();
      equal(invite.code, 0, new TextDecoder().decode(invite.stderr));
      const rootLink = /(http:\/\/\S+\/admin\/link\?code=\S+)/.exec(
        new TextDecoder().decode(invite.stdout),
      )![1]!;
      const desk = await pageWithAuthenticator((await browser()).context);
      await desk.goto(rootLink);
      await desk.click("#continue");
      await desk.waitForSelector("body[data-page=admins]");
      await createPasskey(desk, "#passkeys tr[data-passkey]");
      await desk.fill("#invite-email", "second@svc.test");
      await desk.click("#invite");
      const secondLink = (await desk.textContent("#invite-link"))!.trim();
      const second = await (await browser()).context.newPage();
      await second.goto(secondLink);
      await second.click("#continue");
      await second.waitForSelector("body[data-page=admins]");
      await desk.goto(`${url}/admin/admins`);
      await shot(desk, "desk-admins-remove");
      await desk.locator("tr[data-admin='second@svc.test'] button.admin-remove").click();
      await desk.waitForSelector("body[data-page=admins]");
      equal(await desk.locator("tr[data-admin='second@svc.test']").count(), 0);
      await second.reload();
      await second.waitForSelector("#passkey-sign-in");
      await desk.click("#nav-sessions");
      await shot(desk, "desk-sessions");

      // The approval and its mail.
      await desk.click("#nav-applications");
      const row = desk.locator("#pending tr[data-application]");
      await row.locator("input.note").first().fill("Welcome aboard");
      n = sink.messages.length;
      await row.locator("button.approve").click();
      await desk.waitForSelector("#flash.ok");
      let mail = undefined;
      for (let i = 0; i < 100 && !mail; i++) {
        mail = sink.messages.slice(n).find((m) => /approved$/.test(m.subject));
        if (!mail) await new Promise((r) => setTimeout(r, 100));
      }
      ok(mail, "the approval's mail arrived");
      equal(mail.to[0], "owner@example.test");
      match(mail.text, /The administrator's note: Welcome aboard/);
      await owner.click("#nav-contract");
      for (let i = 0; i < 40; i++) {
        if (await owner.$("#application-history tr[data-step='application_approved']")) break;
        await new Promise((r) => setTimeout(r, 250));
        await owner.reload();
      }
      equal(await owner.getAttribute("#phase", "data-phase"), "3");
      await owner.waitForSelector("#application-history tr[data-step='application_approved']");
      await shot(owner, "profile-contract-history");
    } finally {
      for (const b of browsers) await b.close();
      await stopWithin(ts);
      await sink.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
