import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { TEST_ISSUER, tokenEnv } from "../_helpers/token_env.ts";
import { FakeClock } from "../../src/clock.ts";
import { createApiKey, newUuid } from "../../src/token/access/api_keys.ts";
import { createTokenService } from "../../src/token/service.ts";
import { rotateSigningKey } from "../../src/token/issuance/signer.ts";
import { sqliteTokenStore } from "../../src/token/store/mod.ts";

Deno.test("[token] POST /api/v1/tokens/issue returns token, expiresAt, jti, issuer for a test key", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  match(secret, /^svc_test_[A-Za-z0-9_-]{43}$/);
  const res = await t.issue(secret, { typeId: "vat", eik: "121212121" });
  equal(res.status, 200);
  const body = await res.json();
  deepStrictEqual(Object.keys(body).sort(), ["expiresAt", "issuer", "jti", "token"]);
  equal(body.issuer, TEST_ISSUER);
  equal(new Date(body.expiresAt).getTime() - Math.floor(t.clock.now() / 1000) * 1000, 5000);
  const jwks = createLocalJWKSet(await (await t.app.request("/.well-known/jwks.json")).json());
  const { payload } = await jwtVerify(body.token, jwks, {
    algorithms: ["EdDSA"],
    currentDate: new Date(t.clock.now()),
    audience: "svc-agent",
    issuer: TEST_ISSUER,
  });
  equal(payload.typeId, "vat");
  equal(payload.eik, "121212121");
  equal(payload.mode, "test");
  equal(payload.jti, body.jti);
  equal(payload.exp! - payload.iat!, 5);
  equal(decodeProtectedHeader(body.token).alg, "EdDSA");
  ok(decodeProtectedHeader(body.token).kid);
});

Deno.test("[token] issue answers 400 when the typeId's scope needs eik or eiks, and for an unknown typeId", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  const cases: [unknown, string][] = [
    [{ typeId: "vat" }, "EIK_REQUIRED"],
    [{ typeId: "vat_batch", eik: "121212121" }, "EIK_REQUIRED"],
    [{ typeId: "no_such_op", eik: "121212121" }, "UNKNOWN_TYPE_ID"],
    [{ typeId: "vat", eik: "12" }, "VALIDATION_FAILED"],
    [{ eik: "121212121" }, "VALIDATION_FAILED"],
  ];
  for (const [body, code] of cases) {
    const res = await t.issue(secret, body);
    equal(res.status, 400, JSON.stringify(body));
    const j = await res.json();
    equal(j.errorCode, code);
    equal(j.errorKind, "PARAMETER");
  }
  const bad = await t.app.request("/api/v1/tokens/issue", {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: "{not json",
  });
  equal(bad.status, 400);
  equal((await bad.json()).errorCode, "INVALID_JSON");
  // A body that fails validation names the field, as the agent's 502 does (shared helper).
  const short = await (await t.issue(secret, { typeId: "vat", eik: "12" })).json();
  equal(short.details.field, "eik");
  equal(short.details.issues[0].field, "eik");
  ok(short.error.startsWith('Field "eik"'), short.error);
  // Operations without an EIK need none.
  equal((await t.issue(secret, { typeId: "debt_payments_types" })).status, 200);
});

Deno.test("[token] issue answers 401 for a missing, unknown, expired or revoked key", async () => {
  const t = await tokenEnv();
  const { secret, record } = await t.newKey("test");
  const body = { typeId: "vat", eik: "121212121" };
  const noAuth = await t.app.request("/api/v1/tokens/issue", {
    method: "POST",
    body: JSON.stringify(body),
  });
  equal(noAuth.status, 401);
  equal((await noAuth.json()).errorCode, "API_KEY_INVALID");
  const unknown = await t.issue("svc_test_" + "A".repeat(43), body);
  equal((await unknown.json()).errorCode, "API_KEY_INVALID");
  t.clock.advance(90 * 24 * 3600 * 1000 - 1);
  equal((await t.issue(secret, body)).status, 200, "still valid 1 ms before 90 days");
  t.clock.advance(1);
  const expired = await t.issue(secret, body);
  equal(expired.status, 401);
  equal((await expired.json()).errorCode, "API_KEY_EXPIRED");
  const { secret: s2 } = await t.newKey("test");
  await t.store.revokeKey(
    (await t.store.findKeyByHash(
      (await import("../../src/token/access/api_keys.ts")).hashSecret(s2),
    ))!.id,
    t.clock.now(),
  );
  const revoked = await t.issue(s2, body);
  equal(revoked.status, 401);
  equal((await revoked.json()).errorCode, "API_KEY_REVOKED");
  ok(record.id.startsWith("key_"));
});

Deno.test("[token] a live key without contract lives 7 days and covers at most 3 EIKs (402 for the 4th)", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("live");
  for (const eik of ["111111111", "222222222", "333333333", "111111111"]) {
    equal((await t.issue(secret, { typeId: "debt_payments", eik })).status, 200, eik);
  }
  const fourth = await t.issue(secret, { typeId: "debt_payments", eik: "444444444" });
  equal(fourth.status, 402);
  const j = await fourth.json();
  equal(j.errorCode, "EIK_LIMIT_REACHED");
  equal(j.errorKind, "CREDENTIALS");
  const batch = await t.issue(secret, { typeId: "vat_batch", eiks: ["111111111", "555555555"] });
  equal(batch.status, 402, "eiks count against the same limit");
  deepStrictEqual(
    await t.store.keyEiks(
      (await t.store.findKeyByHash(
        (await import("../../src/token/access/api_keys.ts")).hashSecret(secret),
      ))!.id,
    ),
    ["111111111", "222222222", "333333333"],
  );
  t.clock.advance(7 * 24 * 3600 * 1000);
  // Without a contract a live key ends with its integrator's 7 days: 402, not a key problem.
  const over = await t.issue(secret, { typeId: "debt_payments", eik: "111111111" });
  equal(over.status, 402);
  equal((await over.json()).errorCode, "LIVE_TRIAL_OVER");
});

Deno.test("[token] a test key has no EIK limit", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  const eiks = Array.from({ length: 20 }, (_, i) => String(100000000 + i));
  equal((await t.issue(secret, { typeId: "vat_batch", eiks })).status, 200);
});

Deno.test("[token] an EIK outside the key's allowed list gives 403 with rejectedEiks", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test", ["121212121", "131313131"]);
  equal((await t.issue(secret, { typeId: "vat", eik: "121212121" })).status, 200);
  const res = await t.issue(secret, {
    typeId: "vat_batch",
    eiks: ["121212121", "999999999", "888888888"],
  });
  equal(res.status, 403);
  const j = await res.json();
  equal(j.errorCode, "EIK_NOT_ALLOWED");
  deepStrictEqual(j.rejectedEiks, ["999999999", "888888888"]);
});

Deno.test("[token] the signing key persists across restarts and the JWKS keeps the previous key after a rotation", async () => {
  const t = await tokenEnv();
  const kid1 = t.ring().kid;
  const { secret } = await t.newKey("test");
  const old = (await (await t.issue(secret, { typeId: "vat", eik: "121212121" })).json()).token;
  await t.reloadRing();
  equal(t.ring().kid, kid1, "reload keeps the persisted key");
  await rotateSigningKey({ store: t.store }, t.clock.now());
  await t.reloadRing();
  const jwks = await (await t.app.request("/.well-known/jwks.json")).json();
  deepStrictEqual(jwks.keys.map((k: { kid: string }) => k.kid).sort(), [kid1, t.ring().kid].sort());
  const { payload } = await jwtVerify(old, createLocalJWKSet(jwks), {
    currentDate: new Date(t.clock.now()),
  });
  equal(payload.typeId, "vat");
});

Deno.test("[token] tokens carry the minimum agent version when configured", async () => {
  const t = await tokenEnv({ minAgentVersion: "9.0.0" });
  const { secret } = await t.newKey("test");
  const { token } = await (await t.issue(secret, { typeId: "taxpayers" })).json();
  const payload = JSON.parse(
    new TextDecoder().decode(Uint8Array.fromBase64(token.split(".")[1], { alphabet: "base64url" })),
  );
  equal(payload.minAgentVersion, "9.0.0");
});

Deno.test("[token] tokens carry the integrator's id and name (intg, intgName) for the confirmation page", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  const { token } = await (await t.issue(secret, { typeId: "taxpayers" })).json();
  const payload = JSON.parse(
    new TextDecoder().decode(Uint8Array.fromBase64(token.split(".")[1], { alphabet: "base64url" })),
  );
  equal(payload.intg, "default");
  equal(payload.intgName, "Demo integrator");
});

Deno.test("[token] the jti and a new signing key's kid come from the injected random source", async () => {
  let n = 0;
  const random = (k: number) => Uint8Array.from({ length: k }, () => n++ & 0xff);
  deepStrictEqual(
    newUuid(() => new Uint8Array(16).fill(0xff)),
    "ffffffff-ffff-4fff-bfff-ffffffffffff",
  );
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const clock = new FakeClock();
  const svc = await createTokenService({
    store,
    clock,
    random,
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
  });
  equal(svc.keyRing().kid, "ed-AAECAwQFBgcI", "9 random bytes, base64url");
  const { secret } = await createApiKey(store, { mode: "test", now: clock.now() });
  const res = await svc.app.request("/api/v1/tokens/issue", {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
  });
  // After the kid (bytes 0-8) and the scheduler's instance id (bytes 9-17).
  equal((await res.json()).jti, "12131415-1617-4819-9a1b-1c1d1e1f2021");
  await svc.stop();
  await store.close();
});
