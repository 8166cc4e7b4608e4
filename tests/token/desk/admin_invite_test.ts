/**
 * An administrator cannot act as another (docs/token-service.md § The administrator's desk):
 * an invitation for an existing administrator's e-mail is refused on the desk and by
 * `token-service admin-invite`, an invitation made before its address became an
 * administrator's opens nothing, and the audit log records who invited whom (the command line
 * too). Over HTTP against the token app with a real SMTP sink, on SQLite and PostgreSQL.
 */
import { equal, match, ok, rejects } from "node:assert/strict";
import { systemClock } from "../../../src/clock.ts";
import { createAdminInvite } from "../../../src/token/mod.ts";
import { pgIgnored } from "../../_helpers/postgres.ts";
import {
  BASE,
  cookieSet,
  firstAdmin,
  startWebEnv,
  takeLink,
  type WebEnv,
  webReq,
  webText,
} from "../../_helpers/web_people.ts";

const codeOf = (url: string) => new URL(url).searchParams.get("code")!;

async function suite(e: WebEnv) {
  const svc = e.svcs[0]!;
  const root = await firstAdmin(e, "Root@Svc.test");

  // Root invites a second administrator on the desk, who joins through the link.
  const invited = await webText(svc, "/admin/admins/invite", {
    form: { email: "second@svc.test", csrf: root.csrf },
    cookie: root.cookie,
  });
  equal(invited.status, 200);
  const link = /id="invite-link">([^<]+)</.exec(invited.text)![1]!;
  const second = await takeLink(svc, "/admin", codeOf(link));
  ok(second.cookie !== root.cookie);

  // Inviting the second one again is refused: no link, no way in as them.
  const again = await webText(svc, "/admin/admins/invite", {
    form: { email: "Second@svc.test", csrf: root.csrf },
    // In English: the error's own message (docs/token-service.md § Languages).
    cookie: `${root.cookie}; svc_lang=en`,
  });
  equal(again.status, 409);
  ok(!again.text.includes('id="invite-link"'), "no invitation link for an administrator");
  match(again.text, /sign in with their own passkey/);
  // The command line refuses it too.
  await rejects(
    createAdminInvite(e.store, systemClock, BASE, "second@svc.test"),
    (err: Error & { code?: string }) => err.code === "CONFLICT",
  );

  // Two invitations for one new address, made before it was an administrator's: the first
  // makes the administrator, the second opens nothing.
  const one = await createAdminInvite(e.store, systemClock, BASE, "third@svc.test");
  const two = await createAdminInvite(e.store, systemClock, BASE, "third@svc.test");
  await takeLink(svc, "/admin", codeOf(one));
  const late = await webReq(svc, "/admin/link", {
    form: { code: codeOf(two) },
    cookie: "svc_lang=en",
  });
  equal(late.status, 400);
  equal(cookieSet(late, "svc_desk"), null, "no session from a late invitation");
  match(await late.text(), /sign in with your passkey/);

  // Who invited whom.
  const audit = await e.store.listAudit({ limit: 50 });
  const rows = audit.map((a) => `${a.actorKind} ${a.actor} ${a.action} ${a.target}`);
  ok(rows.includes("cli token-service admin-invite admin.invite root@svc.test"), rows.join("\n"));
  ok(rows.includes("admin root@svc.test admin.invite second@svc.test"), rows.join("\n"));
  ok(rows.includes("admin second@svc.test admin.join second@svc.test"), rows.join("\n"));
  const join = audit.find((a) => a.action === "admin.join" && a.target === "second@svc.test")!;
  equal(JSON.parse(join.detail).invitedBy, "root@svc.test");
  const page = await webText(svc, "/admin/audit", { cookie: root.cookie });
  match(page.text, /admin\.join/);
}

Deno.test("an invitation never signs in as an existing administrator (SQLite)", async () => {
  const e = await startWebEnv("sqlite");
  try {
    await suite(e);
  } finally {
    await e.close();
  }
});

Deno.test({
  name: "an invitation never signs in as an existing administrator (PostgreSQL)",
  ignore: pgIgnored(),
  async fn() {
    const e = await startWebEnv("postgres");
    try {
      await suite(e);
    } finally {
      await e.close();
    }
  },
});
