/**
 * The glossary check: the accountant's pages (the console's Status, Senders, Filings, a filing's
 * receipt, Diagnostics, Log, and the page that says how to open the console), in both
 * languages, hold none of the technical words below outside a "details" disclosure
 * (`<details>`), where the technical facts are kept for whoever helps the accountant.
 */
import { deepEqual, ok } from "node:assert/strict";
import { consoleEnv as env } from "../../_helpers/console_env.ts";
import { LogRing, ringLogger } from "../../../src/log.ts";

/** Words an accountant should not meet (docs/console.md § Words). */
export const TECHNICAL_WORDS: readonly RegExp[] = [
  /\bport\b/i,
  /(?<!\p{L})порт(а|ът|ове)?(?!\p{L})/iu,
  /\bJWKS\b/i,
  /\bkid\b/,
  /PKCS#?11/i,
  /SoftHSM/i,
  /\bJSON\b/i,
  /\btypeId\b/i,
  /Ed25519|EdDSA/i,
  /agent\.json/i,
  /\bCSRF\b/i,
  /\bUTC\b/,
  /(?<!\p{L})режими(?!\p{L})/iu,
  /(?<!\p{L})партида(?!\p{L})/iu,
  /\.md\b/,
  /\bjti\b/,
];

/** The text a person sees: no `<details>`, no head, script or style, no tags. */
export function visibleText(html: string): string {
  let s = html.replace(/<(head|script|style)\b[\s\S]*?<\/\1>/gi, " ");
  // Innermost disclosures first, so nested ones go too.
  for (let prev = ""; prev !== s;) {
    prev = s;
    s = s.replace(/<details\b(?:(?!<details\b)[\s\S])*?<\/details>/gi, " ");
  }
  return s.replace(/<[^>]+>/g, " ").replace(/&[#\w]+;/g, " ").replace(/\s+/g, " ");
}

/** The technical words a page's visible text holds. */
export const technicalWords = (html: string): string[] => {
  const text = visibleText(html);
  return TECHNICAL_WORDS.flatMap((re) => {
    const m = re.exec(text);
    return m ? [`${m[0]} … ${text.slice(Math.max(0, m.index - 40), m.index + 40)}`] : [];
  });
};

Deno.test("glossary: the check sees words outside <details> only", () => {
  deepEqual(technicalWords("<p>Порт 17470</p>").length, 1);
  deepEqual(
    technicalWords("<p>Всичко е наред</p><details><summary>x</summary>port 1 agent.json</details>"),
    [],
  );
});

Deno.test("glossary: the console's pages hold no technical word outside <details>", async () => {
  const logs = new LogRing(100);
  const log = ringLogger(() => {}, logs);
  const e = await env({
    logs,
    discovery: { os: "linux", discoverModules: () => Promise.resolve([]) },
    doctor: () =>
      Promise.resolve([{
        id: "port",
        ok: true,
        title: "Agent port (17470–17479)",
        titleBg: "Порт на агента (17470–17479)",
        detail: "listens on port 17470; JWKS with 1 Ed25519 key",
        detailBg: "слуша на порт 17470; JWKS с 1 ключ Ed25519",
        fix: null,
        fixBg: null,
      }]),
  });
  log("info", "console received a PKCS#12 file", { bytes: 2048 });
  log("warn", "portal.accessToken is not a JWT; it is sent as is", {});
  log("info", "agent started", { port: 17470, dataDir: e.dataDir });
  const tok = await e.token({ typeId: "nap_catalog" });
  await e.call("nap_catalog", tok, {});
  const at = new Date(Date.UTC(2026, 10, 27, 23, 42, 5));
  const base = {
    idempotencyKey: null,
    typeId: "vat",
    kind: "vat",
    period: "2026-10",
    batchId: "7b23a93d-0000-4000-8000-000000000001",
    filesSha256: "ab".repeat(32),
    files: [],
    senderId: "test-sender",
    mode: "test" as const,
    integrator: "acme",
    request: {},
  };
  e.journal.begin({ ...base, id: "f1", eik: "121212121" }, at);
  e.journal.markSent("f1", at);
  e.journal.answer("f1", {
    success: true,
    documentId: "4711",
    incomeNumber: "22000000000001",
    submissionDate: at.toISOString(),
    errorMessage: null,
    nativeErrors: null,
  }, at);
  e.journal.begin({ ...base, id: "f2", eik: "131313131" }, at);
  e.journal.refuse("f2", "PORTAL_REJECTED", "Отказ", at, null);
  e.journal.begin({ ...base, id: "f3", eik: "141414141" }, at);
  e.journal.markSent("f3", at);
  e.journal.unknownOutcome("f3", "PORTAL_TIMEOUT", "lost", at);
  const s = await e.signIn();
  const found: string[] = [];
  for (const lang of ["bg", "en"]) {
    const cookie = `${s.cookie}; svc_lang=${lang}`;
    const pages: [string, RequestInit][] = [
      ["/", {}],
      ["/console/senders", {}],
      ["/console/filings", {}],
      ["/console/filings/f1", {}],
      ["/console/filings/f2", {}],
      ["/console/diagnostics", {}],
      ["/console/log?level=debug", {}],
    ];
    for (const [path, init] of pages) {
      const r = await e.req(path, { ...init, headers: { cookie } });
      ok(r.status === 200, `${path}: ${r.status}`);
      const html = await r.text();
      for (const hit of technicalWords(html)) found.push(`${lang} ${path}: ${hit}`);
      // Times in local time with their offset (never "UTC", which the list above refuses).
      if (path !== "/console/senders" && path !== "/console/diagnostics") {
        ok(/\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? \+0[23]:00/.test(visibleText(html)), path);
      }
    }
    // The checks run: all passing, their technical words stay inside the disclosure.
    const run = await e.req("/console/diagnostics", {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf }),
    });
    const ran = await run.text();
    ok(ran.includes('id="doctor-details" >') || ran.includes('id="doctor-details">'), "closed");
    for (const hit of technicalWords(ran)) found.push(`${lang} diagnostics run: ${hit}`);
    const signedOut = await (await e.req("/", { headers: { cookie: `svc_lang=${lang}` } }))
      .text();
    for (const hit of technicalWords(signedOut)) found.push(`${lang} sign-in: ${hit}`);
  }
  deepEqual(found, []);
  await e.cleanup();
});

Deno.test("empty pages say what to do next; stores this OS cannot have are not listed", async () => {
  const e = await env({
    logs: new LogRing(10),
    discovery: { os: "linux", discoverModules: () => Promise.resolve([]) },
  });
  const s = await e.signIn();
  const get = async (path: string, lang = "bg") =>
    await (await e.req(path, { headers: { cookie: `${s.cookie}; svc_lang=${lang}` } })).text();
  const status = await get("/");
  ok(status.includes("Интеграторите се появяват тук, щом"), "status: who calls, and when");
  const senders = await get("/console/senders");
  ok(senders.includes("изберете сертификат по-долу или добавете файл с подпис"));
  ok(senders.includes("Поставете картата или токена"));
  // The scan still reports them (not_available), but the page does not list them on Linux.
  for (const word of ["Windows", "Keychain", "macOS"]) {
    ok(!visibleText(senders).includes(word), `no ${word} on Linux`);
    ok(!visibleText(await get("/console/senders", "en")).includes(word), `no ${word} (en)`);
  }
  ok((await get("/console/filings")).includes('id="filings-empty">От този компютър още нищо'));
  ok((await get("/console/filings?state=refused")).includes("Нищо не отговаря на тези филтри"));
  ok((await get("/console/filings", "en")).includes("Nothing was filed from this computer yet"));
  ok((await get("/console/log")).includes('id="log-empty">Няма редове на това ниво'));
  await e.cleanup();
});
