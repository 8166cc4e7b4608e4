/**
 * The accountant's records in words (docs/console.md), in process: a filing of test mode being
 * sent is never "sent to the NRA" on the page that follows it; a sender's test field asks for the
 * signature file's password or the token's PIN; Diagnostics shows the doctor's times in local
 * time; Filings, a receipt and the export name a declaration by its kind (a company of a
 * folder-wide filing too) and the integrator by its name.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { waitFor } from "../_helpers/agent_env.ts";
import { consoleEnv as env } from "../_helpers/console_env.ts";
import { filingName, followedInWords } from "../../src/agent/console/filing_words.ts";
import { senderRow } from "../../src/agent/console/senders_view.ts";
import { withLang } from "../../src/agent/texts/mod.ts";
import type { SenderConfig } from "../../src/agent/senders/mod.ts";

Deno.test("console: a test-mode filing being sent is sent to the test portal, not the NRA", async () => {
  let release: () => void = () => {};
  let held = false;
  const e = await env({}, {
    portal: (p) => ({
      ...p,
      async submit(input, ctx) {
        input.onSend?.();
        held = true;
        await new Promise<void>((r) => (release = r));
        return await p.submit(input, ctx);
      },
    }),
  });
  const tok = await e.token({ typeId: "dec731", eik: "121212121" });
  const filing = e.call("dec731", tok, { eik: "121212121", year: 2025 }, {
    "x-svc-batch-id": crypto.randomUUID(),
  });
  await waitFor(() => e.opened.length === 1);
  await e.decide("confirm");
  await waitFor(() => held);
  const [row] = e.journal.list();
  equal(row!.mode, "test");
  const [f] = followedInWords(e.journal, [row!.id]);
  match(f!.bg, /изпраща се към тестовия портал/);
  match(f!.en, /being sent to the test portal/);
  ok(!/НАП|NRA/.test(f!.bg + f!.en), `${f!.bg} / ${f!.en}`);
  release();
  equal((await filing).status, 200);
  await e.cleanup();
});

Deno.test("console senders: the test field asks a file's password and a token's PIN", async () => {
  const sender = (id: string, keystore: Record<string, unknown>) =>
    ({ id, displayName: id, active: true, keystore }) as unknown as SenderConfig;
  const file = sender("file", { type: "pkcs12", file: "/x/a.p12" });
  const token = sender("token", { type: "pkcs11", module: "/x/lib.so" });
  const field = async (s: SenderConfig, lang: "bg" | "en") =>
    /<input type="password" name="pin" placeholder="([^"]+)" aria-label="([^"]+)"/.exec(
      String(await withLang(lang, () => senderRow(s, null, [file, token], "c"))),
    )!.slice(1);
  equal((await field(file, "bg")).join(), "парола,парола");
  equal((await field(file, "en")).join(), "password,password");
  equal((await field(token, "bg")).join(), "ПИН,ПИН");
  equal((await field(token, "en")).join(), "PIN,PIN");
});

Deno.test("console diagnostics: the doctor's times in local time", async () => {
  const e = await env({
    doctor: () =>
      Promise.resolve([{
        id: "sender:a",
        ok: "warn" as const,
        title: "Sender a",
        titleBg: "Подател a",
        detail: "Ivan: Valid until 2027-01-31T22:00:00.000Z (20 days left)",
        detailBg: "Ivan: Валиден до 2027-01-31T22:00:00.000Z (остават 20 дни)",
        fix: "The certificate ends in 20 days",
        fixBg: "Сертификатът изтича след 20 дни",
      }]),
  });
  const s = await e.signIn();
  const page = await (await e.req("/console/diagnostics", {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf: s.csrf }),
  })).text();
  ok(!page.includes("T22:00:00.000Z"), "no UTC time");
  match(
    page,
    /Валиден до 20(27-01-31|27-02-01) \d\d:\d\d(:\d\d)? [+-]\d\d:\d\d \(остават 20 дни\)/,
  );
  match(page, /Сертификатът изтича след 20 дни/);
  await e.cleanup();
});

Deno.test("console filings: one name per declaration kind and the integrator's name, on the page, the receipt and the export", async () => {
  const e = await env();
  e.callers.record({
    integrator: "acme",
    integratorName: "Акме Софт ООД",
    origin: "https://app.example",
    mode: "test",
  });
  const base = {
    idempotencyKey: null,
    kind: "vat",
    period: "2026-06",
    filesSha256: null,
    files: [],
    senderId: "test-sender",
    mode: "test" as const,
    request: {},
  };
  const now = new Date();
  // One company of a folder-wide filing, one VAT return alone, one of an integrator not known.
  e.journal.begin({
    ...base,
    id: "b1",
    typeId: "vat_batch",
    eik: "121212121",
    batchId: "bt",
    integrator: "acme",
  }, now);
  e.journal.begin({
    ...base,
    id: "s1",
    typeId: "vat",
    eik: "131313131",
    batchId: null,
    integrator: "acme",
  }, now);
  e.journal.begin({
    ...base,
    id: "x1",
    typeId: "vat",
    eik: "141414141",
    batchId: null,
    integrator: "int_9f2",
  }, now);
  equal(filingName("vat_batch").bg, "Справка-декларация по ЗДДС");
  deepEqual(filingName("vat_batch"), filingName("vat"));
  const s = await e.signIn();
  const get = async (path: string) =>
    await (await e.req(path, { headers: { cookie: s.cookie } })).text();
  const page = await get("/console/filings");
  const row = (id: string) => {
    const at = page.indexOf(`data-id="${id}"`);
    return page.slice(at, page.indexOf("</tr>", at));
  };
  for (const id of ["b1", "s1"]) {
    ok(row(id).includes(">Справка-декларация по ЗДДС<"), row(id));
    ok(row(id).includes("Акме Софт ООД") && !row(id).includes(">acme<"), row(id));
  }
  ok(!page.includes("на няколко фирми"), "not the batch's name for a company's row");
  ok(row("x1").includes("int_9f2"), "an integrator not known keeps its id");
  const receipt = await get("/console/filings/b1");
  match(receipt, /Справка-декларация по ЗДДС/);
  match(receipt, /Акме Софт ООД/);
  const csv = parse(await get("/console/filings/export?format=csv"), {
    bom: true,
    columns: true,
  }) as Record<string, string>[];
  const byEik = (eik: string) => csv.find((r) => r["ЕИК / ЕГН"] === eik)!;
  equal(byEik("121212121")["Декларация"], "Справка-декларация по ЗДДС");
  equal(byEik("121212121")["Интегратор"], "Акме Софт ООД");
  equal(byEik("141414141")["Интегратор"], "int_9f2");
  await e.cleanup();
});

Deno.test("console filings: an error in words, its code and message only in the details", async () => {
  const e = await env();
  const base = {
    idempotencyKey: null,
    kind: "vat",
    typeId: "vat",
    period: "2026-06",
    filesSha256: null,
    files: [],
    senderId: "test-sender",
    mode: "test" as const,
    request: {},
    batchId: null,
    integrator: "acme",
  };
  const now = new Date();
  e.journal.begin({ ...base, id: "p1", eik: "121212121" }, now);
  e.journal.notFiled("p1", "PIN_INCORRECT", "CKR_PIN_INCORRECT from C_Login", now);
  e.journal.begin({ ...base, id: "r1", eik: "131313131" }, now);
  e.journal.refuse("r1", "PORTAL_REJECTED", "Грешен ЕИК в записа.", now, null);
  e.journal.begin({ ...base, id: "o1", eik: "141414141" }, now);
  e.journal.notFiled("o1", "BATCH_ID_INVALID", "X-Svc-Batch-Id must be a GUID", now);
  const s = await e.signIn();
  const page = await (await e.req("/console/filings", { headers: { cookie: s.cookie } })).text();
  const cell = (id: string) => {
    const row = page.slice(page.indexOf(`data-id="${id}"`));
    const at = row.indexOf('class="small error-words"');
    return row.slice(at, row.indexOf("</td>", at));
  };
  const visible = (html: string) =>
    html.replace(/<details\b[\s\S]*?<\/details>/g, " ").replace(/<[^>]+>/g, " ");
  match(visible(cell("p1")), /Грешен ПИН: подаването спря/);
  ok(!/PIN_INCORRECT|CKR_/.test(visible(cell("p1"))), "no code outside the details");
  match(
    cell("p1"),
    /<details[^>]*><summary>подробности<\/summary><code class="error-code">PIN_INCORRECT<\/code><br>CKR_PIN_INCORRECT from C_Login/,
  );
  match(visible(cell("r1")), /НАП не прие декларацията\. Грешен ЕИК в записа\./);
  match(visible(cell("o1")), /Подаването не успя \(причината е в подробностите\)/);
  ok(!visible(cell("o1")).includes("GUID"));
  const csv = parse(
    await (await e.req("/console/filings/export?format=csv", { headers: { cookie: s.cookie } }))
      .text(),
    { bom: true, columns: true },
  ) as Record<string, string>[];
  const p1 = csv.find((r) => r["ЕИК / ЕГН"] === "121212121")!;
  equal(p1["Отговор на НАП / грешка"], "Грешен ПИН: подаването спря, за да не се заключи картата.");
  equal(p1["Код на грешката"], "PIN_INCORRECT");
  equal(p1["Текст на грешката"], "CKR_PIN_INCORRECT from C_Login");
  await e.cleanup();
});
