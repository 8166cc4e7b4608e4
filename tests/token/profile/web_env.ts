/**
 * A token service in process (SQLite in memory or a PostgreSQL schema) with a real SMTP sink, for
 * the profile's and desk's tests: same-origin requests as the pages make them, the links read
 * from the mails, sign-up and sign-in.
 * @module
 */
import { equal } from "node:assert/strict";
import { systemClock } from "../../../src/clock.ts";
import {
  createSmtpMailer,
  createTokenService,
  type TokenService,
  type TokenStore,
} from "../../../src/token/mod.ts";
import { type SmtpSink, startSmtpSink } from "../../_helpers/smtp.ts";

/** The service's public URL in these tests. */
export const BASE = "http://svc.test";
/** The admin API's credential in these tests. */
export const ADMIN = "a".repeat(40);

/** A running service with its store and SMTP sink. */
export interface WebEnv {
  svc: TokenService;
  store: TokenStore;
  sink: SmtpSink;
  close(): Promise<void>;
}

/** Start a service over a store (migrated here). */
export async function webEnv(
  store: TokenStore,
  drop: () => Promise<void> = async () => {},
): Promise<WebEnv> {
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
    adminToken: ADMIN,
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

/** Options of {@link req}. */
export interface ReqOptions {
  form?: Record<string, string>;
  cookie?: string;
  /** Replace the same-origin headers (`sec-fetch-site`, and `origin` on a form) entirely. */
  bare?: boolean;
  headers?: Record<string, string>;
  /** The client's address as the service sees it (the TCP peer). */
  from?: string;
}

/** A request as the pages make it (same-origin fetch metadata, `Origin` on a change). */
export async function req(e: WebEnv, path: string, o: ReqOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    ...(o.bare ? {} : { "sec-fetch-site": "same-origin", ...(o.form ? { origin: BASE } : {}) }),
    ...(o.cookie ? { cookie: o.cookie } : {}),
    ...o.headers,
  };
  const url = path.startsWith("http") ? path : `${BASE}${path}`;
  return await e.svc.app.request(url, {
    method: o.form ? "POST" : "GET",
    headers,
    body: o.form ? new URLSearchParams(o.form) : null,
    redirect: "manual",
  }, o.from ? { remoteAddr: { hostname: o.from } } : undefined);
}

/** The one-time code of the first mail to `to` after message number `after` (waits 5 s). */
export async function mailTo(e: WebEnv, to: string, after: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = e.sink.messages.slice(after).find((x) => x.to.includes(to));
    if (m) return /\/(?:profile|admin)\/link\?code=([A-Za-z0-9_-]{43})/.exec(m.text)![1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}

/** A signed-in profile session. */
export interface Session {
  cookie: string;
  csrf: string;
}

/** Take a link and read the session's cookie and CSRF token from the keys page. */
export async function takeLink(e: WebEnv, code: string): Promise<Session> {
  const res = await req(e, "/profile/link", { form: { code } });
  equal(res.status, 303, await res.text());
  const id = /svc_profile=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  const cookie = `svc_profile=${id}`;
  const page = await (await req(e, "/profile/keys", { cookie })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]! };
}

/** Sign up (a new integrator) and in. */
export async function signUp(e: WebEnv, email: string, company: string): Promise<Session> {
  const n = e.sink.messages.length;
  const r = await req(e, "/profile/sign-up", { form: { email, company, locale: "bg" } });
  equal(r.status, 200);
  await r.body?.cancel();
  return await takeLink(e, await mailTo(e, email, n));
}
