/**
 * The console's gate (docs/console.md § What protects it), in process: the one-time link, the
 * session cookie, CSRF, Bearer tokens, cross-site requests and CORS, the `agent open` handshake;
 * and the status page's facts (callers, autostart toggle on a real XDG folder).
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { AGENT } from "../_helpers/agent_env.ts";
import { consoleEnv as env } from "../_helpers/console_env.ts";
import {
  autostartStatus,
  installAutostart,
  uninstallAutostart,
} from "../../src/agent/host/autostart.ts";
import { LogRing, ringLogger } from "../../src/log.ts";

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

Deno.test("console log: last lines, level and request filters, redacted, download", async () => {
  const logs = new LogRing(1000);
  const log = ringLogger(() => {}, logs);
  const e = await env({ logs });
  for (let i = 0; i < 1100; i++) log("debug", "noise", {});
  log("debug", "request", { requestId: "req-1", path: "/x" });
  log("info", "filed", { requestId: "req-2", eik: "8001010008", token: "eyJa.b.c" });
  log("error", "boom", { requestId: "req-2" });
  const s = await e.signIn();
  const get = async (q: string) =>
    await (await e.req(`/console/log${q}`, { headers: { cookie: s.cookie } })).text();
  const info = await get("");
  ok(!info.includes("noise"), "debug lines are hidden by default");
  ok(info.includes("80******08") && !info.includes("8001010008"), "EGNs masked");
  ok(!info.includes("eyJa.b.c"), "tokens redacted");
  const byReq = await get("?level=debug&requestId=req-2");
  equal((byReq.match(/class="log-line"/g) ?? []).length, 2);
  const all = await get("?level=debug");
  equal((all.match(/class="log-line"/g) ?? []).length, 1000, "the last 1,000 lines are kept");
  const dl = await e.req("/console/log/download?level=warn", { headers: { cookie: s.cookie } });
  match(dl.headers.get("content-disposition")!, /svc-agent-log\.jsonl/);
  const lines = (await dl.text()).trim().split("\n").map((l) => JSON.parse(l));
  equal(lines.length, 1);
  equal(lines[0].msg, "boom");
  await e.cleanup();
});

Deno.test("console diagnostics: runs the doctor on demand and shows each fix", async () => {
  let runs = 0;
  const e = await env({
    doctor: () => {
      runs++;
      return Promise.resolve([
        {
          id: "port",
          ok: true,
          title: "Port",
          titleBg: "Порт",
          detail: "this agent listens on 17470",
          detailBg: "този агент слуша на 17470",
          fix: null,
          fixBg: null,
        },
        {
          id: "token-service",
          ok: false,
          title: "Token service",
          titleBg: "Услуга за токени",
          detail: "unreachable",
          detailBg: "не отговаря",
          fix: "Check the network",
          fixBg: "Проверете мрежата",
        },
      ]);
    },
  });
  const s = await e.signIn();
  const page = await (await e.req("/console/diagnostics", { headers: { cookie: s.cookie } }))
    .text();
  equal(runs, 0, "opening the page runs nothing");
  ok(page.includes('id="run-doctor"'));
  const run = await e.req("/console/diagnostics", {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf: s.csrf }),
  });
  equal(run.status, 200);
  const html = await run.text();
  equal(runs, 1);
  match(html, /data-check="token-service" data-ok="false"/);
  // One language at a time: Bulgarian by default, with the plural form of the count.
  ok(html.includes("Проверете мрежата") && !html.includes("Check the network"));
  ok(html.includes("1 проверка не мина"), "1 check failed, in the singular");
  // The switch: a cookie of the agent's origin, remembered for the next pages.
  const sw = await e.req("/console/language?to=en&back=%2Fconsole%2Fdiagnostics", {
    headers: { cookie: s.cookie },
  });
  equal(sw.status, 303);
  equal(sw.headers.get("location"), "/console/diagnostics");
  const lang = sw.headers.get("set-cookie")!.split(";")[0]!;
  equal(lang, "svc_lang=en");
  const en = await (await e.req("/console/diagnostics", {
    method: "POST",
    headers: {
      cookie: `${s.cookie}; ${lang}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf: s.csrf }),
  })).text();
  ok(en.includes("Check the network") && !en.includes("Проверете мрежата"));
  ok(en.includes("1 check failed") && en.includes('<html lang="en">'));
  // Only a path of this origin is a way back.
  const away = await e.req("/console/language?to=bg&back=%2F%2Fevil.example", {
    headers: { cookie: s.cookie },
  });
  equal(away.headers.get("location"), "/");
  await e.cleanup();
});

/** A journal row as the pipeline writes it. */
function filing(id: string, eik: string, period: string) {
  return {
    id,
    idempotencyKey: null,
    typeId: "vat",
    kind: "vat",
    eik,
    period,
    batchId: null,
    filesSha256: null,
    files: [],
    senderId: "test-sender",
    mode: "test" as const,
    integrator: "acme",
    request: {},
  };
}

Deno.test("console filings: keyset pages, filters, bad filters, export of the view", async () => {
  const e = await env();
  for (let i = 0; i < 120; i++) {
    const id = `f${String(i).padStart(3, "0")}`;
    e.journal.begin(
      filing(id, i % 2 ? "121212121" : "131313131", "2026-10"),
      new Date(Date.UTC(2026, 10, 1, 0, 0, i)),
    );
    e.journal.refuse(
      id,
      "PORTAL_REJECTED",
      "Отказ",
      new Date(Date.UTC(2026, 10, 1, 0, 1, i)),
      null,
    );
  }
  const s = await e.signIn();
  const get = async (q: string) => {
    const r = await e.req(`/console/filings${q}`, { headers: { cookie: s.cookie } });
    return { status: r.status, html: await r.text() };
  };
  const rows = (html: string) => [...html.matchAll(/<tr data-id="(f\d+)"/g)].map((m) => m[1]);
  const first = await get("");
  equal(first.status, 200);
  equal(rows(first.html).length, 50);
  equal(rows(first.html)[0], "f119", "newest first");
  ok(first.html.includes("Справка-декларация по ЗДДС"));
  ok(first.html.includes("Тестов подател"), "the built-in sender by its name");
  let next = /id="next-page" href="\/console\/filings\?([^"]+)"/.exec(first.html)![1]!;
  const seen = rows(first.html);
  while (next) {
    const page = await get(`?${next.replaceAll("&amp;", "&")}`);
    seen.push(...rows(page.html));
    next = /id="next-page" href="\/console\/filings\?([^"]+)"/.exec(page.html)?.[1] ?? "";
  }
  equal(seen.length, 120);
  equal(new Set(seen).size, 120, "no row twice across pages");
  const byEik = await get("?eik=121212121&state=refused");
  match(byEik.html, /id="count">60 декларации/);
  const bad = await get("?period=2026-1");
  equal(bad.status, 400);
  ok(bad.html.includes('id="flash"') && bad.html.includes("period"));
  const csv = await e.req("/console/filings/export?eik=131313131&format=csv", {
    headers: { cookie: s.cookie },
  });
  equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
  equal((await csv.text()).trim().split("\r\n").length, 61, "a header and the 60 rows");
  await e.cleanup();
});

Deno.test("console filings: resolving an unknown filing, and every bad form changes nothing", async () => {
  const e = await env({ osUser: () => "maria" });
  e.journal.begin(filing("u1", "121212121", "2026-10"), new Date(Date.UTC(2026, 10, 1)));
  e.journal.markSent("u1", new Date(Date.UTC(2026, 10, 1)));
  e.journal.unknownOutcome("u1", "PORTAL_TIMEOUT", "lost", new Date(Date.UTC(2026, 10, 1)));
  const s = await e.signIn();
  const post = (body: Record<string, string>, id = "u1") =>
    e.req(`/console/filings/${id}/resolve`, {
      method: "POST",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf, ...body }),
    });
  const page = async () =>
    await (await e.req("/console/filings", { headers: { cookie: s.cookie } })).text();
  for (
    const body of [{ how: "maybe" }, { how: "filed", documentId: "<script>" }, {
      how: "filed",
      documentId: "x".repeat(65),
    }] as Record<string, string>[]
  ) {
    equal((await post(body)).status, 303);
    ok((await page()).includes('class="flash error"'), JSON.stringify(body));
    equal(e.journal.get("u1")!.state, "unknown");
  }
  equal((await post({ how: "not_filed" }, "nope")).status, 303);
  ok((await page()).includes("не чака уточняване"));
  equal(
    (await post({ how: "filed", documentId: "4711", incomeNumber: "22000000000001" })).status,
    303,
  );
  const row = e.journal.get("u1")!;
  equal(row.state, "filed");
  equal(row.resolvedBy, "maria");
  equal(row.documentId, "4711");
  ok((await page()).includes("Записано: подадена (maria)"));
  await e.cleanup();
});

Deno.test("console senders: bad forms answer with a sentence in both languages and write nothing", async () => {
  const e = await env({
    discovery: { os: "linux", discoverModules: () => Promise.resolve([]) },
  });
  const s = await e.signIn();
  const post = (path: string, body: Record<string, string>) =>
    e.req(path, {
      method: "POST",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf, ...body }),
    });
  const page = await (await e.req("/console/senders", { headers: { cookie: s.cookie } })).text();
  ok(page.includes('id="found"') && page.includes("Не е намерен сертификат"));
  for (
    const [path, body] of [
      ["/console/senders/add", { key: "cert_gone", displayName: "Иван" }],
      ["/console/senders/add", { file: "/nowhere/x.p12", displayName: "Иван", pin: "1" }],
      ["/console/senders/ghost/remove", {}],
      ["/console/senders/ghost/activate", {}],
      ["/console/senders/ghost/test", { pin: "1234" }],
    ] as [string, Record<string, string>][]
  ) {
    const r = await post(path, body);
    equal(r.status, 400, path);
    const html = await r.text();
    match(html, /class="flash error"/, path);
    ok(!html.includes("    at "), "no stack trace");
    ok(!html.includes('value="1234"'), "the PIN is not echoed");
  }
  equal(
    await Deno.stat(join(e.dataDir, "agent.json")).then(() => true, () => false),
    false,
    "agent.json was never written",
  );
  await e.cleanup();
});
