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
  match(csp, /script-src 'sha256-/);
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

Deno.test("[agent] POST /confirm/:id/decision validates its body: null, objects and bad counts are PARAMETER errors, and the dialog still waits", async () => {
  const e = await agentEnv();
  const p = e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  });
  await waitFor(() => e.opened.length === 1);
  const url = e.opened[0]!;
  const nonce = /name="nonce" value="([^"]+)"/.exec(
    await (await e.agent.app.request(url)).text(),
  )![1]!;
  const post = (body: BodyInit, type?: string) =>
    e.agent.app.request(`${url}/decision`, {
      method: "POST",
      headers: {
        origin: AGENT,
        accept: "application/json",
        ...(type ? { "content-type": type } : {}),
      },
      body,
    });
  const json = "application/json";
  const form = (pin: Blob) => {
    const f = new FormData();
    f.set("decision", "confirm");
    f.set("nonce", nonce);
    f.set("pin", pin, "pin.txt");
    return f;
  };
  const cases: [string, BodyInit, string | undefined, string, string | null][] = [
    ["null", "null", json, "INVALID_JSON", null],
    ["an array", "[]", json, "INVALID_JSON", null],
    ["a number", "42", json, "INVALID_JSON", null],
    ["malformed JSON", '{"decision":', json, "INVALID_JSON", null],
    ["no decision", JSON.stringify({ nonce }), json, "VALIDATION_FAILED", "decision"],
    [
      "nonce as an object",
      JSON.stringify({ decision: "confirm", nonce: { toString: 1 } }),
      json,
      "VALIDATION_FAILED",
      "nonce",
    ],
    [
      "senderId as an object",
      JSON.stringify({ decision: "confirm", nonce, senderId: {} }),
      json,
      "VALIDATION_FAILED",
      "senderId",
    ],
    [
      "pin as an object",
      JSON.stringify({ decision: "confirm", nonce, pin: { a: 1 } }),
      json,
      "VALIDATION_FAILED",
      "pin",
    ],
    [
      "pin as an array",
      JSON.stringify({ decision: "confirm", nonce, pin: ["1"] }),
      json,
      "VALIDATION_FAILED",
      "pin",
    ],
    [
      "seen not a count",
      "decision=confirm&seen=abc&nonce=x",
      "application/x-www-form-urlencoded",
      "VALIDATION_FAILED",
      "seen",
    ],
    [
      "decision unknown",
      "decision=maybe",
      "application/x-www-form-urlencoded",
      "VALIDATION_FAILED",
      "decision",
    ],
    ["a file for the PIN", form(new Blob(["1234"])), undefined, "VALIDATION_FAILED", "pin"],
    [
      "a too long PIN",
      JSON.stringify({ decision: "confirm", nonce, pin: "9".repeat(65) }),
      json,
      "VALIDATION_FAILED",
      "pin",
    ],
  ];
  for (const [what, body, type, code, field] of cases) {
    const r = await post(body, type);
    const j = await r.json();
    equal(r.status, 502, `${what}: ${JSON.stringify(j)}`);
    equal(j.errorCode, code, `${what}: ${JSON.stringify(j)}`);
    equal(j.errorKind, "PARAMETER", what);
    if (field) equal(j.details.field, field, what);
  }
  equal(e.agent.confirmations.pending, 1, "no decision was taken");
  const ok200 = await post(
    JSON.stringify({ decision: "confirm", nonce, seen: 1, senderId: "test-sender" }),
    json,
  );
  equal(ok200.status, 200);
  equal((await p).status, 200);
});

Deno.test("[agent] the page shows a local path resolved, with hidden characters as markers, before anything is read", async () => {
  const e = await agentEnv();
  const sent = "/home/u/Documents/\u202eTXT.exe/../../../../home/u/.ssh";
  const p = e.call(
    "dec1_6",
    await e.token({ typeId: "dec1_6", eik: EIK }),
    {
      year: 2026,
      month: 9,
      dec1FilePath: sent,
      dec6FilePath: "/home/u/Заплати/\u200bNRA62007.TXT",
    },
  );
  await waitFor(() => e.opened.length === 1);
  const html = await (await e.agent.app.request(e.opened[0]!)).text();
  // Paths wrap only after their separators: one block per segment, a <wbr> between them.
  match(html, /<span class="seg">home\/<\/span><wbr><span class="seg">u\/<\/span><wbr>/);
  const plain = html.replace(/<span class="seg">|<\/span><wbr>|<\/span>(?=<\/code>)/g, "");
  match(plain, /<code class="path" dir="ltr">\/home\/u\/\.ssh<\/code>/);
  match(plain, /\/home\/u\/Заплати\/⟨U\+200B⟩NRA62007\.TXT/);
  match(html, /скрити знаци ⟨U\+202E⟩/);
  ok(!html.includes("\u202e") && !html.includes("\u200b"), "no hidden character on the page");
  ok(!html.includes("TXT.exe") && !html.includes("/../"), "the raw segments are not shown");
  await e.decide("decline");
  equal((await (await p).json()).errorCode, "SENDER_NOT_CHOSEN");
});
