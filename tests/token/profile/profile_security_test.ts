/**
 * The profile's security, over HTTP against the token app with a real SMTP sink, on SQLite and
 * (when SVC_TEST_DATABASE_URL is set) PostgreSQL: two integrators never see or change each
 * other's keys, log or usage; changes need the session's CSRF token; cross-site requests (fetch
 * metadata, Origin) are refused; pages are never framed; a sign-in always makes a new session
 * id (a cookie planted before opens nothing); sign-out ends the session in the store; a sign-up
 * with an existing e-mail answers like a new one; link requests are rate-limited (429 with
 * Retry-After); a profile session never opens the admin API.
 */
import { deepStrictEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { systemClock } from "../../../src/clock.ts";
import {
  createSmtpMailer,
  createTokenService,
  sqliteTokenStore,
  type TokenService,
  type TokenStore,
} from "../../../src/token/mod.ts";
import { pgIgnored } from "../../_helpers/postgres.ts";
import { type SmtpSink, startSmtpSink } from "../../_helpers/smtp.ts";

const BASE = "http://svc.test";

interface Env {
  svc: TokenService;
  store: TokenStore;
  sink: SmtpSink;
  close(): Promise<void>;
}

async function env(store: TokenStore, drop: () => Promise<void> = async () => {}): Promise<Env> {
  await store.migrate();
  const sink = await startSmtpSink();
  const mailer = createSmtpMailer({
    host: "127.0.0.1",
    port: sink.port,
    secure: false,
    from: "noreply@svc.test",
  });
  const svc = await createTokenService({
    store,
    clock: systemClock,
    config: { issuer: BASE, audience: "svc-agent", minAgentVersion: null },
    mailer,
    adminToken: "a".repeat(40),
    usageFlushMs: 0,
  });
  return {
    svc,
    store,
    sink,
    async close() {
      await svc.stop();
      await store.close();
      await drop();
      await sink.close();
    },
  };
}

/** A same-origin request as the pages make it. */
async function req(
  e: Env,
  path: string,
  o: {
    form?: Record<string, string>;
    cookie?: string | undefined;
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    "sec-fetch-site": "same-origin",
    ...(o.form ? { origin: BASE } : {}),
    ...(o.cookie ? { cookie: o.cookie } : {}),
    ...o.headers,
  };
  return await e.svc.app.request(`${BASE}${path}`, {
    method: o.form ? "POST" : "GET",
    headers,
    body: o.form ? new URLSearchParams(o.form) : null,
    redirect: "manual",
  });
}

async function mailTo(e: Env, to: string, after: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = e.sink.messages.slice(after).find((x) => x.to.includes(to));
    if (m) return /\/profile\/link\?code=([A-Za-z0-9_-]{43})/.exec(m.text)![1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}

const cookieOf = (res: Response) =>
  /svc_profile=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

/** Sign up and in; returns the cookie and the CSRF token of the session. */
async function signUp(e: Env, email: string, company: string, planted?: string) {
  const n = e.sink.messages.length;
  const r = await req(e, "/profile/sign-up", { form: { email, company, locale: "bg" } });
  equal(r.status, 200);
  await r.body?.cancel();
  const code = await mailTo(e, email, n);
  const res = await req(e, "/profile/link", {
    form: { code },
    cookie: planted ? `svc_profile=${planted}` : undefined,
  });
  equal(res.status, 303, await res.text());
  const id = cookieOf(res)!;
  const cookie = `svc_profile=${id}`;
  const page = await (await req(e, "/profile/keys", { cookie })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  return { cookie, csrf, id };
}

async function createKey(e: Env, s: { cookie: string; csrf: string }) {
  // POST → 303 → GET: the secret crosses the redirect in its own cookie (keys_flow.ts).
  const made = await req(e, "/profile/keys", {
    form: { mode: "test", label: "", csrf: s.csrf },
    cookie: s.cookie,
  });
  equal(made.status, 303);
  const fresh = /svc_profile_fresh=([^;]+)/.exec(made.headers.get("set-cookie") ?? "")![1]!;
  const page = await (await req(e, "/profile/keys", {
    cookie: `${s.cookie}; svc_profile_fresh=${fresh}`,
  })).text();
  return {
    secret: /<code id="secret">([^<]+)</.exec(page)![1]!,
    keyId: /id="fresh-key" data-key="([^"]+)"/.exec(page)![1]!,
  };
}

async function suite(e: Env) {
  const a = await signUp(e, "a@one.test", "One Ltd", "planted-by-an-attacker");
  const b = await signUp(e, "b@two.test", "Two Ltd");

  // Session fixation: the planted cookie was replaced and opens nothing.
  notEqual(a.id, "planted-by-an-attacker");
  equal(
    (await req(e, "/profile/keys", { cookie: "svc_profile=planted-by-an-attacker" })).status,
    303,
  );

  const ka = await createKey(e, a);
  const issued = await e.svc.app.request(`${BASE}/api/v1/tokens/issue`, {
    method: "POST",
    headers: { authorization: `Bearer ${ka.secret}`, "content-type": "application/json" },
    body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
  });
  equal(issued.status, 200);
  const token = (await issued.json()).token as string;

  // B sees none of A's keys, log rows or usage, and cannot change A's key.
  const bKeys = await (await req(e, "/profile/keys", { cookie: b.cookie })).text();
  ok(!bKeys.includes(ka.keyId));
  const bLog = await (await req(e, `/profile/log?key=${ka.keyId}`, { cookie: b.cookie })).text();
  ok(!bLog.includes(ka.keyId) && !bLog.includes("121212121"));
  const bUsage = await (await req(e, "/profile/usage", { cookie: b.cookie })).text();
  match(bUsage, /id="usage-total">0</);
  for (const action of ["revoke", "rotate", "origins"]) {
    const r = await req(e, `/profile/keys/${ka.keyId}/${action}`, {
      form: { csrf: b.csrf, graceHours: "0", origins: "https://evil.test" },
      cookie: b.cookie,
    });
    equal(r.status, 404, action);
    await r.body?.cancel();
  }
  const still = await e.store.getKey(ka.keyId);
  equal(still!.revokedAt, null);
  equal(still!.allowedOrigins ?? null, null);

  // A sees its own request, neither the secret nor the token.
  const aLog = await (await req(e, "/profile/log", { cookie: a.cookie })).text();
  ok(aLog.includes(ka.keyId) && aLog.includes("121212121"));
  ok(!aLog.includes(ka.secret) && !aLog.includes(token));
  match(await (await req(e, "/profile/usage", { cookie: a.cookie })).text(), /id="usage-total">1</);

  // A's application, approved through the admin API: B sees neither it nor its statement.
  const applied = await req(e, "/profile/contract/apply", {
    form: { csrf: a.csrf, company: "One Ltd", contactEmail: "a@one.test", intendedUse: "VAT" },
    cookie: a.cookie,
  });
  equal(applied.status, 303);
  const [application] = await e.store.listApplications({ status: "pending" });
  const approved = await e.svc.app.request(
    `${BASE}/admin/v1/applications/${application!.id}/approve`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${"a".repeat(40)}`, "content-type": "application/json" },
      body: JSON.stringify({ note: "ok" }),
    },
  );
  equal(approved.status, 201, await approved.text());
  const [contract] = await e.store.listContracts();
  const month = new Date().toISOString().slice(0, 7);
  const csvA = await req(e, `/profile/contract/statements/${contract!.id}/${month}.csv`, {
    cookie: a.cookie,
  });
  equal(csvA.status, 200);
  match(await csvA.text(), /contract_id/);
  const csvB = await req(e, `/profile/contract/statements/${contract!.id}/${month}.csv`, {
    cookie: b.cookie,
  });
  equal(csvB.status, 404);
  await csvB.body?.cancel();
  const bContract = await (await req(e, "/profile/contract", { cookie: b.cookie })).text();
  ok(!bContract.includes(contract!.id) && !bContract.includes(application!.id));
  match(bContract, /data-phase="1"/);
  match(await (await req(e, "/profile/contract", { cookie: a.cookie })).text(), /data-phase="3"/);
  // B's passkeys page lists none of A's (neither has one here) and A's audit rows stay A's.
  const bPasskeys = await (await req(e, "/profile/passkeys", { cookie: b.cookie })).text();
  match(bPasskeys, /id="passkeys"/);

  // CSRF: without the token, or with B's, nothing changes.
  const before = (await e.store.listKeys()).length;
  for (const csrf of [undefined, b.csrf]) {
    const r = await req(e, "/profile/keys", {
      form: csrf ? { mode: "test", csrf } : { mode: "test" },
      cookie: a.cookie,
    });
    equal(r.status, 403);
    match(await r.text(), /WEB_CSRF_INVALID/);
  }
  equal((await e.store.listKeys()).length, before);

  // Cross-site: fetch metadata, then Origin.
  for (
    const headers of [
      { "sec-fetch-site": "cross-site" } as Record<string, string>,
      { "sec-fetch-site": "same-site" },
      { origin: "https://evil.test" },
      { origin: "null" },
    ]
  ) {
    const r = await req(e, "/profile/keys", {
      form: { mode: "test", csrf: a.csrf },
      cookie: a.cookie,
      headers,
    });
    equal(r.status, 403, JSON.stringify(headers));
    match(await r.text(), /WEB_CROSS_SITE/);
  }
  equal((await e.store.listKeys()).length, before);
  // A cross-site navigation (the link in a mail) is a page, never a change.
  const nav = await req(e, "/profile/link?code=x", {
    headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" },
  });
  equal(nav.status, 200);
  // Never framed, strict CSP.
  equal(nav.headers.get("x-frame-options"), "DENY");
  match(nav.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
  match(nav.headers.get("content-security-policy")!, /script-src 'sha256-/);
  await nav.body?.cancel();

  // A profile session never opens the admin API, nor the desk (even as the desk's cookie);
  // the admin API's token never opens the desk.
  const admin = await req(e, "/admin/v1/integrators", { cookie: a.cookie });
  equal(admin.status, 401);
  await admin.body?.cancel();
  const desk = await req(e, "/admin/applications", { cookie: a.cookie });
  equal(desk.status, 303);
  equal(desk.headers.get("location"), "/admin");
  const asDesk = await req(e, "/admin/applications", { cookie: `svc_desk=${a.id}` });
  equal(asDesk.status, 403);
  match(await asDesk.text(), /WEB_FORBIDDEN/);
  const bearer = await req(e, "/admin/applications", {
    headers: { authorization: `Bearer ${"a".repeat(40)}` },
  });
  equal(bearer.status, 303);
  await bearer.body?.cancel();
  // The admin API's changes are in the audit log, with their request id.
  const made = await e.svc.app.request(`${BASE}/admin/v1/integrators`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${"a".repeat(40)}`,
      "content-type": "application/json",
      "x-request-id": "audit-check-1",
    },
    body: JSON.stringify({ name: "By API" }),
  });
  equal(made.status, 201);
  const byApi = (await e.store.listAudit({ limit: 50 })).find((x) => x.actorKind === "admin-api");
  equal(byApi?.requestId, "audit-check-1");
  equal(byApi?.action, "POST /admin/v1/integrators");
  const own = await e.store.listAudit({
    integratorId: (await e.store.getKey(ka.keyId))!.integratorId,
    limit: 50,
  });
  ok(own.some((x) => x.action === "key.create" && x.actor === "a@one.test"));

  // A sign-up with an existing e-mail answers like a new one (a sign-in link is mailed).
  const strip = (s: string) => s.replace(/nonce="[^"]+"/g, "nonce");
  const n = e.sink.messages.length;
  const again = await req(e, "/profile/sign-up", {
    form: { email: "a@one.test", company: "Other", locale: "en" },
  });
  const fresh = await req(e, "/profile/sign-up", {
    form: { email: "new@three.test", company: "Three", locale: "en" },
  });
  equal(again.status, fresh.status);
  equal(strip(await again.text()), strip(await fresh.text()));
  await mailTo(e, "a@one.test", n);
  const mail = e.sink.messages.slice(n).find((m) => m.to.includes("a@one.test"))!;
  match(mail.subject, /Sign in/);
  deepStrictEqual((await e.store.listIntegrators()).filter((i) => i.name === "Other"), []);

  // A used link never works twice.
  const code = await mailTo(e, "new@three.test", n);
  equal((await req(e, "/profile/link", { form: { code } })).status, 303);
  equal((await req(e, "/profile/link", { form: { code } })).status, 400);

  // Sign-out ends the session in the store.
  const out = await req(e, "/profile/sign-out", { form: { csrf: b.csrf }, cookie: b.cookie });
  equal(out.status, 200);
  await out.body?.cancel();
  equal((await req(e, "/profile/keys", { cookie: b.cookie })).status, 303);

  // Rate limit of link requests per client address (the requests above count too): 429 with
  // Retry-After by the 21st.
  let last: Response | null = null;
  for (let i = 0; i < 21; i++) {
    last = await req(e, "/profile/sign-in", { form: { email: `limit${i}@four.test` } });
    if (last.status !== 200) break;
    await last.body?.cancel();
  }
  equal(last!.status, 429);
  ok(Number(last!.headers.get("retry-after")) >= 1);
  await last!.body?.cancel();
}

Deno.test("profile security on SQLite", async () => {
  const e = await env(sqliteTokenStore(":memory:"));
  try {
    await suite(e);
  } finally {
    await e.close();
  }
});

Deno.test({
  name: "profile security on PostgreSQL",
  ignore: pgIgnored(),
  async fn() {
    const { freshPgSchema } = await import("../../_helpers/postgres.ts");
    const { openTokenStore } = await import("../../../src/token/mod.ts");
    const pg = await freshPgSchema();
    const e = await env(
      await openTokenStore({ dataDir: "/nonexistent", databaseUrl: pg.url }),
      () => pg.drop(),
    );
    try {
      await suite(e);
    } finally {
      await e.close();
    }
  },
});
