import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { AGENT, agentEnv, tick, waitFor } from "../_helpers/agent_env.ts";

const EIK = "121212121";

Deno.test("[agent] confirmation state machine: confirm, reuse within 10 minutes, ask again after", async () => {
  const e = await agentEnv();
  const batch = crypto.randomUUID();
  const req = async () =>
    e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), { eik: EIK }, {
      "x-svc-batch-id": batch,
    });
  const calls = [req(), req(), req()];
  await waitFor(() => e.agent.confirmations.pending === 1 && e.opened.length === 1);
  equal(e.opened.length, 1, "concurrent requests of a batch share one dialog");
  let page = "";
  for (let i = 0; i < 200 && !/id="requests">3</.test(page); i++) {
    page = await (await e.agent.app.request(e.opened[0]!)).text();
    await tick();
  }
  match(page, /id="requests">3</);
  equal((await e.decide("confirm")).status, 200);
  for (const r of await Promise.all(calls)) equal(r.status, 200);
  e.clock.advance(9 * 60_000);
  equal((await req()).status, 200);
  equal(e.opened.length, 1, "silent within the TTL");
  e.clock.advance(61_000);
  const again = req();
  await waitFor(() => e.opened.length === 2);
  equal(e.opened.length, 2, "asks again after 10 minutes");
  await e.decide("confirm");
  equal((await again).status, 200);
  // No batch id: every request asks.
  const solo = e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  });
  await waitFor(() => e.opened.length === 3);
  equal(e.opened.length, 3);
  await e.decide("confirm");
  equal((await solo).status, 200);
});

Deno.test("[agent] decline refuses the whole batch: SENDER_NOT_CHOSEN at once, no new dialog", async () => {
  const e = await agentEnv();
  const batch = crypto.randomUUID();
  const first = e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  }, {
    "x-svc-batch-id": batch,
  });
  await waitFor(() => e.opened.length === 1);
  await e.decide("decline");
  const r = await first;
  equal(r.status, 502);
  deepStrictEqual(((await r.json()) as { errorCode: string }).errorCode, "SENDER_NOT_CHOSEN");
  const later = await e.call(
    "debt_payments",
    await e.token({ typeId: "debt_payments", eik: EIK }),
    {
      eik: EIK,
      year: 2025,
    },
    { "x-svc-batch-id": batch },
  );
  equal((await later.json()).errorCode, "SENDER_NOT_CHOSEN");
  equal(e.opened.length, 1);
});

Deno.test("[agent] a dialog that times out refuses the batch", async () => {
  const e = await agentEnv({ timeoutMs: 50 });
  const batch = crypto.randomUUID();
  const r = await e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  }, {
    "x-svc-batch-id": batch,
  });
  equal((await r.json()).errorCode, "SENDER_NOT_CHOSEN");
  const later = await e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  }, {
    "x-svc-batch-id": batch,
  });
  equal((await later.json()).errorCode, "SENDER_NOT_CHOSEN");
  equal(e.opened.length, 1);
});

Deno.test("[agent] the confirmation page is unframeable, shows who asks and what, and needs the nonce from the agent's origin", async () => {
  const e = await agentEnv({
    senders: [{ id: "ivan", displayName: "Иван Петров", active: true }, {
      id: "maria",
      displayName: "Мария",
      active: true,
    }],
  });
  const p = e.call(
    "due_amounts",
    await e.token({ typeId: "due_amounts", eik: EIK }),
    { eik: EIK },
    {
      "x-svc-sender-id": "maria",
    },
  );
  await waitFor(() => e.opened.length === 1);
  const url = e.opened[0]!;
  const res = await e.agent.app.request(url);
  const csp = res.headers.get("content-security-policy")!;
  match(csp, /frame-ancestors 'none'/);
  match(csp, /script-src 'nonce-/);
  equal(res.headers.get("x-frame-options"), "DENY");
  const html = await res.text();
  match(html, /Demo integrator/);
  match(html, new RegExp(EIK));
  match(html, /value="maria" checked/, "X-Svc-Sender-Id preselects the sender");
  ok(!/value="ivan" checked/.test(html));
  const nonce = /name="nonce" value="([^"]+)"/.exec(html)![1]!;
  const post = (headers: Record<string, string>, body: Record<string, string>) =>
    e.agent.app.request(`${url}/decision`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(body),
    });
  equal(
    (await post({ origin: "https://evil.example" }, {
      nonce,
      decision: "confirm",
      senderId: "maria",
      seen: "1",
    })).status,
    403,
  );
  equal(
    (await post({}, { nonce, decision: "confirm", senderId: "maria", seen: "1" })).status,
    403,
    "no Origin",
  );
  const noNonce = await post({ origin: AGENT }, {
    nonce: "wrong",
    decision: "confirm",
    senderId: "maria",
  });
  equal(noNonce.status, 403);
  equal((await noNonce.json()).errorCode, "CONFIRMATION_NONCE_INVALID");
  equal(
    (await post({ origin: AGENT }, { nonce, decision: "confirm", senderId: "maria", seen: "1" }))
      .status,
    200,
  );
  equal((await p).status, 200);
  equal(
    (await post({ origin: AGENT }, { nonce, decision: "confirm", senderId: "maria", seen: "1" }))
      .status,
    404,
    "one-time",
  );
});

Deno.test("[agent] unknown X-Svc-Sender-Id is refused before any dialog; GET /api/senders exposes no secrets", async () => {
  const e = await agentEnv({
    senders: [{
      id: "ivan",
      displayName: "Иван Петров",
      active: true,
      keystore: { type: "pkcs12", file: "/secret.p12" },
    }],
  });
  const r = await e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  }, {
    "x-svc-sender-id": "ghost",
  });
  equal((await r.json()).errorCode, "SENDER_NOT_FOUND");
  equal(e.opened.length, 0);
  const s = await (await e.agent.app.request(`${AGENT}/api/senders`)).json();
  deepStrictEqual(s, {
    senders: [{ id: "ivan", displayName: "Иван Петров", active: true }],
    activeSenderId: "ivan",
  });
});

Deno.test("[agent] a confirmation that missed a request which joined later is refused and shown again", async () => {
  const e = await agentEnv();
  const batch = crypto.randomUUID();
  const req = async () =>
    e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), { eik: EIK }, {
      "x-svc-batch-id": batch,
    });
  const first = req();
  await waitFor(() => e.opened.length === 1);
  const url = e.opened[0]!;
  const id = url.split("/").at(-1)!;
  const html = await (await e.agent.app.request(url)).text();
  const nonce = /name="nonce" value="([^"]+)"/.exec(html)![1]!;
  match(html, /name="seen" id="seen" value="1"/);
  const second = req(); // joins while the page is open
  await waitFor(() => e.agent.confirmations.get(id)?.subjects.length === 2);
  const decide = (accept: string, seen: string) =>
    e.agent.app.request(`${url}/decision`, {
      method: "POST",
      headers: { origin: AGENT, "content-type": "application/x-www-form-urlencoded", accept },
      body: new URLSearchParams({ nonce, decision: "confirm", senderId: "test-sender", seen }),
    });
  const stale = await decide("application/json", "1");
  equal(stale.status, 409);
  equal((await stale.json()).errorCode, "CONFIRMATION_CHANGED");
  const browser = await decide("text/html", "1");
  equal(browser.status, 303, "a browser is sent back to the page, now listing both requests");
  equal((await (await e.agent.app.request(`${url}/state`)).json()).requests, 2);
  match(await (await e.agent.app.request(url)).text(), /id="requests">2</);
  equal((await decide("text/html", "2")).status, 200);
  equal((await first).status, 200);
  equal((await second).status, 200);
});
