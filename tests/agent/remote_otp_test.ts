/**
 * The agent's page asking a cloud signature's one-time code (docs/signing.md § Remote signing,
 * src/agent/confirm/remote_approval.ts) over its Hono routes: the code is accepted only from
 * the agent's own page with the page's `state`, a malformed code is VALIDATION_FAILED (the step
 * still waits), declining refuses the step (SENDER_NOT_CHOSEN), and the code is never logged.
 */
import { equal, ok, rejects } from "node:assert/strict";
import { RemoteApprovals } from "../../src/agent/confirm/mod.ts";

Deno.test("remote OTP page: own origin and state only, malformed code refused, decline, nothing logged", async () => {
  const opened: string[] = [];
  const logs: unknown[] = [];
  const r = new RemoteApprovals(
    {
      port: () => 4711,
      openBrowser: (u) => opened.push(u),
      log: (...a: unknown[]) => logs.push(a),
    } as ConstructorParameters<typeof RemoteApprovals>[0],
  );
  const app = r.routes();
  const ask = () =>
    r.askOtp()({ credentialId: "c", online: true, signatures: 2, part: 1, parts: 1 });
  const pageOf = async () => {
    while (opened.length === 0) await new Promise((res) => setTimeout(res, 5));
    const path = new URL(opened.pop()!).pathname.replace(/^\/remote/, "");
    const html = await (await app.request(path)).text();
    return { path, html, state: /name="state" value="([^"]+)"/.exec(html)![1]! };
  };
  const post = (path: string, body: Record<string, string>, origin = "http://127.0.0.1:4711") =>
    app.request(`${path}/otp`, {
      method: "POST",
      headers: { origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body).toString(),
    });

  const first = ask();
  const p = await pageOf();
  ok(p.html.includes('id="otp-ask"') && p.html.includes('name="otp"'), p.html);
  equal(
    (await post(p.path, { state: p.state, otp: "123456" }, "https://evil.example")).status,
    403,
  );
  equal((await post(p.path, { state: "other", otp: "123456" })).status, 404);
  const bad = await post(p.path, { state: p.state, otp: "12 34<" });
  const badJson = await bad.json();
  equal(badJson.errorCode, "VALIDATION_FAILED", JSON.stringify(badJson));
  const good = await post(p.path, { state: p.state, otp: "987654" });
  equal(good.status, 303);
  equal(await first, "987654");
  ok((await (await app.request(p.path)).text()).includes('id="otp-given"'));
  equal((await post(p.path, { state: p.state, otp: "987654" })).status, 404, "once only");

  const second = ask();
  const q = await pageOf();
  await post(q.path, { state: q.state, decision: "decline" });
  await rejects(second, { code: "SENDER_NOT_CHOSEN" });
  ok(!JSON.stringify(logs).includes("987654"), "the code is not logged");
});
