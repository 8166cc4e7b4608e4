/**
 * E-mail notices (interface-spec.md § Access phases) against a real SMTP server on loopback,
 * on SQLite and PostgreSQL: each notice is sent exactly once with the right recipient and dates,
 * by two service instances sharing one database whose schedulers tick concurrently, across a
 * restart; SMTP failures and dead lease holders are retried; stale notices are cancelled.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { FakeClock } from "../../../src/clock.ts";
import { createSmtpMailer } from "../../../src/token/notices/mailer.ts";
import { keyExpiringDraft } from "../../../src/token/notices/notice_drafts.ts";
import { formatNoticeDate, renderNotice } from "../../../src/token/notices/notice_templates.ts";
import { startSmtpSink } from "../../_helpers/smtp.ts";
import { backendTest, type TokenEnv, tokenEnv } from "../../_helpers/token_env.ts";

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
const FROM = '"Svc Token Service" <noreply@svc.test>';

const mailerFor = (port: number, auth?: { user: string; pass: string }) =>
  createSmtpMailer({
    host: "127.0.0.1",
    port,
    secure: false,
    from: FROM,
    ...auth,
    timeoutMs: 5000,
  });

async function integrator(t: TokenEnv, id: string, locale: "bg" | "en", email: string) {
  await t.adminJson("POST", "/integrators", { id, name: `${id} Ltd`, email, locale }, 201);
}

async function contractFor(t: TokenEnv, id: string, key: string, endsAt: number) {
  const res = await t.app.request("/api/v1/applications", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      company: `${id} Ltd`,
      contactEmail: `billing@${id}.test`,
      intendedUse: "filings",
    }),
  });
  const app = await res.json();
  const r = await t.adminJson("POST", `/applications/${app.id}/approve`, {
    endsAt: new Date(endsAt).toISOString(),
  }, 201);
  return r.contract.id as string;
}

backendTest(
  "notices go out exactly once with two instances ticking concurrently and a restart",
  async (db) => {
    const sink = await startSmtpSink({ user: "svc", pass: "smtp-secret" });
    const auth = { user: "svc", pass: "smtp-secret" };
    const clock = new FakeClock();
    const T0 = clock.now();
    let a = await tokenEnv({
      store: await db.open(),
      clock,
      mailer: mailerFor(sink.port, auth),
      instanceId: "A",
    });
    const b = await tokenEnv({
      store: await db.open(),
      clock,
      mailer: mailerFor(sink.port, auth),
      instanceId: "B",
    });
    try {
      await integrator(a, "alpha", "bg", "dev@alpha.test");
      await integrator(a, "beta", "en", "dev@beta.test");
      await integrator(a, "gamma", "en", "dev@gamma.test");
      await integrator(a, "delta", "bg", "dev@delta.test");
      const kA = await a.adminJson("POST", "/keys", { integratorId: "alpha", mode: "test" }, 201);
      const kB = await a.adminJson("POST", "/keys", {
        integratorId: "beta",
        mode: "live",
        label: "CI",
      }, 201);
      const kC = await a.adminJson("POST", "/keys", { integratorId: "gamma", mode: "test" }, 201);
      const kD = await a.adminJson("POST", "/keys", { integratorId: "delta", mode: "test" }, 201);
      const cC = await contractFor(a, "gamma", kC.secret, T0 + 30 * DAY);
      const cD = await contractFor(b, "delta", kD.secret, T0 + 300 * DAY);
      // Keep gamma's and delta's test keys out of the way: revoke them (no notices for revoked keys).
      await a.adminJson("POST", `/keys/${kC.key.id}/revoke`);
      await a.adminJson("POST", `/keys/${kD.key.id}/revoke`);

      for (let step = 0; clock.now() < T0 + 95 * DAY; step++, clock.advance(6 * HOUR)) {
        if (clock.now() === T0 + 2 * DAY) {
          await b.adminJson("POST", `/contracts/${cD}/terminate`, { reason: "Неплатена фактура" });
        }
        if (clock.now() === T0 + 50 * DAY) {
          // Restart instance A: a new service object on a new connection to the same database.
          await a.service.stop();
          a = await tokenEnv({
            store: await db.open(),
            clock,
            mailer: mailerFor(sink.port, auth),
            instanceId: "A2",
          });
        }
        await Promise.all([
          a.service.scheduler.tick(),
          b.service.scheduler.tick(),
          b.service.scheduler.tick(),
        ]);
      }
      const by = (h: string) =>
        sink.messages.filter((m) => m.headers.get("x-svc-notice")?.startsWith(h));
      // The expiry and termination notices; besides them each of the two applications behind
      // the contracts had its "received" and "approved" mail, each sent once too.
      const apps = sink.messages.filter((m) =>
        m.headers.get("x-svc-notice")?.startsWith("application_")
      );
      equal(apps.length, 4, apps.map((m) => m.subject).join("\n"));
      equal(sink.messages.length - apps.length, 4, sink.messages.map((m) => m.subject).join("\n"));

      const [keyB] = by(`key_expiring; subject=${kB.key.id}`);
      deepStrictEqual(keyB!.to, ["dev@beta.test"]);
      equal(keyB!.subject, `API key ${kB.key.id} expires on 2026-11-08 10:00`);
      match(
        keyB!.text,
        /\("CI"\) of beta Ltd expires on 2026-11-08 10:00 Bulgarian time \(2026-11-08T08:00:00\.000Z\)/,
      );
      equal(keyB!.from, "noreply@svc.test");
      equal(keyB!.headers.get("message-id")?.endsWith("@svc-token-service>"), true);

      const [keyA] = by(`key_expiring; subject=${kA.key.id}`);
      deepStrictEqual(keyA!.to, ["dev@alpha.test"]);
      equal(keyA!.subject, `API ключът ${kA.key.id} изтича на 30.01.2027 10:00 ч.`);
      match(
        keyA!.text,
        /\(тестов\) на alpha Ltd изтича на 30\.01\.2027 10:00 ч\. българско време \(2027-01-30T08:00:00\.000Z\)/,
      );

      const [endC] = by(`contract_expiring; subject=${cC}`);
      deepStrictEqual(endC!.to, ["billing@gamma.test"]);
      equal(endC!.subject, `Contract ${cC} expires on 2026-12-01 10:00`);

      const [termD] = by(`contract_terminated; subject=${cD}`);
      deepStrictEqual(termD!.to, ["billing@delta.test"]);
      equal(termD!.subject, `Договорът ${cD} е прекратен`);
      match(termD!.text, /прекратен на 03\.11\.2026 10:00 ч\. .* Причина: Неплатена фактура\./);
      match(termD!.text, /важат до 10\.11\.2026 10:00 ч\. \(2026-11-10T08:00:00\.000Z\)/);

      // Sent at the first tick at or after the due time, and recorded once.
      const notices = await a.store.listNotices();
      const sent = notices.filter((n) => n.status === "sent");
      equal(sent.length, 8);
      equal(sent.filter((n) => n.kind.startsWith("application_")).length, 4);
      for (const n of sent) ok(n.sentAt! >= n.dueAt && n.sentAt! < n.dueAt + 6 * HOUR, n.kind);
      equal(notices.find((n) => n.subjectId === kB.key.id)!.dueAt, T0 + 6 * DAY);
      equal(notices.find((n) => n.subjectId === cC)!.dueAt, T0 + 23 * DAY);
    } finally {
      await a.service.stop();
      await b.service.stop();
      await sink.close();
    }
  },
);

backendTest(
  "a failed SMTP delivery is retried with backoff; a dead lease holder's notice is re-sent",
  async (db) => {
    const sink = await startSmtpSink();
    const clock = new FakeClock();
    const t = await tokenEnv({
      store: await db.open(),
      clock,
      mailer: mailerFor(sink.port),
      instanceId: "A",
    });
    try {
      await integrator(t, "beta", "en", "dev@beta.test");
      const k1 = await t.adminJson("POST", "/keys", { integratorId: "beta", mode: "live" }, 201);
      clock.advance(6 * DAY);
      sink.failNext(1);
      const r1 = await t.service.scheduler.tick();
      equal(r1.retried, 1);
      equal(sink.messages.length, 0);
      const n1 = (await t.store.listNotices({ subjectId: k1.key.id }))[0]!;
      equal(n1.status, "pending");
      equal(n1.attempts, 1);
      equal(n1.nextAttemptAt, clock.now() + 60_000);
      match(n1.lastError ?? "", /451|Temporary/);
      equal((await t.service.scheduler.tick()).sent, 0, "not before the backoff");
      clock.advance(60_000);
      equal((await t.service.scheduler.tick()).sent, 1);
      equal(sink.messages.length, 1);

      // Another process claims the next notice and dies before sending: once its lease lapses,
      // this instance sends it.
      // k2, made on day 6, ends with beta's 7 days tomorrow (docs/token-service.md § Access
      // phases): its notice is due at once.
      const k2 = await t.adminJson("POST", "/keys", { integratorId: "beta", mode: "live" }, 201);
      equal(k2.key.expiresAt, new Date(clock.now() - 6 * DAY - 60_000 + 7 * DAY).toISOString());
      const rec = (await t.store.getKey(k2.key.id))!;
      const draft = keyExpiringDraft({ ...rec, expiresAt: rec.expiresAt! }, {
        integrator: await t.store.getIntegrator("beta"),
        now: clock.now(),
      });
      ok(await t.store.enqueueNotice(draft));
      const held = await t.store.claimNotices({
        at: clock.now(),
        owner: "dead",
        leaseMs: 5 * 60_000,
        limit: 10,
      });
      deepStrictEqual(held.map((n) => n.id), [draft.id]);
      equal((await t.service.scheduler.tick()).sent, 0, "held by another instance's lease");
      clock.advance(5 * 60_000);
      equal((await t.service.scheduler.tick()).sent, 1);
      equal(sink.messages.length, 2);
      const n2 = (await t.store.listNotices({ subjectId: k2.key.id }))[0]!;
      equal(n2.claimedBy, "A");
      equal(n2.attempts, 2);
    } finally {
      await t.service.stop();
      await sink.close();
    }
  },
);

backendTest(
  "a notice that is no longer true is cancelled; an integrator without e-mail is skipped",
  async (db) => {
    const sink = await startSmtpSink();
    const clock = new FakeClock();
    const t = await tokenEnv({ store: await db.open(), clock, mailer: mailerFor(sink.port) });
    try {
      await integrator(t, "beta", "en", "dev@beta.test");
      await integrator(t, "nomail", "en", "x@y.test");
      await integrator(t, "gamma", "en", "dev@gamma.test");
      await t.adminJson("PATCH", "/integrators/nomail", { email: null });
      await t.adminJson("POST", "/keys", { integratorId: "beta", mode: "live" }, 201);
      await t.adminJson("POST", "/keys", { integratorId: "nomail", mode: "live" }, 201);
      clock.advance(DAY);
      // Another integrator's first live key: its 7 days (and its notice) come a day later. A
      // second key of beta would end with beta's 7 days, on the same day as its first.
      const k2 = await t.adminJson("POST", "/keys", { integratorId: "gamma", mode: "live" }, 201);
      clock.advance(5 * DAY);
      await t.service.scheduler.tick();
      equal(sink.messages.length, 1, "sent to beta");
      equal((await t.store.listNotices()).filter((n) => n.status === "skipped").length, 1);
      clock.advance(DAY);
      sink.failNext(1);
      equal((await t.service.scheduler.tick()).retried, 1);
      await t.adminJson("POST", `/keys/${k2.key.id}/revoke`);
      clock.advance(60_000);
      equal((await t.service.scheduler.tick()).cancelled, 1);
      equal(sink.messages.length, 1);
      const n = (await t.store.listNotices({ subjectId: k2.key.id }))[0]!;
      equal(n.status, "cancelled");
      equal(n.lastError, "key revoked");
    } finally {
      await t.service.stop();
      await sink.close();
    }
  },
);

Deno.test("renderNotice() speaks Bulgarian and English with dates in Bulgarian time", () => {
  const p = {
    keyId: "key_1",
    label: null,
    mode: "test",
    expiresAt: Date.UTC(2027, 6, 1, 21, 30),
    integratorName: "ACME",
  };
  equal(
    formatNoticeDate(Date.UTC(2027, 6, 1, 21, 30), "bg"),
    "02.07.2027 00:30 ч.",
    "summer time, UTC+3",
  );
  equal(
    formatNoticeDate(Date.UTC(2027, 0, 1, 21, 30), "en"),
    "2027-01-01 23:30",
    "winter time, UTC+2",
  );
  equal(
    renderNotice("key_expiring", "bg", p).subject,
    "API ключът key_1 изтича на 02.07.2027 00:30 ч.",
  );
  equal(renderNotice("key_expiring", "en", p).subject, "API key key_1 expires on 2027-07-02 00:30");
  const c = {
    contractId: "ctr_1",
    company: "ACME",
    endsAt: Date.UTC(2027, 0, 1),
    terminatedAt: Date.UTC(2027, 0, 1),
    keysExpireAt: Date.UTC(2027, 0, 8),
    reason: null,
  };
  match(renderNotice("contract_expiring", "bg", c).text, /изтича на 01\.01\.2027 02:00 ч\./);
  match(renderNotice("contract_terminated", "en", c).text, /valid until 2027-01-08 02:00/);
});
