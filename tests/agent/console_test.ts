/**
 * The console's gate (issue #14 § Where and who), in process: the one-time link, the session
 * cookie, CSRF, Bearer tokens, cross-site requests and CORS, the `agent open` handshake; and
 * the status page's facts (callers, autostart toggle on a real XDG folder).
 */
import { equal, match, ok } from "node:assert/strict";
import { AGENT, agentEnv } from "../_helpers/agent_env.ts";
import { CallerBook } from "../../src/agent/http/callers.ts";
import {
  autostartStatus,
  installAutostart,
  uninstallAutostart,
} from "../../src/agent/host/autostart.ts";
import type { ConsoleDeps } from "../../src/agent/console/deps.ts";

const SECRET = "s".repeat(43);

async function env(extra: Partial<ConsoleDeps> = {}) {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-console-" });
  const callers = new CallerBook(() => Date.now());
  const e = await agentEnv({
    callers,
    console: {
      dataDir,
      tokenServiceUrl: "http://127.0.0.1:9", // nothing listens: "unreachable"
      linkSecret: SECRET,
      fetch: () => Promise.reject(new Error("connection refused")),
      ...extra,
    },
  });
  const req = (path: string, init: RequestInit = {}) =>
    e.agent.app.request(`${AGENT}${path}`, init);
  /** Open the console as `agent open` does; returns the cookie header and the CSRF token. */
  const signIn = async () => {
    const link = await req("/console/links", {
      method: "POST",
      headers: { "x-svc-console-secret": SECRET },
    });
    equal(link.status, 200);
    const { url } = await link.json();
    match(url, /^http:\/\/127\.0\.0\.1:17470\/console\/open\?code=[\w-]{43}$/);
    const opened = await e.agent.app.request(url, { headers: { "sec-fetch-site": "none" } });
    equal(opened.status, 303);
    const set = opened.headers.get("set-cookie")!;
    const cookie = set.split(";")[0]!;
    const page = await req("/", { headers: { cookie } });
    equal(page.status, 200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    return { url, set, cookie, csrf };
  };
  const cleanup = () => Deno.remove(dataDir, { recursive: true });
  return { ...e, dataDir, callers, req, signIn, cleanup };
}

Deno.test("console: without a session every page explains how to open it (403)", async () => {
  const e = await env();
  for (const path of ["/", "/console/senders", "/console/filings", "/console/log"]) {
    const r = await e.req(path);
    equal(r.status, 403, path);
    const text = await r.text();
    ok(text.includes('id="how-to-open"'), path);
    ok(!text.includes('id="status"'), path);
  }
  await e.cleanup();
});

Deno.test("console: the one-time link sets a strict, port-named session cookie once", async () => {
  const e = await env();
  const s = await e.signIn();
  match(s.set, /^svc_console_17470=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
  const again = await e.agent.app.request(s.url);
  equal(again.status, 403, "a link works once");
  ok((await again.text()).includes("вече е използвана"));
  const page = await e.req("/", { headers: { cookie: s.cookie } });
  equal(page.status, 200);
  equal(page.headers.get("x-frame-options"), "DENY");
  match(page.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
  equal(page.headers.get("cache-control"), "no-store");
  await e.cleanup();
});

Deno.test("console: `agent open`'s handshake needs the data folder's secret", async () => {
  const e = await env();
  for (const h of [{}, { "x-svc-console-secret": "wrong" }] as Record<string, string>[]) {
    const r = await e.req("/console/links", { method: "POST", headers: h });
    equal(r.status, 403);
    equal((await r.json()).errorCode, "CONSOLE_LINK_INVALID");
  }
  await e.cleanup();
});

Deno.test("console: a change without the CSRF token is refused and changes nothing", async () => {
  const xdg = await Deno.makeTempDir();
  const opts = {
    os: "linux" as const,
    env: { XDG_CONFIG_HOME: xdg, HOME: xdg },
    command: ["/opt/svc/svc-filing", "agent"],
    run: () => Promise.resolve({ code: 0, stdout: "", stderr: "" }),
  };
  const e = await env({
    autostart: {
      status: () => autostartStatus(opts),
      set: (on) => on ? installAutostart(opts) : uninstallAutostart(opts),
    },
  });
  const s = await e.signIn();
  const post = (body: Record<string, string>, cookie = s.cookie) =>
    e.req("/console/autostart", {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
  for (const body of [{ on: "1" }, { on: "1", csrf: "forged" }] as Record<string, string>[]) {
    const r = await post(body);
    equal(r.status, 403);
    equal((await r.json()).errorCode, "CONSOLE_CSRF_INVALID");
  }
  const noSession = await post({ on: "1", csrf: s.csrf }, "svc_console_17470=unknown");
  equal(noSession.status, 403);
  equal((await noSession.json()).errorCode, "CONSOLE_SESSION_REQUIRED");
  equal((await autostartStatus(opts)).installed, false, "nothing was registered");

  const on = await post({ on: "1", csrf: s.csrf });
  equal(on.status, 303);
  equal((await autostartStatus(opts)).installed, true, "the toggle really registers");
  const page = await (await e.req("/", { headers: { cookie: s.cookie } })).text();
  ok(page.includes("Стартиране при влизане: включено"), "the message after the action");
  ok(page.includes('name="on" value="0"'), "the toggle now turns it off");
  equal((await post({ on: "0", csrf: s.csrf })).status, 303);
  equal((await autostartStatus(opts)).installed, false);
  await e.cleanup();
  await Deno.remove(xdg, { recursive: true });
});

Deno.test("console: integrator tokens and foreign pages never get in, and no CORS", async () => {
  const e = await env();
  const tok = await e.token({ typeId: "nap_catalog" });
  const bearer = await e.req("/", { headers: { authorization: `Bearer ${tok}` } });
  equal(bearer.status, 403);
  ok((await bearer.text()).includes('id="how-to-open"'));
  const s = await e.signIn();
  const foreign = await e.req("/", {
    headers: {
      cookie: s.cookie,
      origin: "https://app.example",
      "sec-fetch-site": "cross-site",
    },
  });
  equal(foreign.status, 403);
  equal(foreign.headers.get("access-control-allow-origin"), null);
  const preflight = await e.req("/console/autostart", {
    method: "OPTIONS",
    headers: {
      origin: AGENT.replace("127.0.0.1", "localhost"),
      "access-control-request-method": "POST",
    },
  });
  equal(preflight.headers.get("access-control-allow-origin"), null);
  await e.cleanup();
});

Deno.test("console status: version, port, data folder, reachability and the callers", async () => {
  const e = await env();
  const tok = await e.token({ typeId: "nap_catalog" });
  equal((await e.call("nap_catalog", tok, {})).status, 200);
  const s = await e.signIn();
  const html = await (await e.req("/", { headers: { cookie: s.cookie } })).text();
  match(html, /id="port">17470</);
  ok(html.includes(e.dataDir));
  ok(html.includes("не отговаря"), "the token service is unreachable");
  ok(html.includes("тестов"), "the test mode was seen");
  match(html, /<table id="integrators">[\s\S]*local|—/);
  equal(e.callers.list().length, 1);
  equal(e.callers.list()[0]!.modes.join(), "test");
  await e.cleanup();
});
