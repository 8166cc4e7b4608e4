import { equal } from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { AGENT, agentEnv } from "../_helpers/agent_env.ts";
import { TEST_ISSUER } from "../_helpers/token_env.ts";

Deno.test("[agent] an expired token (past 5 s + 2 s leeway) gets 401 TOKEN_EXPIRED", async () => {
  const e = await agentEnv();
  const tok = await e.token({ typeId: "debt_payments_types" });
  e.clock.advance(7_001);
  const res = await e.call("debt_payments_types", tok, {});
  equal(res.status, 401);
  equal((await res.json()).errorCode, "TOKEN_EXPIRED");
});

Deno.test("[agent] a token within the 2 s leeway still works", async () => {
  const e = await agentEnv();
  const tok = await e.token({ typeId: "debt_payments_types" });
  e.clock.advance(6_000);
  equal((await e.call("debt_payments_types", tok, {})).status, 200);
});

Deno.test("[agent] a token signed by another key, or with another algorithm, gets 401 TOKEN_INVALID", async () => {
  const e = await agentEnv();
  const { privateKey } = await generateKeyPair("EdDSA");
  const kid = e.ring().kid;
  const now = Math.floor(e.clock.now() / 1000);
  const forged = await new SignJWT({
    typeId: "debt_payments_types",
    mode: "test",
    jti: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: "EdDSA", kid }).setIssuer(TEST_ISSUER).setAudience("svc-agent")
    .setIssuedAt(now).setExpirationTime(now + 5).sign(privateKey);
  const r1 = await e.call("debt_payments_types", forged, {});
  equal(r1.status, 401);
  equal((await r1.json()).errorCode, "TOKEN_INVALID");
  const hs = await new SignJWT({
    typeId: "debt_payments_types",
    mode: "test",
    jti: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: "HS256", kid }).setIssuer(TEST_ISSUER).setAudience("svc-agent")
    .setIssuedAt(now).setExpirationTime(now + 5).sign(new TextEncoder().encode("x".repeat(32)));
  equal((await (await e.call("debt_payments_types", hs, {})).json()).errorCode, "TOKEN_INVALID");
  const unsigned =
    (await e.token({ typeId: "debt_payments_types" })).split(".").slice(0, 2).join(".") + ".";
  equal((await e.call("debt_payments_types", unsigned, {})).status, 401);
  void exportJWK;
});

Deno.test("[agent] a token whose lifetime exceeds 5 s (+ leeway) is refused", async () => {
  const e = await agentEnv();
  const now = Math.floor(e.clock.now() / 1000);
  // Signed by the real key but with iat far in the past and a long exp.
  const long = await e.ring().sign(
    {
      iss: TEST_ISSUER,
      aud: "svc-agent",
      typeId: "debt_payments_types",
      mode: "test",
      jti: crypto.randomUUID(),
    },
    now - 60,
    now + 3600,
  );
  const res = await e.call("debt_payments_types", long, {});
  equal(res.status, 401);
});

Deno.test("[agent] missing Authorization gets 401 TOKEN_MISSING; unknown typeId 404", async () => {
  const e = await agentEnv();
  const res = await e.agent.app.request(`${AGENT}/api/v1/operations/debt_payments_types`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  equal(res.status, 401);
  equal((await res.json()).errorCode, "TOKEN_MISSING");
  const tok = await e.token({ typeId: "debt_payments_types" });
  const nf = await e.call("nope", tok, {});
  equal(nf.status, 404);
  equal((await nf.json()).errorCode, "UNKNOWN_OPERATION");
});

Deno.test("[agent] too-old agent answers 426 with agentVersion and requiredVersion", async () => {
  const e = await agentEnv({ minAgentVersion: "99.1.0" });
  const res = await e.call(
    "debt_payments_types",
    await e.token({ typeId: "debt_payments_types" }),
    {},
  );
  equal(res.status, 426);
  const j = await res.json();
  equal(j.requiredVersion, "99.1.0");
  equal(typeof j.agentVersion, "string");
  equal(typeof j.error, "string");
});

Deno.test("[agent] a foreign Host header is refused (DNS rebinding)", async () => {
  const e = await agentEnv();
  const res = await e.agent.app.request(`${AGENT}/health`, {
    headers: { host: "evil.example:17470" },
  });
  equal(res.status, 421);
  equal((await res.json()).errorCode, "HOST_NOT_ALLOWED");
  equal((await e.agent.app.request(`${AGENT}/health`)).status, 200);
});
