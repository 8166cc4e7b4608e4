/**
 * Everything granted can be taken back (docs/token-service.md § Taking access back), over HTTP
 * against the token app with a real SMTP sink, on SQLite and on PostgreSQL with two instances
 * sharing the schema (as a scaled-out deployment runs): a person sees their sessions with the
 * device and ends one (it stops at once on the other instance); removes a passkey (the last one
 * only through the mailed link, used once); nobody removes another's passkey or session; an
 * administrator removes another administrator (whose session stops at once, everywhere), never
 * themself and never the last one, even when two remove each other at the same moment.
 */
import { equal, match, ok } from "node:assert/strict";
import { systemClock } from "../../../src/clock.ts";
import { createAdminInvite } from "../../../src/token/mod.ts";
import { pgIgnored } from "../../_helpers/postgres.ts";
import {
  BASE,
  type Browser,
  cookieSet,
  csrfOf,
  firstAdmin,
  mailedCode,
  signUp,
  startWebEnv,
  takeLink,
  type WebEnv,
  webReq,
  webText,
} from "../../_helpers/web_people.ts";

const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";

/** A second session of the same person, by a mailed sign-in link, from Firefox on Windows. */
async function secondSession(e: WebEnv, email: string): Promise<Browser> {
  const n = e.sink.messages.length;
  const r = await webReq(e.svcs[0]!, "/profile/sign-in", { form: { email } });
  await r.body?.cancel();
  const code = await mailedCode(e.sink, email, n);
  const res = await webReq(e.svcs[0]!, "/profile/link", {
    form: { code },
    headers: { "user-agent": FIREFOX },
  });
  equal(res.status, 303);
  const cookie = cookieSet(res, "svc_profile")!;
  const page = await webText(e.svcs[0]!, "/profile/sessions", { cookie });
  return { cookie, csrf: csrfOf(page.text) };
}

const last = <T>(xs: readonly T[]) => xs[xs.length - 1]!;

async function sessions(e: WebEnv) {
  const [a, b] = [e.svcs[0]!, last(e.svcs)];
  const laptop = await signUp(e, "owner@one.test", "One Ltd");
  const phone = await secondSession(e, "owner@one.test");
  const other = await signUp(e, "owner@two.test", "Two Ltd");

  // The list, read on the other instance: both devices, this one marked.
  const page = await webText(b, "/profile/sessions", { cookie: laptop.cookie });
  equal(page.status, 200);
  match(page.text, /Chrome 131 · Linux/);
  match(page.text, /Firefox 128 · Windows/);
  const rows = [...page.text.matchAll(/data-session="([0-9a-f]{16})"( data-current="1")?/g)];
  equal(rows.length, 2);
  const phoneHandle = rows.find((r) => !r[2])![1]!;

  // Another person cannot end it.
  const foreign = await webReq(b, "/profile/sessions/end", {
    form: { session: phoneHandle, csrf: other.csrf },
    cookie: other.cookie,
  });
  equal(foreign.status, 404);
  await foreign.body?.cancel();
  equal((await webReq(a, "/profile/keys", { cookie: phone.cookie })).status, 200);

  // Ended on one instance, gone on the other at once.
  const ended = await webReq(b, "/profile/sessions/end", {
    form: { session: phoneHandle, csrf: laptop.csrf },
    cookie: laptop.cookie,
  });
  equal(ended.status, 303);
  for (const s of e.svcs) {
    equal((await webReq(s, "/profile/keys", { cookie: phone.cookie })).status, 303);
  }
  equal((await webReq(a, "/profile/keys", { cookie: laptop.cookie })).status, 200);
  const audit = await e.store.listAudit({ limit: 20 });
  ok(audit.some((x) => x.action === "session.end" && x.actor === "owner@one.test"));
}

async function passkeys(e: WebEnv) {
  const [a, b] = [e.svcs[0]!, last(e.svcs)];
  const me = await signUp(e, "keys@one.test", "Keys Ltd");
  const other = await signUp(e, "keys@two.test", "Keys Two Ltd");
  const user = (await e.store.findWebUser("integrator", "keys@one.test"))!;
  // Two passkeys as a registration stores them (the ceremony itself: tests/browser).
  for (const id of ["cred-one-AAAAAAAAAAAAAAAA", "cred-two-BBBBBBBBBBBBBBBB"]) {
    ok(
      await e.store.addPasskey({
        credentialId: id,
        userId: user.id,
        publicKey: "pQECAyYgASFYIA",
        counter: 0,
        transports: ["internal"],
        createdAt: Date.now(),
        lastUsedAt: null,
      }),
    );
  }
  const list = await webText(b, "/profile/passkeys", { cookie: me.cookie });
  equal([...list.text.matchAll(/data-passkey="/g)].length, 2);

  // Not another person's.
  const foreign = await webReq(b, "/profile/passkeys/remove", {
    form: { credential: "cred-one-AAAAAAAAAAAAAAAA", csrf: other.csrf },
    cookie: other.cookie,
  });
  equal(foreign.status, 404);
  await foreign.body?.cancel();

  // One of two: at once, for every instance.
  const gone = await webReq(b, "/profile/passkeys/remove", {
    form: { credential: "cred-one-AAAAAAAAAAAAAAAA", csrf: me.csrf },
    cookie: me.cookie,
  });
  equal(gone.status, 303);
  await gone.body?.cancel();
  equal(await e.store.findPasskey("cred-one-AAAAAAAAAAAAAAAA"), null);

  // The last one: only through the mailed link.
  const n = e.sink.messages.length;
  const asked = await webText(a, "/profile/passkeys/remove", {
    form: { credential: "cred-two-BBBBBBBBBBBBBBBB", csrf: me.csrf },
    cookie: me.cookie,
  });
  equal(asked.status, 200);
  match(asked.text, /id="check-mail"/);
  ok(await e.store.findPasskey("cred-two-BBBBBBBBBBBBBBBB"), "still there before the link");
  const code = await mailedCode(e.sink, "keys@one.test", n, "/profile/passkey/remove");
  const opened = await webText(b, `/profile/passkey/remove?code=${code}`);
  equal(opened.status, 200);
  ok(await e.store.findPasskey("cred-two-BBBBBBBBBBBBBBBB"), "opening the link removes nothing");
  const confirmed = await webText(b, "/profile/passkey/remove", {
    form: { code },
    cookie: "svc_lang=en",
  });
  equal(confirmed.status, 200);
  match(confirmed.text, /The passkey was removed/);
  equal(await e.store.findPasskey("cred-two-BBBBBBBBBBBBBBBB"), null);
  const again = await webReq(a, "/profile/passkey/remove", { form: { code } });
  equal(again.status, 400, "the link works once");
  await again.body?.cancel();
  const audit = await e.store.listAudit({ limit: 20 });
  equal(
    audit.filter((x) => x.action === "passkey.remove" && x.actor === "keys@one.test").length,
    2,
  );
}

async function admins(e: WebEnv) {
  const [a, b] = [e.svcs[0]!, last(e.svcs)];
  const root = await firstAdmin(e, "root@svc.test");
  const join = async (email: string) =>
    await takeLink(
      a,
      "/admin",
      new URL(await createAdminInvite(e.store, systemClock, BASE, email)).searchParams.get(
        "code",
      )!,
    );
  const second = await join("second@svc.test");
  const secondId = (await e.store.findWebUser("admin", "second@svc.test"))!.id;
  const rootId = (await e.store.findWebUser("admin", "root@svc.test"))!.id;

  // Not oneself.
  const self = await webText(a, `/admin/admins/${rootId}/remove`, {
    form: { csrf: root.csrf },
    cookie: root.cookie,
  });
  equal(self.status, 409);

  // Another: gone, with their session, on every instance at once.
  equal((await webReq(b, "/admin/applications", { cookie: second.cookie })).status, 200);
  const removed = await webReq(b, `/admin/admins/${secondId}/remove`, {
    form: { csrf: root.csrf },
    cookie: root.cookie,
  });
  equal(removed.status, 303);
  for (const s of e.svcs) {
    equal((await webReq(s, "/admin/applications", { cookie: second.cookie })).status, 303);
  }
  const audit = await e.store.listAudit({ limit: 20 });
  ok(
    audit.some((x) =>
      x.action === "admin.remove" && x.actor === "root@svc.test" && x.target === "second@svc.test"
    ),
  );
  // The store never removes the last one.
  equal((await e.store.removeWebUser(rootId, null) as { reason?: string }).reason, "last_admin");

  // Two remove each other at the same moment, on two instances: one stays.
  const x = await join("x@svc.test");
  const y = await join("y@svc.test");
  const xId = (await e.store.findWebUser("admin", "x@svc.test"))!.id;
  const yId = (await e.store.findWebUser("admin", "y@svc.test"))!.id;
  await e.store.removeWebUser(rootId, null);
  const answers = await Promise.all([
    webReq(a, `/admin/admins/${yId}/remove`, { form: { csrf: x.csrf }, cookie: x.cookie }),
    webReq(b, `/admin/admins/${xId}/remove`, { form: { csrf: y.csrf }, cookie: y.cookie }),
  ]);
  for (const r of answers) await r.body?.cancel();
  equal((await e.store.listWebUsers("admin")).length, 1);
  equal(answers.filter((r) => r.status === 303).length, 1);
}

for (
  const [name, part] of [["sessions", sessions], ["passkeys", passkeys], [
    "administrators",
    admins,
  ]] as const
) {
  Deno.test(`taking back ${name} on SQLite`, async () => {
    const e = await startWebEnv("sqlite");
    try {
      await part(e);
    } finally {
      await e.close();
    }
  });
  Deno.test({
    name: `taking back ${name} on PostgreSQL, two instances`,
    ignore: pgIgnored(),
    async fn() {
      const e = await startWebEnv("postgres", 2);
      try {
        await part(e);
      } finally {
        await e.close();
      }
    },
  });
}
