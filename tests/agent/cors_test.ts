import { deepStrictEqual, equal } from "node:assert/strict";
import { allowListPolicy } from "../../src/agent/http/cors.ts";
import { AGENT, agentEnv } from "../_helpers/agent_env.ts";

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
