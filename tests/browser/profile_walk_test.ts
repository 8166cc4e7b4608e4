/**
 * The integrator's profile, walked as a person would in real Chromium against the token service
 * as a real program, with a real SMTP sink: sign up, open the link from the mail, create a test
 * key, use it for a real token and have one request refused, find both in the request log
 * (filtered to the refused one), see the usage chart; create a passkey (Chromium's virtual
 * authenticator through the DevTools protocol), sign out, sign in with the passkey; sign out
 * and back in with a new link (the way back when a passkey is lost); apply for a contract; the
 * first administrator, invited by `token-service admin-invite`, opens the desk in another
 * browser, creates a passkey, invites a second one, signs out and in with the passkey, approves
 * the application and finds it in the audit log; the integrator then sees phase 3. The service's public URL
 * is `http://localhost:<port>`: WebAuthn refuses IP addresses as the relying party.
 * Each page's screenshot is written to docs/ (docs/token-service.md § The profile shows them).
 */
import { equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { type Chromium, launchChromium, skipBrowser, stopWithin } from "../_helpers/browser.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { freePort, MAIN, type Proc, startTokenService } from "../_helpers/e2e.ts";
import { startNginx } from "../_helpers/nginx.ts";
import { freshPgSchema, pgIgnored } from "../_helpers/postgres.ts";
import { serviceEnv } from "../_helpers/token_procs.ts";
import { type SmtpSink, startSmtpSink } from "../_helpers/smtp.ts";

/** A new tab with a virtual platform authenticator (DevTools protocol, WebAuthn domain) that
 * holds discoverable passkeys and answers without a person. */
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

/** Screenshots are written by the SQLite run only. */
let shots = true;

async function shot(page: Page, name: string) {
  if (shots) await page.screenshot({ path: `docs/${name}.png`, fullPage: true });
}

/** Where the walk runs: the public URL, the instances behind it, how `admin-invite` reaches the
 * same store. */
interface Site {
  readonly url: string;
  readonly instances: readonly string[];
  readonly inviteArgs: readonly string[];
  readonly inviteEnv: Record<string, string>;
  stop(): Promise<void>;
}

const smtpEnv = (sink: SmtpSink, url: string) => ({
  SVC_TOKEN_ISSUER: url,
  SVC_SMTP_HOST: "127.0.0.1",
  SVC_SMTP_PORT: String(sink.port),
  SVC_SMTP_FROM: "noreply@svc.test",
});

/** One token service on SQLite; the public URL is `http://localhost:<port>` (WebAuthn refuses
 * IP addresses as the relying party). */
async function sqliteSite(dir: string, sink: SmtpSink): Promise<Site> {
  const port = freePort();
  const url = `http://localhost:${port}`;
  const ts = await startTokenService(`${dir}/ts`, smtpEnv(sink, url), port);
  return {
    url,
    instances: [ts.url],
    inviteArgs: ["--data-dir", `${dir}/ts`],
    inviteEnv: {},
    stop: () => stopWithin(ts),
  };
}

/** Two token services on one PostgreSQL schema behind nginx (examples/scale-out). */
async function postgresSite(dir: string, sink: SmtpSink): Promise<Site> {
  const pg = await freshPgSchema();
  const port = freePort();
  const url = `http://localhost:${port}`;
  const env = { ...serviceEnv(pg.url), ...smtpEnv(sink, url) };
  const procs: Proc[] = await Promise.all(
    ["a", "b"].map((n) => startTokenService(`${dir}/${n}`, env)),
  );
  const nginx = await startNginx(procs.map((p) => new URL(p.url).host), port);
  return {
    url,
    instances: procs.map((p) => p.url),
    inviteArgs: ["--data-dir", `${dir}/a`],
    inviteEnv: { SVC_DATABASE_URL: pg.url },
    async stop() {
      await nginx.stop();
      for (const p of procs) await stopWithin(p);
      await pg.drop();
    },
  };
}

/** The link in the newest mail to `to` (waits for it). */
async function mailedLink(sink: SmtpSink, to: string, after: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = sink.messages.slice(after).find((x) => x.to.includes(to));
    if (m) return /(http:\/\/\S+\/profile\/link\?code=\S+)/.exec(m.text)![1]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

async function walk(open: (dir: string, sink: SmtpSink) => Promise<Site>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-profile-" });
  const sink = await startSmtpSink();
  const site = await open(dir, sink);
  const url = site.url;
  const browser = await launchChromium();
  try {
    const { page, cdp, authenticatorId } = await pageWithAuthenticator(browser);
    await page.goto(`${url}/profile`);
    await shot(page, "profile-sign-in");
    await page.fill("#company", "Счетоводство Пример ООД");
    await page.fill("#sign-up-email", "Dev@Example.test");
    await page.click("#sign-up");
    await page.waitForSelector("#check-mail");

    // The mail's link opens a page with one button; pressing it signs in.
    const link = await mailedLink(sink, "dev@example.test", 0);
    await page.goto(link);
    await page.click("#continue");
    await page.waitForSelector("body[data-page=keys]");
    equal(await page.textContent("#integrator-name"), "Счетоводство Пример ООД");
    equal(await page.textContent("#who"), "dev@example.test");
    // The session lives in the store: each instance knows it.
    const cookie = (await browser.context.cookies()).find((k) => k.name === "svc_profile")!;
    for (const instance of site.instances) {
      const r = await fetch(`${instance}/profile/keys`, {
        headers: { cookie: `svc_profile=${cookie.value}` },
        redirect: "manual",
      });
      equal(r.status, 200, instance);
      ok((await r.text()).includes("Счетоводство Пример ООД"), instance);
    }

    // A test key at once: the secret once, the curl line with it.
    await page.fill("#test-label", "first");
    await page.click("#create-test-key");
    const secret = (await page.textContent("#secret"))!.trim();
    match(secret, /^svc_test_[A-Za-z0-9_-]{43}$/);
    ok((await page.textContent("#curl"))!.includes(secret));
    // The secret on the screenshot stays a placeholder.
    for (const id of ["#secret", "#curl"]) {
      await page.$eval(id, (el) => {
        el.textContent = el.textContent.replace(/svc_test_[A-Za-z0-9_-]{43}/, "svc_test_…");
      });
    }
    await shot(page, "profile-keys");
    await page.click("#nav-keys");
    await page.waitForSelector("#keys tr[data-key]");
    equal(await page.$("#secret"), null, "the secret is shown only once");

    // A real token with it, and a refused request.
    const issue = (body: unknown) =>
      fetch(`${url}/api/v1/tokens/issue`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const good = await issue({ typeId: "vat", eik: "121212121" });
    equal(good.status, 200);
    const token = (await good.json()).token as string;
    const bad = await issue({ typeId: "no_such_operation", eik: "121212121" });
    equal(bad.status, 400);
    const badRequestId = bad.headers.get("x-request-id")!;
    await bad.body?.cancel();

    // Each instance writes its part of the log every second (request_log.ts): a person who
    // does not see a request yet reloads.
    await page.click("#nav-log");
    await reloadUntil(page, "#log tr[data-status='200'] ~ tr, #log tr[data-status='400'] ~ tr");
    const html = await page.content();
    ok(!html.includes(secret) && !html.includes(token), "no secret, no token in the log");
    await shot(page, "profile-log");
    await page.selectOption("#filter-status", "errors");
    await page.click("#apply-filter");
    await page.waitForURL(/status=errors/);
    const rows = await page.$$eval(
      "#log tr[data-status]",
      (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent.trim())),
    );
    equal(rows.length, 1);
    equal(rows[0]![2], "no_such_operation");
    equal(rows[0]![4], "400");
    equal(rows[0]![5], "UNKNOWN_TYPE_ID");
    equal(rows[0]![6], badRequestId);

    await page.click("#nav-usage");
    await reloadUntil(page, "#usage-total:text-is('1')");
    await shot(page, "profile-usage");

    // A passkey, then sign-out and sign-in with it.
    await page.click("#nav-passkeys");
    await page.click("#passkey-register");
    await page.waitForSelector("#passkeys tr td, #passkey-status.bad");
    equal(
      await page.$("#passkey-status.bad"),
      null,
      await page.textContent("#passkey-status") ?? "",
    );
    await shot(page, "profile-passkeys");
    const auths = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    equal(auths.credentials.length, 1, "the passkey lives in the authenticator");
    await page.click("#sign-out");
    await page.waitForSelector("#passkey-sign-in").catch(async (e) => {
      throw new Error(`${e}: ${page.url()} ${(await page.content()).slice(-1500)}`);
    });
    await page.click("#passkey-sign-in");
    await page.waitForSelector("body[data-page=keys]");
    equal(await page.textContent("#who"), "dev@example.test");

    // Sign out: the session is gone on the server; a new link signs in again.
    await page.click("#sign-out");
    await page.goto(`${url}/profile/keys`);
    await page.waitForSelector("#sign-in-form");
    const before = sink.messages.length;
    await page.fill("#sign-in-email", "dev@example.test");
    await page.click("#sign-in");
    await page.waitForSelector("#check-mail");
    await page.goto(await mailedLink(sink, "dev@example.test", before));
    await page.click("#continue");
    await page.waitForSelector("#keys tr[data-key]");

    // Phase 2: the application.
    await page.click("#nav-contract");
    equal(await page.getAttribute("#phase", "data-phase"), "1");
    await page.fill("#apply-use", "VAT returns and payroll declarations for our clients");
    await page.click("#apply");
    await page.waitForSelector("#flash.ok");
    equal(await page.getAttribute("#phase", "data-phase"), "2");

    // The administrator: the first one through `token-service admin-invite`, in another
    // browser (its own profile, its own authenticator).
    const invite = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "token-service",
        "admin-invite",
        "--email",
        "Admin@Svc.test",
        "--url",
        url,
        ...site.inviteArgs,
      ],
      env: { NO_COLOR: "1", ...site.inviteEnv },
    }).output();
    equal(invite.code, 0, new TextDecoder().decode(invite.stderr));
    const inviteUrl = /(http:\/\/\S+\/admin\/link\?code=\S+)/.exec(
      new TextDecoder().decode(invite.stdout),
    )![1]!;
    const adminBrowser = await launchChromium();
    try {
      const { page: desk } = await pageWithAuthenticator(adminBrowser);
      await desk.goto(`${url}/admin`);
      await shot(desk, "desk-sign-in");
      await desk.goto(inviteUrl);
      await desk.click("#continue");
      await desk.waitForSelector("body[data-page=admins]");
      await desk.click("#passkey-register");
      await desk.waitForSelector("#my-passkeys:text('1'), #passkey-status.bad");
      equal(
        await desk.$("#passkey-status.bad"),
        null,
        await desk.textContent("#passkey-status") ?? "",
      );
      await desk.fill("#invite-email", "second@svc.test");
      await desk.click("#invite");
      await desk.waitForSelector("#invite-link");
      await desk.$eval("#invite-link", (el) => {
        el.textContent = el.textContent.replace(/code=\S+/, "code=…");
      });
      await shot(desk, "desk-admins");
      // Signed out, back in with the passkey.
      await desk.click("#sign-out");
      await desk.click("#passkey-sign-in");
      await desk.waitForSelector("body[data-page=applications]");
      const row = desk.locator("#pending tr[data-application]");
      equal(await row.count(), 1);
      await row.locator(".ends-at").fill("2031-01-31");
      await row.locator("input.note").first().fill("Welcome");
      await shot(desk, "desk-applications");
      await row.locator("button.approve").click();
      await desk.waitForSelector("#flash.ok");
      await desk.click("#nav-integrators");
      await shot(desk, "desk-integrators");
      await desk.click("#nav-contracts");
      await desk.waitForSelector("#contracts tr[data-status=active]");
      await shot(desk, "desk-contracts");
      await desk.click("#nav-statements");
      await shot(desk, "desk-statements");
      await desk.click("#nav-usage");
      await shot(desk, "desk-usage");
      await desk.click("#nav-audit");
      await desk.waitForSelector("#audit tr[data-action='application.approve']");
      await desk.waitForSelector("#audit tr[data-action='application.submit']");
      await desk.waitForSelector("#audit tr[data-action='key.create']");
      await shot(desk, "desk-audit");
    } finally {
      await adminBrowser.close();
    }

    // Phase 3 for the integrator.
    await page.click("#nav-contract");
    equal(await page.locator("#applications tr[data-status]").count(), 1);
    equal(await page.getAttribute("#phase", "data-phase"), "3");
    match((await page.textContent("#contracts"))!, /2031-01-31/);
    await shot(page, "profile-contract");
    // Under a contract the live key's button no longer speaks of phase 1's limits.
    await page.click("#nav-keys");
    equal(await page.getAttribute("#create-keys", "data-contract"), "yes");
    ok(!/7|3/.test((await page.textContent("#create-live-key"))!));
  } finally {
    await browser.close();
    await site.stop();
    await sink.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "profile and desk on SQLite: sign-up, test key, token, request log, usage, passkeys, application, approval",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => walk(sqliteSite),
});

Deno.test({
  name:
    "profile and desk on PostgreSQL, two instances behind nginx: the same walk, a session of either instance works on the other",
  ignore: skipBrowser() || pgIgnored() ||
    skipUnless(["nginx"], "the token service behind nginx"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    shots = false;
    try {
      await walk(postgresSite);
    } finally {
      shots = true;
    }
  },
});
