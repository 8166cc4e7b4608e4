/**
 * The token service's signing keys at rest (docs/token-service.md), on SQLite and PostgreSQL: with
 * a secret the stored row holds no private `d` (only `enc` ciphertext), tokens issued over real
 * HTTP verify against the JWKS; a wrong or missing secret fails at start with a message naming the
 * fingerprints; keys stored in plain text before keep working and are re-encrypted by a rotation or
 * by `POST /admin/v1/signing-keys/encrypt`; a previous secret is read while the secret is changed;
 * a ciphertext moved to another key's row does not open.
 */
import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import { createLocalJWKSet, jwtVerify } from "jose";
import { FakeClock } from "../../src/clock.ts";
import { createApiKey } from "../../src/token/access/api_keys.ts";
import {
  createSigningKeyCipher,
  type SigningKeyCipher,
} from "../../src/token/issuance/key_cipher.ts";
import { createTokenService } from "../../src/token/service.ts";
import type { TokenStore } from "../../src/token/store/mod.ts";
import { ADMIN_TOKEN, backendTest, TEST_ISSUER } from "../_helpers/token_env.ts";

const SECRET_A = "A".repeat(8) + "-first-signing-key-secret-0123456789";
const SECRET_B = "B".repeat(8) + "-second-signing-key-secret-987654321";

/** A service on `store` with `cipher`, its app served on loopback, and HTTP helpers. */
async function serve(store: TokenStore, cipher: SigningKeyCipher | null, clock: FakeClock) {
  const service = await createTokenService({
    store,
    clock,
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
    adminToken: ADMIN_TOKEN,
    keyCipher: cipher,
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, service.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const { secret } = await createApiKey(store, { mode: "test", now: clock.now() });
  /** Issue a token over HTTP and verify it against the JWKS served over HTTP. */
  const issueAndVerify = async () => {
    const res = await fetch(`${base}/api/v1/tokens/issue`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ typeId: "nap_catalog" }),
    });
    const body = await res.json();
    equal(res.status, 200, JSON.stringify(body));
    const jwks = await (await fetch(`${base}/.well-known/jwks.json`)).json();
    for (const k of jwks.keys) ok(!("d" in k), "the JWKS publishes no private part");
    const { payload, protectedHeader } = await jwtVerify(body.token, createLocalJWKSet(jwks), {
      issuer: TEST_ISSUER,
      audience: "svc-agent",
      currentDate: new Date(clock.now()),
    });
    equal(payload.typeId, "nap_catalog");
    return { kid: protectedHeader.kid!, jwks: jwks.keys.map((k: { kid: string }) => k.kid) };
  };
  const admin = async (method: string, path: string) => {
    const res = await fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    service,
    issueAndVerify,
    admin,
    async close() {
      await server.shutdown();
      await service.stop();
    },
  };
}

/** The private `d` of every stored key, read with the cipher (or as stored in plain text). */
async function privateParts(store: TokenStore, cipher: SigningKeyCipher | null) {
  const out: string[] = [];
  for (const k of await store.listSigningKeys()) {
    const jwk = JSON.parse(cipher ? await cipher.open(k.kid, k.privateJwk) : k.privateJwk);
    out.push(jwk.d);
  }
  return out;
}

/** Assert no stored row carries a private part in plain text. */
async function assertNoPlaintext(store: TokenStore, ds: readonly string[]) {
  for (const k of await store.listSigningKeys()) {
    const row = JSON.parse(k.privateJwk);
    ok(!("d" in row), `row ${k.kid} has no d`);
    equal(row.enc.alg, "A256GCM");
    for (const d of ds) ok(!k.privateJwk.includes(d), "no private part in the row");
    ok(!k.publicJwk.includes('"d"'));
  }
}

backendTest(
  "signing keys with a secret: the row holds only ciphertext; issuance and JWKS work over HTTP",
  async (db) => {
    const store = await db.open();
    const clock = new FakeClock();
    const cipher = await createSigningKeyCipher(SECRET_A);
    const s = await serve(store, cipher, clock);
    try {
      const { kid } = await s.issueAndVerify();
      const ds = await privateParts(store, cipher);
      equal(ds.length, 1);
      ok(ds[0]!.length > 40);
      await assertNoPlaintext(store, ds);
      const list = await s.admin("GET", "/signing-keys");
      equal(list.status, 200);
      deepStrictEqual(
        list.body.items.map((k: { kid: string; atRest: string }) => [k.kid, k.atRest]),
        [
          [kid, "encrypted"],
        ],
      );
      equal(list.body.secretFingerprint, cipher.fingerprint);
      ok(!JSON.stringify(list.body).includes(ds[0]!));
      // A rotation keeps everything encrypted and the previous key published.
      const rot = await s.admin("POST", "/signing-keys/rotate");
      equal(rot.status, 201);
      const after = await s.issueAndVerify();
      ok(after.kid !== kid && after.jwks.includes(kid));
      await assertNoPlaintext(store, await privateParts(store, cipher));
    } finally {
      await s.close();
    }
  },
);

backendTest(
  "signing keys: a wrong or missing secret fails at start with the fingerprints",
  async (db) => {
    const store = await db.open();
    const clock = new FakeClock();
    const a = await createSigningKeyCipher(SECRET_A);
    const b = await createSigningKeyCipher(SECRET_B);
    const s = await serve(store, a, clock);
    await s.close();
    const start = (cipher: SigningKeyCipher | null) =>
      createTokenService({
        store,
        clock,
        config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
        keyCipher: cipher,
      });
    await rejects(start(b), (e: Error) => {
      match(e.message, /does not open signing key ed-/);
      ok(e.message.includes(a.fingerprint) && e.message.includes(b.fingerprint), e.message);
      ok(!e.message.includes(SECRET_A) && !e.message.includes(SECRET_B));
      return true;
    });
    await rejects(start(null), /is encrypted at rest: set SVC_SIGNING_KEY_SECRET/);
    // The right secret, or the old one given as the previous secret, opens it.
    await (await start(a)).stop();
    const changing = await createSigningKeyCipher(SECRET_B, [SECRET_A]);
    await (await start(changing)).stop();
  },
);

backendTest(
  "signing keys stored in plain text keep working with a secret and are encrypted by the admin step",
  async (db) => {
    const store = await db.open();
    const clock = new FakeClock();
    // Before: no secret, the key is stored in plain text (as every older install).
    const before = await serve(store, null, clock);
    const { kid } = await before.issueAndVerify();
    equal((await before.admin("POST", "/signing-keys/encrypt")).body.errorCode, "CONFLICT");
    await before.close();
    const plainRow = (await store.listSigningKeys())[0]!;
    const d = JSON.parse(plainRow.privateJwk).d as string;
    ok(d);

    const cipher = await createSigningKeyCipher(SECRET_A);
    const s = await serve(store, cipher, clock);
    try {
      equal((await s.issueAndVerify()).kid, kid, "the plain-text key still signs");
      const listed = await s.admin("GET", "/signing-keys");
      equal(listed.body.items[0].atRest, "plaintext");
      const enc = await s.admin("POST", "/signing-keys/encrypt");
      equal(enc.status, 200, JSON.stringify(enc.body));
      equal(enc.body.items[0].atRest, "encrypted");
      await assertNoPlaintext(store, [d]);
      equal((await s.issueAndVerify()).kid, kid, "the same key signs after re-encryption");
      equal(
        JSON.parse(await cipher.open(kid, (await store.listSigningKeys())[0]!.privateJwk)).d,
        d,
      );
    } finally {
      await s.close();
    }
  },
);

backendTest(
  "signing keys: a rotation with a secret re-encrypts older plain-text keys; a changed secret is taken over",
  async (db) => {
    const store = await db.open();
    const clock = new FakeClock();
    const plain = await serve(store, null, clock);
    const { kid: oldKid } = await plain.issueAndVerify();
    await plain.close();
    const a = await createSigningKeyCipher(SECRET_A);
    const s = await serve(store, a, clock);
    try {
      equal((await s.admin("POST", "/signing-keys/rotate")).status, 201);
      const views = (await s.admin("GET", "/signing-keys")).body.items;
      deepStrictEqual(views.map((v: { atRest: string }) => v.atRest), ["encrypted", "encrypted"]);
      const { jwks } = await s.issueAndVerify();
      ok(jwks.includes(oldKid));
    } finally {
      await s.close();
    }
    // Changing the secret: B with A as the previous one reads, then re-encrypts under B.
    const changing = await createSigningKeyCipher(SECRET_B, [SECRET_A]);
    const c = await serve(store, changing, clock);
    try {
      const views = (await c.admin("GET", "/signing-keys")).body.items;
      deepStrictEqual(views.map((v: { atRest: string }) => v.atRest), [
        "previous-secret",
        "previous-secret",
      ]);
      const out = (await c.admin("POST", "/signing-keys/encrypt")).body;
      deepStrictEqual(out.items.map((v: { atRest: string }) => v.atRest), [
        "encrypted",
        "encrypted",
      ]);
      equal(out.secretFingerprint, changing.fingerprint);
    } finally {
      await c.close();
    }
    const onlyB = await serve(store, await createSigningKeyCipher(SECRET_B), clock);
    await onlyB.issueAndVerify();
    await onlyB.close();
  },
);

backendTest("signing keys: a ciphertext moved to another key's row does not open", async (db) => {
  const store = await db.open();
  const clock = new FakeClock();
  const a = await createSigningKeyCipher(SECRET_A);
  const s = await serve(store, a, clock);
  await s.admin("POST", "/signing-keys/rotate");
  await s.close();
  const keys = await store.listSigningKeys();
  const current = keys.find((k) => k.retiredAt === null);
  const older = keys.find((k) => k.retiredAt !== null);
  const moved = JSON.stringify({
    ...JSON.parse(current!.privateJwk),
    enc: JSON.parse(older!.privateJwk).enc,
  });
  ok(await store.replaceSigningKeyPrivate(current!.kid, current!.privateJwk, moved));
  await rejects(
    createTokenService({
      store,
      clock,
      config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: null },
      keyCipher: a,
    }),
    /cannot be decrypted: its stored ciphertext was altered/,
  );
});

Deno.test("createSigningKeyCipher() refuses a secret shorter than 32 characters", async () => {
  await rejects(createSigningKeyCipher("short"), /at least 32 characters/);
  await rejects(createSigningKeyCipher(SECRET_A, ["short"]), /at least 32 characters/);
});
