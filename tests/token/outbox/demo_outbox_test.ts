/**
 * The demo's outbox (docs/token-service.md § The demo outbox): its page exists only on a service
 * whose mailer is the demo's outbox — a service with SMTP or without mail answers 404 — and it
 * keeps each mail (its links), hands it on to SMTP when given one, and keeps it when SMTP fails.
 */
import { equal, ok, rejects } from "node:assert/strict";
import { FakeClock } from "../../../src/clock.ts";
import type { Mailer, MailMessage } from "../../../src/token/notices/mailer.ts";
import { DemoOutbox, type OutboxMail } from "../../../src/token/outbox/mod.ts";
import { tokenEnv } from "../../_helpers/token_env.ts";
import { startSmtpSink } from "../../_helpers/smtp.ts";
import { createSmtpMailer } from "../../../src/token/notices/mailer.ts";

const mail = (to: string, code: string): MailMessage => ({
  to,
  subject: "Вход в профила / Sign in to your profile",
  text:
    `Ето връзката:\n\nhttp://localhost:1/profile/link?code=${code}\n\n---\n\nhttp://localhost:1/profile/link?code=${code}\n`,
  messageId: `<${code}@svc-token-service>`,
});

Deno.test("[token] no outbox page without the demo's outbox: without mail, and with SMTP", async () => {
  const sink = await startSmtpSink();
  try {
    for (
      const mailer of [
        null,
        createSmtpMailer({ host: "127.0.0.1", port: sink.port, secure: false, from: "a@b.test" }),
      ]
    ) {
      const env = await tokenEnv({ mailer });
      const res = await env.app.request("/demo/outbox");
      equal(res.status, 404);
      await res.body?.cancel();
      mailer?.close();
    }
  } finally {
    await sink.close();
  }
});

Deno.test("[token] the demo's outbox keeps each mail with its links and shows it on its page", async () => {
  const clock = new FakeClock();
  const told: OutboxMail[] = [];
  const outbox = new DemoOutbox({ now: () => clock.now(), onMail: (m) => told.push(m) });
  const env = await tokenEnv({ mailer: outbox, clock });
  const empty = await (await env.app.request("/demo/outbox")).text();
  ok(empty.includes('id="mails"') && !empty.includes('class="card mail"'));
  await outbox.send(mail("a@example.test", "one"));
  await outbox.send(mail("b@example.test", "two"));
  equal(told.length, 2);
  equal(told[0]!.links.join(), "http://localhost:1/profile/link?code=one", "each link once");
  equal(outbox.mails[0]!.to, "b@example.test", "newest first");
  const res = await env.app.request("/demo/outbox");
  equal(res.status, 200);
  const page = await res.text();
  ok(page.indexOf("b@example.test") < page.indexOf("a@example.test"));
  ok(page.includes('href="http://localhost:1/profile/link?code=two"'));
  ok(res.headers.get("content-security-policy")?.includes("default-src 'none'"));
  const css = /href="(\/demo\/outbox\/assets\/[^"]+\.css)"/.exec(page)![1]!;
  equal((await env.app.request(css)).status, 200, "its style sheets are served");
});

Deno.test("[token] the demo's outbox hands each mail on to SMTP, and keeps it when SMTP fails", async () => {
  const sink = await startSmtpSink();
  const smtp = createSmtpMailer({
    host: "127.0.0.1",
    port: sink.port,
    secure: false,
    from: "a@b.test",
  });
  try {
    const outbox = new DemoOutbox({ now: () => 0, forward: smtp });
    await outbox.send(mail("a@example.test", "one"));
    equal(sink.messages.length, 1);
    ok(sink.messages[0]!.to.includes("a@example.test"));
  } finally {
    smtp.close();
    await sink.close();
  }
  const failing: Mailer = {
    send: () => Promise.reject(new Error("connection refused")),
    close: () => {},
  };
  const outbox = new DemoOutbox({ now: () => 0, forward: failing });
  await rejects(outbox.send(mail("a@example.test", "two")), /connection refused/);
  equal(outbox.mails.length, 1);
});

Deno.test("[token] the demo's outbox keeps the newest mails only", async () => {
  const outbox = new DemoOutbox({ now: () => 0, keep: 3 });
  for (let i = 0; i < 5; i++) await outbox.send(mail("a@example.test", `c${i}`));
  equal(
    outbox.mails.map((m) => m.messageId).join(),
    "<c4@svc-token-service>,<c3@svc-token-service>,<c2@svc-token-service>",
  );
});
