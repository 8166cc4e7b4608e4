/**
 * Decisions reach the integrator (docs/token-service.md § Mails to the integrator): a mail when
 * an application is received, rejected (with the reason) and approved (with the contract), in
 * the language the integrator chose at sign-up, read from a real SMTP sink; sent once by the
 * notice scheduler even with two instances on one PostgreSQL schema; the profile's contract
 * page shows each application's state and history (steps, who, the mails).
 */
import { equal, match, ok } from "node:assert/strict";
import { pgIgnored } from "../../_helpers/postgres.ts";
import type { SmtpSink } from "../../_helpers/smtp.ts";
import {
  type Browser,
  firstAdmin,
  signUp,
  startWebEnv,
  type WebEnv,
  webText,
} from "../../_helpers/web_people.ts";

/** Run every instance's notice tick once (as their timers would). */
async function tick(e: WebEnv): Promise<void> {
  await Promise.all(e.svcs.map((s) => s.scheduler.tick()));
}

/** The mails to `to` after the first `after`. */
const mailsTo = (sink: SmtpSink, to: string, after: number) =>
  sink.messages.slice(after).filter((m) => m.to.includes(to));

async function apply(e: WebEnv, who: Browser, contactEmail: string): Promise<string> {
  const r = await webText(e.svcs[0]!, "/profile/contract/apply", {
    form: {
      company: "One Ltd",
      contactEmail,
      intendedUse: "VAT returns for our clients",
      csrf: who.csrf,
    },
    cookie: who.cookie,
  });
  equal(r.status, 303, r.text.slice(0, 300));
  const apps = await e.store.listApplications({});
  return apps.find((a) => a.status === "pending" && a.contactEmail === contactEmail)!.id;
}

async function suite(e: WebEnv) {
  const desk = e.svcs[e.svcs.length - 1]!;
  const en = await signUp(e, "owner@one.test", "One Ltd", "en");
  const bg = await signUp(e, "owner@two.test", "Две ООД", "bg");
  const admin = await firstAdmin(e, "root@svc.test");

  // Received, in English and in Bulgarian, to the application's contact e-mail.
  let n = e.sink.messages.length;
  const first = await apply(e, en, "contracts@one.test");
  const second = await apply(e, bg, "dogovori@two.test");
  await tick(e);
  const received = mailsTo(e.sink, "contracts@one.test", n);
  equal(received.length, 1, "sent once, whatever the instances");
  equal(received[0]!.subject, `Application ${first} received`);
  match(received[0]!.text, /We received the contract application/);
  const poluchena = mailsTo(e.sink, "dogovori@two.test", n);
  equal(poluchena.length, 1);
  equal(poluchena[0]!.subject, `Заявката ${second} е получена`);

  // Rejected, with the reason.
  n = e.sink.messages.length;
  const rejected = await webText(desk, `/admin/applications/${first}/reject`, {
    form: { note: "The company number is missing", csrf: admin.csrf },
    cookie: admin.cookie,
  });
  equal(rejected.status, 200);
  await tick(e);
  const no = mailsTo(e.sink, "contracts@one.test", n);
  equal(no.length, 1);
  equal(no[0]!.subject, `Application ${first} rejected`);
  match(no[0]!.text, /Reason: The company number is missing\./);

  // Applied again and approved: the contract in the mail.
  const third = await apply(e, en, "contracts@one.test");
  n = e.sink.messages.length;
  const approved = await webText(desk, `/admin/applications/${third}/approve`, {
    form: { endsAt: "2031-01-31", note: "Welcome", csrf: admin.csrf },
    cookie: admin.cookie,
  });
  equal(approved.status, 200);
  await tick(e);
  const yes = mailsTo(e.sink, "contracts@one.test", n);
  equal(
    yes.map((m) => m.subject).sort().join(" | "),
    [
      `Application ${third} approved`,
      `Application ${third} received`,
    ].sort().join(" | "),
  );
  const mail = yes.find((m) => m.subject.endsWith("approved"))!;
  match(mail.text, /contract ctr_[A-Za-z0-9_-]+ from \d{4}-\d{2}-\d{2} until 2031-01-31\./);
  match(mail.text, /The administrator's note: Welcome/);

  // The profile: state and history.
  const page = await webText(e.svcs[0]!, "/profile/contract", {
    cookie: `${en.cookie}; svc_lang=en`,
  });
  equal(page.status, 200);
  const steps = [...page.text.matchAll(/<tr data-step="([^"]+)">/g)].map((m) => m[1]);
  for (
    const s of [
      "application.submit",
      "application.reject",
      "application.approve",
      "application_received",
      "application_rejected",
      "application_approved",
    ]
  ) ok(steps.includes(s), `${s} in ${steps.join(", ")}`);
  match(page.text, /The company number is missing/);
  match(page.text, /owner@one\.test/);
  match(page.text, /mail: approved/);
}

Deno.test("an application's mails on SQLite", async () => {
  const e = await startWebEnv("sqlite");
  try {
    await suite(e);
  } finally {
    await e.close();
  }
});

Deno.test({
  name: "an application's mails on PostgreSQL, two instances",
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
