/**
 * An integrator's team (docs/token-service.md § Team and roles), over HTTP against the token app
 * with a real SMTP sink, on SQLite and PostgreSQL: an owner invites colleagues by e-mail, each
 * signs in with their own session; roles hold on every change (read-only changes nothing but
 * their own credentials, a developer manages keys but not the team or the contract); the audit
 * log names the member who acted; the last owner can be neither demoted nor removed; a removed
 * member's session stops at once; an invitation never signs in as an existing person.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { pgIgnored } from "../../_helpers/postgres.ts";
import {
  type Browser,
  cookieSet,
  mailedCode,
  signUp,
  startWebEnv,
  takeLink,
  type WebEnv,
  webReq,
  webText,
} from "../../_helpers/web_people.ts";

/** A member's id from the members page. */
function memberId(page: string, email: string): string {
  const row = new RegExp(`data-member="${email}"[\\s\\S]*?/members/(usr_[A-Za-z0-9_-]+)/role`)
    .exec(page);
  return row![1]!;
}

async function invite(e: WebEnv, owner: Browser, email: string, role: string): Promise<Browser> {
  const n = e.sink.messages.length;
  const r = await webText(e.svcs[0]!, "/profile/members/invite", {
    form: { email, role, csrf: owner.csrf },
    cookie: owner.cookie,
  });
  equal(r.status, 200, r.text.slice(0, 400));
  const mail = await mailedCode(e.sink, email, n);
  const m = e.sink.messages.slice(n).find((x) => x.to.includes(email))!;
  match(m.subject, /Invitation to One Ltd's profile/);
  match(m.text, /owner@one\.test invites you/);
  return await takeLink(e.svcs[0]!, "/profile", mail);
}

async function suite(e: WebEnv) {
  const svc = e.svcs[0]!;
  const owner = await signUp(e, "owner@one.test", "One Ltd");
  const other = await signUp(e, "owner@two.test", "Two Ltd");
  const dev = await invite(e, owner, "dev@one.test", "developer");
  const ro = await invite(e, owner, "ro@one.test", "readonly");

  const team = await webText(svc, "/profile/members", { cookie: ro.cookie });
  equal(team.status, 200);
  const roles = [...team.text.matchAll(/data-member="([^"]+)" data-role="([^"]+)"/g)]
    .map((m) => `${m[1]} ${m[2]}`);
  deepStrictEqual(roles, [
    "owner@one.test owner",
    "dev@one.test developer",
    "ro@one.test readonly",
  ]);
  ok(!team.text.includes('id="member-invite"'), "read-only sees no invitation form");

  // Read-only: reads, changes nothing (not even through a crafted form).
  equal((await webText(svc, "/profile/keys", { cookie: ro.cookie })).status, 200);
  for (
    const [path, form] of [
      ["/profile/keys", { mode: "test", label: "x" }],
      ["/profile/contract/apply", { company: "One", contactEmail: "a@one.test", intendedUse: "x" }],
      ["/profile/members/invite", { email: "x@one.test", role: "owner" }],
    ] as const
  ) {
    const r = await webText(svc, path, { form: { ...form, csrf: ro.csrf }, cookie: ro.cookie });
    equal(r.status, 403, path);
    match(r.text, /data-code="WEB_FORBIDDEN"/);
  }

  // Developer: keys yes, the team and the contract no.
  const key = await webText(svc, "/profile/keys", {
    form: { mode: "test", label: "dev's", csrf: dev.csrf },
    cookie: dev.cookie,
  });
  // POST → 303 → GET: the new secret crosses the redirect in its own cookie (keys_flow.ts).
  equal(key.status, 303);
  const fresh = cookieSet(key.res, "svc_profile_fresh")!;
  const shown = await webText(svc, "/profile/keys", { cookie: `${dev.cookie}; ${fresh}` });
  const keyId = /id="fresh-key" data-key="([^"]+)"/.exec(shown.text)![1]!;
  for (const path of ["/profile/members/invite", "/profile/contract/apply"]) {
    const r = await webReq(svc, path, {
      form: { email: "y@one.test", role: "readonly", csrf: dev.csrf },
      cookie: dev.cookie,
    });
    equal(r.status, 403, path);
    await r.body?.cancel();
  }
  const revoked = await webReq(svc, `/profile/keys/${keyId}/revoke`, {
    form: { csrf: ro.csrf },
    cookie: ro.cookie,
  });
  equal(revoked.status, 403);
  await revoked.body?.cancel();

  // The audit log names the member, not only the integrator.
  const audit = await e.store.listAudit({ limit: 100 });
  const create = audit.find((a) => a.action === "key.create" && a.target === keyId)!;
  equal(create.actor, "dev@one.test");
  const joined = audit.find((a) => a.action === "member.join" && a.target === "ro@one.test")!;
  equal(JSON.parse(joined.detail).invitedBy, "owner@one.test");
  const seen = await webText(svc, "/profile/members", { cookie: owner.cookie });
  match(seen.text, /data-action="key\.create">\s*<td>[^<]*<\/td>\s*<td>dev@one\.test<\/td>/);

  // The last owner stays.
  const ownerId = memberId(seen.text, "owner@one.test");
  const devId = memberId(seen.text, "dev@one.test");
  const roId = memberId(seen.text, "ro@one.test");
  for (
    const [path, form] of [
      [`/profile/members/${ownerId}/role`, { role: "developer" }],
      [`/profile/members/${ownerId}/remove`, {}],
    ] as const
  ) {
    const r = await webText(svc, path, {
      form: { ...form, csrf: owner.csrf },
      cookie: owner.cookie,
    });
    equal(r.status, 409, path);
    match(r.text, /поне един собственик/);
  }
  // Another integrator's owner cannot touch this team.
  const foreign = await webReq(svc, `/profile/members/${roId}/remove`, {
    form: { csrf: other.csrf },
    cookie: other.cookie,
  });
  equal(foreign.status, 404);
  await foreign.body?.cancel();

  // With a second owner, the first may step down.
  const promoted = await webText(svc, `/profile/members/${devId}/role`, {
    form: { role: "owner", csrf: owner.csrf },
    cookie: owner.cookie,
  });
  equal(promoted.status, 200);
  const down = await webText(svc, `/profile/members/${ownerId}/role`, {
    form: { role: "developer", csrf: owner.csrf },
    cookie: owner.cookie,
  });
  equal(down.status, 200);
  // Now a developer, the former owner cannot manage the team (the role is read per request).
  const tried = await webReq(svc, `/profile/members/${roId}/remove`, {
    form: { csrf: owner.csrf },
    cookie: owner.cookie,
  });
  equal(tried.status, 403);
  await tried.body?.cancel();

  // The new owner removes the read-only member: their session stops at once.
  equal((await webReq(svc, "/profile/keys", { cookie: ro.cookie })).status, 200);
  const removed = await webText(svc, `/profile/members/${roId}/remove`, {
    form: { csrf: dev.csrf },
    cookie: dev.cookie,
  });
  equal(removed.status, 200);
  for (const s of e.svcs) {
    const r = await webReq(s, "/profile/keys", { cookie: ro.cookie });
    equal(r.status, 303, "a removed member's session is gone");
    await r.body?.cancel();
  }

  // An invitation for an address with a profile is refused; one taken after the address got a
  // profile opens nothing.
  const taken = await webText(svc, "/profile/members/invite", {
    form: { email: "owner@two.test", role: "developer", csrf: dev.csrf },
    cookie: dev.cookie,
  });
  equal(taken.status, 409);
  const n = e.sink.messages.length;
  for (let i = 0; i < 2; i++) {
    const r = await webReq(svc, "/profile/members/invite", {
      form: { email: "late@one.test", role: "owner", csrf: dev.csrf },
      cookie: dev.cookie,
    });
    equal(r.status, 200);
    await r.body?.cancel();
  }
  const first = await mailedCode(e.sink, "late@one.test", n);
  const second = await mailedCode(
    e.sink,
    "late@one.test",
    e.sink.messages.findIndex((m, i) => i >= n && m.text.includes(first)) + 1,
  );
  await takeLink(svc, "/profile", first);
  const late = await webReq(svc, "/profile/link", { form: { code: second } });
  equal(late.status, 400);
  equal(cookieSet(late, "svc_profile"), null);
  await late.body?.cancel();

  // Invitations are mails: an owner cannot flood an address with them.
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await webReq(svc, "/profile/members/invite", {
      form: { email: "flood@else.test", role: "readonly", csrf: dev.csrf },
      cookie: dev.cookie,
    });
    statuses.push(r.status);
    await r.body?.cancel();
  }
  deepStrictEqual(statuses, [200, 200, 200, 200, 200, 429]);
}

Deno.test("a team with roles on SQLite", async () => {
  const e = await startWebEnv("sqlite");
  try {
    await suite(e);
  } finally {
    await e.close();
  }
});

Deno.test({
  name: "a team with roles on PostgreSQL, two instances",
  ignore: pgIgnored(),
  async fn() {
    const e = await startWebEnv("postgres", 2);
    try {
      await suite(e);
    } finally {
      await e.close();
    }
  },
});
