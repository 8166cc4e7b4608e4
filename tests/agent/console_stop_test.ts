/**
 * Stopping the agent and opening its console again (docs/console.md § Stopping the agent,
 * § Opening the console), in process: the console's "Stop the agent" asks first and stops only
 * with the session's CSRF token; `agent stop`'s handshake needs the data folder's secret; the
 * page without a session says how to open the console on each OS and, where the agent can open
 * the browser, has it open a fresh link that lands on the page asked for.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { AGENT } from "../_helpers/agent_env.ts";
import { CONSOLE_SECRET, consoleEnv as env } from "../_helpers/console_env.ts";
import { consoleNext } from "../../src/agent/console/open_help.ts";

const tick = () => new Promise((r) => setTimeout(r, 10));

Deno.test("console stop: a question first, then the stop only with the page's CSRF token", async () => {
  let stops = 0;
  const e = await env({ stop: () => stops++, os: "linux", startCommand: "svc-filing agent" });
  const s = await e.signIn();
  const status = await (await e.req("/", { headers: { cookie: s.cookie } })).text();
  ok(status.includes('id="stop-agent"'), "the status page has the button");
  const q = await e.req("/console/stop", { headers: { cookie: s.cookie } });
  equal(q.status, 200);
  const question = await q.text();
  ok(question.includes('id="stop-confirm"') && question.includes('id="stop-cancel"'));
  match(question, /довърши подаванията/);
  await tick();
  equal(stops, 0, "asking is not stopping");
  // Without the CSRF token, or without a session: refused, nothing stops.
  const noCsrf = await e.req("/console/stop", { method: "POST", headers: { cookie: s.cookie } });
  equal(noCsrf.status, 403);
  equal((await noCsrf.json()).errorCode, "CONSOLE_CSRF_INVALID");
  const noSession = await e.req("/console/stop", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `csrf=${s.csrf}`,
  });
  equal(noSession.status, 403);
  await tick();
  equal(stops, 0);
  const ok1 = await e.req("/console/stop", {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: `csrf=${s.csrf}`,
  });
  equal(ok1.status, 200);
  const said = await ok1.text();
  ok(said.includes('id="stopping"'), said);
  ok(said.includes("svc-filing agent"), "says how to start it again");
  await tick();
  equal(stops, 1);
  // The session ended with the agent.
  equal((await e.req("/", { headers: { cookie: s.cookie } })).status, 403);
  await e.cleanup();
});

Deno.test("console stop: `agent stop`'s handshake needs the secret; an agent without a stop says so", async () => {
  let stops = 0;
  const e = await env({ stop: () => stops++ });
  for (const h of [{}, { "x-svc-console-secret": "wrong" }] as Record<string, string>[]) {
    const r = await e.req("/console/shutdown", { method: "POST", headers: h });
    equal(r.status, 403);
    equal((await r.json()).errorCode, "CONSOLE_LINK_INVALID");
  }
  await tick();
  equal(stops, 0);
  const r = await e.req("/console/shutdown", {
    method: "POST",
    headers: { "x-svc-console-secret": CONSOLE_SECRET },
  });
  equal(r.status, 202);
  deepEqual(await r.json(), { stopping: true });
  await tick();
  equal(stops, 1);
  await e.cleanup();

  const demo = await env();
  const d = await demo.req("/console/shutdown", {
    method: "POST",
    headers: { "x-svc-console-secret": CONSOLE_SECRET },
  });
  equal(d.status, 409);
  equal((await d.json()).errorCode, "AGENT_STOP_UNAVAILABLE");
  const s = await demo.signIn();
  const page = await demo.req("/console/stop", {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: `csrf=${s.csrf}`,
  });
  equal(page.status, 303, "back to the status page with the reason");
  match(await (await demo.req("/", { headers: { cookie: s.cookie } })).text(), /Ctrl\+C/);
  await demo.cleanup();
});

Deno.test("console: the page without a session says how to open it on this OS", async () => {
  const cases = [
    ["windows", /менюто „Старт“ и изберете „Агент за подаване към НАП“.*иконата на агента/],
    ["darwin", /„Applications“ \(или изпълнете svc-filing agent open в Terminal\)/],
    ["linux", /Изпълнете svc-filing agent open в терминал/],
  ] as const;
  for (const [os, words] of cases) {
    const e = await env({ os, openCommand: "svc-filing agent open" });
    const r = await e.req("/console/filings");
    equal(r.status, 403);
    const html = await r.text();
    match(html.replace(/<[^>]+>/g, "").replace(/\s+/g, " "), words, os);
    ok(!html.includes('id="reopen"'), `${os}: no button without a browser opener`);
    await e.cleanup();
  }
  // English on the switch.
  const e = await env({ os: "windows" });
  const en = await (await e.req("/", { headers: { cookie: "svc_lang=en" } })).text();
  match(en, /Open the Start menu and choose &quot;Агент за подаване към НАП&quot;/);
  await e.cleanup();
});

Deno.test("console: after a restart, an old session's page offers a fresh link to the same page", async () => {
  const opened: string[] = [];
  const e = await env({ os: "linux", openBrowser: (u) => opened.push(u) });
  // A cookie of the agent before its restart: this agent does not know it.
  const gone = await e.req("/console/filings?state=unknown", {
    headers: { cookie: "svc_console_17470=" + "x".repeat(43) },
  });
  equal(gone.status, 403);
  const page = await gone.text();
  match(page, /агентът е стартиран отново или сесията е изтекла/);
  ok(page.includes('id="reopen"'), "the button is offered");
  match(page, /name="back" value="\/console\/filings\?state=unknown"/);
  const pressed = await e.req("/console/reopen", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "sec-fetch-site": "same-origin",
      origin: AGENT,
    },
    body: "back=" + encodeURIComponent("/console/filings?state=unknown"),
  });
  equal(pressed.status, 200);
  match(await pressed.text(), /отвори конзолата в нов раздел/);
  equal(opened.length, 1);
  const link = opened[0]!;
  match(
    link,
    /^http:\/\/127\.0\.0\.1:17470\/console\/open\?code=[\w-]{43}&next=%2Fconsole%2Ffilings%3Fstate%3Dunknown$/,
  );
  // Pressed again at once: no second tab (a program pressing it in a loop).
  await e.req("/console/reopen", { method: "POST", headers: { "sec-fetch-site": "same-origin" } });
  equal(opened.length, 1);
  // The link opens a session and lands on the page that was asked for.
  const open = await e.agent.app.request(link, { headers: { "sec-fetch-site": "none" } });
  equal(open.status, 303);
  equal(open.headers.get("location"), "/console/filings?state=unknown");
  // Another site cannot press it.
  const foreign = await e.req("/console/reopen", {
    method: "POST",
    headers: { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
  });
  equal(foreign.status, 403);
  equal(opened.length, 1);
  await e.cleanup();
});

Deno.test("console: a fresh link lands only on a console page of this origin", () => {
  equal(consoleNext("/console/filings?state=unknown&q=1"), "/console/filings?state=unknown&q=1");
  equal(consoleNext("/console/receipt/abc"), "/console/receipt/abc");
  for (
    const bad of [
      "//evil.example/",
      "https://evil.example/",
      "/console/open?code=x",
      "/console/stop",
      "/console/../x",
      "/docs",
      "",
      undefined,
    ]
  ) {
    equal(consoleNext(bad), "/", String(bad));
  }
});
