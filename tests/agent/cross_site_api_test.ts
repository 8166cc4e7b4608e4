/**
 * A web page cannot spend the budget of the agent's local callers (docs/confirmation.md § No
 * website can block the page): a browser's request from another site that is not CORS — an `<img>`, a link, a
 * no-cors fetch: `Sec-Fetch-Site: cross-site` or `same-site` and no `Origin` — is refused with 403
 * ORIGIN_NOT_ALLOWED before any budget is counted; local programs (no fetch metadata) keep theirs,
 * and a CORS request of an allowed page (it carries its `Origin`) is counted on its own origin.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { allowListPolicy } from "../../src/agent/http/cors.ts";
import { AGENT, agentEnv } from "../_helpers/agent_env.ts";

const GOOD = "https://app.integrator.example";

Deno.test("[agent] 2,010 cross-site <img> GETs to /api/v1/batches/<uuid> are refused and leave the local callers' budget whole", async () => {
  const e = await agentEnv({ originPolicy: allowListPolicy([GOOD], null, Date.now) });
  const batch = `${AGENT}/api/v1/batches/${crypto.randomUUID()}`;
  const img: Record<string, string>[] = [
    { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" },
    // A page on another port of this machine is the same site, but another origin.
    {
      "sec-fetch-site": "same-site",
      "sec-fetch-mode": "no-cors",
      "sec-fetch-dest": "image",
      referer: "http://127.0.0.1:8080/",
    },
  ];
  for (let i = 0; i < 2010; i++) {
    const r = await e.agent.app.request(batch, { headers: img[i % 2]! });
    equal(r.status, 403);
    equal((await r.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  }
  // A form on another site POSTing an operation without Origin (an old browser) is refused too.
  const form = await e.agent.app.request(`${AGENT}/api/v1/operations/debt_payments_types`, {
    method: "POST",
    headers: { "sec-fetch-site": "cross-site", "content-type": "text/plain" },
    body: "{}",
  });
  equal(form.status, 403);
  equal((await form.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  // The next local call (no fetch metadata) is answered, not 429.
  const local = await e.agent.app.request(batch);
  equal(local.status, 404, JSON.stringify(await local.clone().json()));
  equal((await local.json()).errorCode, "BATCH_NOT_FOUND");
  const op = await e.call(
    "debt_payments_types",
    await e.token({ typeId: "debt_payments_types" }),
    {},
  );
  equal(op.status, 200);
  // An allowed page's CORS request (cross-site, with its Origin) runs as before.
  const cors = await e.call(
    "debt_payments_types",
    await e.token({ typeId: "debt_payments_types" }),
    {},
    { origin: GOOD, "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors" },
  );
  equal(cors.status, 200);
});

Deno.test("[agent] local callers keep their own budget: 429 only after their own requests", async () => {
  const e = await agentEnv({ rateLimits: { operationsPer10s: 3 } });
  const batch = `${AGENT}/api/v1/batches/${crypto.randomUUID()}`;
  for (let i = 0; i < 50; i++) {
    const r = await e.agent.app.request(batch, { headers: { "sec-fetch-site": "cross-site" } });
    equal(r.status, 403);
  }
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await e.agent.app.request(batch)).status);
  deepStrictEqual(statuses, [404, 404, 404, 429]);
});
