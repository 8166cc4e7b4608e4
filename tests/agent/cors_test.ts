import { deepStrictEqual, equal } from "node:assert/strict";
import { allowListPolicy } from "../../src/agent/http/cors.ts";
import { AGENT, agentEnv, waitFor } from "../_helpers/agent_env.ts";

const GOOD = "https://app.integrator.example";
const EVIL = "https://evil.example";

Deno.test("[agent] preflight from an allowed origin gets the exact grant (headers, PNA); a disallowed origin gets none", async () => {
  const e = await agentEnv({ originPolicy: allowListPolicy([GOOD], null, Date.now) });
  const pre = (origin: string) =>
    e.agent.app.request(`${AGENT}/api/v1/operations/vat`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, x-svc-batch-id",
        "access-control-request-private-network": "true",
      },
    });
  const ok = await pre(GOOD);
  equal(ok.status, 204);
  equal(ok.headers.get("access-control-allow-origin"), GOOD);
  deepStrictEqual(
    ok.headers.get("access-control-allow-headers")!.split(", "),
    [
      "Authorization",
      "Content-Type",
      "X-Svc-Sender-Id",
      "X-Svc-File-Path",
      "X-Svc-Batch-Id",
      "Idempotency-Key",
    ],
  );
  equal(ok.headers.get("access-control-allow-private-network"), "true");
  equal(ok.headers.get("vary"), "Origin");
  const bad = await pre(EVIL);
  equal(bad.status, 403);
  equal(bad.headers.get("access-control-allow-origin"), null);
});

Deno.test("[agent] an actual request from a disallowed origin is refused before it runs, with no CORS grant", async () => {
  const e = await agentEnv({ originPolicy: allowListPolicy([GOOD], null, Date.now) });
  const tok = await e.token({ typeId: "debt_payments_types" });
  const res = await e.call("debt_payments_types", tok, {}, { origin: EVIL });
  equal(res.status, 403);
  equal(res.headers.get("access-control-allow-origin"), null);
  equal((await res.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  const good = await e.call(
    "debt_payments_types",
    await e.token({ typeId: "debt_payments_types" }),
    {},
    { origin: GOOD },
  );
  equal(good.status, 200);
  equal(good.headers.get("access-control-allow-origin"), GOOD);
  // A picker cannot be opened by a foreign page either.
  const pick = await e.agent.app.request(`${AGENT}/api/pick-file`, {
    method: "POST",
    headers: { origin: EVIL },
  });
  equal(pick.status, 403);
});

Deno.test("[agent] GET /health is open to every origin and reveals no secrets", async () => {
  const e = await agentEnv();
  const res = await e.agent.app.request(`${AGENT}/health`, { headers: { origin: EVIL } });
  equal(res.status, 200);
  equal(res.headers.get("access-control-allow-origin"), "*");
  deepStrictEqual(Object.keys(await res.json()).sort(), [
    "latestVersion",
    "port",
    "service",
    "status",
    "updateAvailable",
    "version",
  ]);
});

Deno.test("allowListPolicy() refreshes the published list after its TTL and tolerates a failing fetch", async () => {
  let now = 0;
  let list = ["https://a.example"];
  let fail = false;
  let calls = 0;
  const policy = allowListPolicy(
    [],
    () => {
      calls++;
      return fail ? Promise.reject(new Error("down")) : Promise.resolve(list);
    },
    () => now,
    1000,
  );
  equal(await policy("https://a.example"), true);
  equal(await policy("https://b.example"), false);
  equal(calls, 1);
  list = ["https://b.example"];
  now = 1000;
  equal(await policy("https://b.example"), true);
  equal(calls, 2);
  fail = true;
  now = 2000;
  equal(await policy("https://b.example"), true, "keeps the last list when a refresh fails");
});

Deno.test("[agent] rate limits per origin answer 429 RATE_LIMITED with Retry-After", async () => {
  const e = await agentEnv({
    originPolicy: allowListPolicy([GOOD], null, Date.now),
    rateLimits: { operationsPer10s: 3 },
  });
  const statuses = [];
  for (let i = 0; i < 5; i++) {
    const r = await e.call(
      "debt_payments_types",
      await e.token({ typeId: "debt_payments_types" }),
      {},
      { origin: GOOD },
    );
    statuses.push(r.status);
    if (r.status === 429) {
      equal((await r.json()).errorCode, "RATE_LIMITED");
      equal(r.headers.get("retry-after"), "10");
    }
  }
  deepStrictEqual(statuses, [200, 200, 200, 429, 429]);
});

Deno.test("[agent] cross-site requests to /confirm/* get a cheap refusal and spend no budget of the user's page", async () => {
  const e = await agentEnv();
  const p = e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: "121212121" }), {
    eik: "121212121",
  });
  await waitFor(() => e.opened.length === 1);
  const page = e.opened[0]!;
  const get = (url: string, headers: Record<string, string>) =>
    e.agent.app.request(url, { headers });
  // A foreign page's <img>, iframe or link: Sec-Fetch-Site, or a foreign Referer / Origin.
  const foreign: Record<string, string>[] = [
    { "sec-fetch-site": "cross-site", "sec-fetch-dest": "image" },
    { "sec-fetch-site": "same-site", "sec-fetch-dest": "image", referer: "http://127.0.0.1:8080/" },
    { referer: `${EVIL}/page` },
    { origin: EVIL },
    { origin: "null" },
  ];
  for (let i = 0; i < 300; i++) {
    const url = i % 3 === 0 ? page : i % 3 === 1 ? `${page}/state` : `${AGENT}/confirm/x`;
    const r = await get(url, foreign[i % foreign.length]!);
    equal(r.status, 403);
    equal(r.headers.get("cross-origin-resource-policy"), "same-origin");
    equal((await r.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  }
  // A foreign form POSTing a decision is refused the same way.
  const forged = await e.agent.app.request(`${page}/decision`, {
    method: "POST",
    headers: {
      "sec-fetch-site": "cross-site",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "decision=decline",
  });
  equal(forged.status, 403);
  // The user's page, opened by the browser, and its polling: never limited.
  const own = { "sec-fetch-site": "same-origin", referer: page };
  equal((await get(page, { "sec-fetch-site": "none" })).status, 200);
  for (let i = 0; i < 300; i++) equal((await get(`${page}/state`, own)).status, 200);
  const html = await (await get(page, own)).text();
  const decided = await e.agent.app.request(`${page}/decision`, {
    method: "POST",
    headers: { ...own, origin: AGENT, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
      seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
      decision: "confirm",
      senderId: "test-sender",
    }),
  });
  equal(decided.status, 200);
  equal((await p).status, 200);
  // Requests without fetch metadata (local programs) keep their per-origin budget.
  const statuses = [];
  for (let i = 0; i < 121; i++) statuses.push((await get(`${AGENT}/confirm/x/state`, {})).status);
  deepStrictEqual(statuses.slice(-2), [200, 429]);
});
