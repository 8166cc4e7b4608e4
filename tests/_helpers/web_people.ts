/**
 * The token service's profile and desk over HTTP for the team and revocation tests: one or more
 * service instances (in process, real SQLite or one PostgreSQL schema shared by all, as
 * instances of a scaled-out deployment share it), a real SMTP sink, and the steps a person takes
 * (sign up by a mailed link, the first administrator's invitation, reading the CSRF token).
 */
import { equal } from "node:assert/strict";
import { systemClock } from "../../src/clock.ts";
import {
  createAdminInvite,
  createSmtpMailer,
  createTokenService,
  openTokenStore,
  sqliteTokenStore,
  type TokenService,
  type TokenStore,
} from "../../src/token/mod.ts";
import { freshPgSchema } from "./postgres.ts";
import { type SmtpSink, startSmtpSink } from "./smtp.ts";

/** The public URL of the in-process services. */
export const BASE = "http://svc.test";

/** Running instances on one store. */
export interface WebEnv {
  /** The instances (all on one database). */
  readonly svcs: readonly TokenService[];
  /** The first instance's store. */
  readonly store: TokenStore;
  readonly sink: SmtpSink;
  close(): Promise<void>;
}

/** A signed-in browser: its cookie header and the session's CSRF token. */
export interface Browser {
  readonly cookie: string;
  readonly csrf: string;
}

/**
 * Start instances on SQLite in memory (one) or on a fresh PostgreSQL schema (any number).
 * @param db which database
 * @param instances how many services share it (PostgreSQL only)
 */
export async function startWebEnv(
  db: "sqlite" | "postgres",
  instances = 1,
): Promise<WebEnv> {
  const sink = await startSmtpSink();
  const pg = db === "postgres" ? await freshPgSchema() : null;
  const stores: TokenStore[] = [];
  for (let i = 0; i < instances; i++) {
    const store = pg
      ? await openTokenStore({ dataDir: "/nonexistent", databaseUrl: pg.url })
      : sqliteTokenStore(":memory:");
    await store.migrate();
    stores.push(store);
  }
  const svcs: TokenService[] = [];
  for (const store of stores) {
    svcs.push(
      await createTokenService({
        store,
        clock: systemClock,
        config: { issuer: BASE, audience: "svc-agent", minAgentVersion: null },
        mailer: createSmtpMailer({
          host: "127.0.0.1",
          port: sink.port,
          secure: false,
          from: "noreply@svc.test",
        }),
        adminToken: "a".repeat(40),
        usageFlushMs: 0,
        noticeIntervalMs: 3_600_000,
      }),
    );
  }
  return {
    svcs,
    store: stores[0]!,
    sink,
    async close() {
      for (const s of svcs) await s.stop();
      for (const s of stores) await s.close();
      await pg?.drop();
      await sink.close();
    },
  };
}

/**
 * A same-origin request as the pages make it (a form POST when `form` is given).
 * @param svc the instance
 * @param path below the public URL
 */
export async function webReq(
  svc: TokenService,
  path: string,
  o: { form?: Record<string, string>; cookie?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return await svc.app.request(`${BASE}${path}`, {
    method: o.form ? "POST" : "GET",
    headers: {
      "sec-fetch-site": "same-origin",
      "user-agent":
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36",
      ...(o.form ? { origin: BASE } : {}),
      ...(o.cookie ? { cookie: o.cookie } : {}),
      ...o.headers,
    },
    body: o.form ? new URLSearchParams(o.form) : null,
    redirect: "manual",
  });
}

/** The answer's body and status (the body read). */
export async function webText(
  svc: TokenService,
  path: string,
  o: Parameters<typeof webReq>[2] = {},
): Promise<{ status: number; text: string; res: Response }> {
  const res = await webReq(svc, path, o);
  return { status: res.status, text: await res.text(), res };
}

/** The one-time code of the newest mail to `to` after the first `after` mails whose link
 * matches `path` (e.g. `/profile/link`). */
export async function mailedCode(
  sink: SmtpSink,
  to: string,
  after: number,
  path = "/profile/link",
): Promise<string> {
  const re = new RegExp(`${path.replaceAll("/", "\\/")}\\?code=([A-Za-z0-9_-]{43})`);
  for (let i = 0; i < 100; i++) {
    const m = sink.messages.slice(after).find((x) => x.to.includes(to) && re.test(x.text));
    if (m) return re.exec(m.text)![1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to} with ${path}`);
}

/** The cookie a response set, as a request header. */
export function cookieSet(res: Response, name: string): string | null {
  const v = new RegExp(`${name}=([^;]+)`).exec(res.headers.get("set-cookie") ?? "")?.[1];
  return v ? `${name}=${v}` : null;
}

/** The CSRF token of a signed-in page. */
export const csrfOf = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)![1]!;

/**
 * Open a one-time link (`POST {app}/link`) and read the new session's CSRF token.
 * @returns the signed-in browser
 */
export async function takeLink(
  svc: TokenService,
  app: "/profile" | "/admin",
  code: string,
): Promise<Browser> {
  const res = await webReq(svc, `${app}/link`, { form: { code } });
  equal(res.status, 303, await res.text());
  const cookie = cookieSet(res, app === "/profile" ? "svc_profile" : "svc_desk")!;
  const home = app === "/profile" ? "/profile/passkeys" : "/admin/admins";
  const page = await webText(svc, home, { cookie });
  equal(page.status, 200, page.text.slice(0, 300));
  return { cookie, csrf: csrfOf(page.text) };
}

/** Sign up a new integrator through the mailed link (mails in `locale`); its person is the
 * owner. */
export async function signUp(
  e: WebEnv,
  email: string,
  company: string,
  locale: "bg" | "en" = "en",
): Promise<Browser> {
  const n = e.sink.messages.length;
  const r = await webReq(e.svcs[0]!, "/profile/sign-up", {
    form: { email, company, locale },
  });
  equal(r.status, 200);
  await r.body?.cancel();
  return await takeLink(e.svcs[0]!, "/profile", await mailedCode(e.sink, email, n));
}

/** The first administrator, through `token-service admin-invite`'s function. */
export async function firstAdmin(e: WebEnv, email: string): Promise<Browser> {
  const url = await createAdminInvite(e.store, systemClock, BASE, email);
  return await takeLink(e.svcs[0]!, "/admin", new URL(url).searchParams.get("code")!);
}
