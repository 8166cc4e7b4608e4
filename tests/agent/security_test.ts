/**
 * Attack requests against the agent, each refused: a token bound to another body, a token
 * bound to another page origin, an oversized body, a replayed token, a token for another typeId.
 */
import { equal } from "node:assert/strict";
import { createHash } from "node:crypto";
import { AGENT, agentEnv } from "../_helpers/agent_env.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

Deno.test("[agent] a token bound to a body hash refuses any other body (401 TOKEN_BODY_MISMATCH)", async () => {
  const e = await agentEnv();
  const body = JSON.stringify({ filter: "ДДС" });
  const good = await e.token({ typeId: "nap_catalog", bodySha256: sha(body) });
  equal((await e.call("nap_catalog", good, body)).status, 200);
  const tampered = await e.token({ typeId: "nap_catalog", bodySha256: sha(body) });
  const r = await e.call("nap_catalog", tampered, JSON.stringify({ filter: "" }));
  equal(r.status, 401);
  equal((await r.json()).errorCode, "TOKEN_BODY_MISMATCH");
});

Deno.test("[agent] a token bound to a page origin refuses a request from another origin", async () => {
  const e = await agentEnv({ originPolicy: () => Promise.resolve(true) });
  const tok = await e.token({ typeId: "nap_catalog", origin: "https://app.integrator.example" });
  const r = await e.call("nap_catalog", tok, "{}", { origin: "https://evil.example" });
  equal(r.status, 403);
  equal((await r.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  const ok = await e.call(
    "nap_catalog",
    await e.token({ typeId: "nap_catalog", origin: "https://app.integrator.example" }),
    "{}",
    {
      origin: "https://app.integrator.example",
    },
  );
  equal(ok.status, 200);
});

Deno.test("[agent] an oversized body is refused with 413 BODY_TOO_LARGE before the token is even checked", async () => {
  const e = await agentEnv();
  const huge = "x".repeat(64 * 1024 * 1024 + 1);
  const r = await e.agent.app.request(`${AGENT}/api/v1/operations/nap_catalog`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(huge.length) },
    body: huge,
  });
  equal(r.status, 413);
  equal((await r.json()).errorCode, "BODY_TOO_LARGE");
  const pick = await e.agent.app.request(`${AGENT}/api/pick-file`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "y".repeat(17 * 1024),
  });
  equal(pick.status, 413);
});

Deno.test("[agent] a replayed token and a token for another typeId are refused (401)", async () => {
  const e = await agentEnv();
  const tok = await e.token({ typeId: "nap_catalog" });
  equal((await e.call("nap_catalog", tok, "{}")).status, 200);
  const replay = await e.call("nap_catalog", tok, "{}");
  equal(replay.status, 401);
  equal((await replay.json()).errorCode, "TOKEN_REPLAYED");
  const other = await e.call("nap_catalog", await e.token({ typeId: "debt_payments_types" }), "{}");
  equal(other.status, 401);
  equal((await other.json()).errorCode, "TOKEN_TYPE_MISMATCH");
});
