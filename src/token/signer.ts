/**
 * The token service's Ed25519 signing keys and JWT minting (jose, EdDSA, `kid` in the header).
 * The first start generates a key and persists it in the store; rotation retires the current
 * key and the JWKS keeps publishing the previous one so tokens signed before a rotation still
 * verify until they expire.
 * @module
 */
import { Buffer } from "node:buffer";
import { createPrivateKey, sign as ed25519Sign } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { newId, type RandomBytes, systemRandom } from "./api_keys.ts";
import type { TokenStore } from "./store/mod.ts";

/** A loaded key ring: the current private key plus the public JWKs to publish. */
export interface KeyRing {
  readonly kid: string;
  /** Sign a JWT payload (claims without iat/exp, which are passed in). */
  sign(payload: Record<string, unknown>, iatSeconds: number, expSeconds: number): Promise<string>;
  /** `{ keys: [...] }` for `/.well-known/jwks.json`: the current and the previous key. */
  jwks(): { keys: JWK[] };
}

async function newKey(store: TokenStore, now: number, rnd: RandomBytes): Promise<void> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { extractable: true });
  const priv = await exportJWK(privateKey);
  const pub = await exportJWK(publicKey);
  const kid = newId("ed", rnd).replace("_", "-");
  await store.saveSigningKey({
    kid,
    privateJwk: JSON.stringify({ ...priv, kid, alg: "EdDSA" }),
    publicJwk: JSON.stringify({ ...pub, kid, alg: "EdDSA", use: "sig" }),
    createdAt: now,
    retiredAt: null,
  });
}

/**
 * Load the current signing key, generating and persisting one on first start.
 * @param store the token store
 * @param now epoch ms
 * @param rnd random source of a new key's `kid`
 * @returns the key ring
 */
export async function loadKeyRing(
  store: TokenStore,
  now: number,
  rnd: RandomBytes = systemRandom,
): Promise<KeyRing> {
  let keys = await store.listSigningKeys();
  if (!keys.some((k) => k.retiredAt === null)) {
    await newKey(store, now, rnd);
    keys = await store.listSigningKeys();
  }
  const current = keys.filter((k) => k.retiredAt === null).at(-1)!;
  const previous = keys.filter((k) => k.retiredAt !== null).sort((a, b) =>
    (b.retiredAt ?? 0) - (a.retiredAt ?? 0)
  ).slice(0, 1);
  // JWS compact serialization (RFC 7515 § 7.1) with node:crypto's synchronous Ed25519, measured
  // about twice the rate of the asynchronous WebCrypto signing jose uses; tokens are verified
  // with jose (tests check both agree).
  const privateKey = createPrivateKey({ key: JSON.parse(current.privateJwk), format: "jwk" });
  const published = [current, ...previous].map((k) => JSON.parse(k.publicJwk) as JWK);
  const header = Buffer.from(JSON.stringify({ alg: "EdDSA", kid: current.kid, typ: "JWT" }))
    .toString("base64url");
  return {
    kid: current.kid,
    sign: (payload, iat, exp) => {
      const body = Buffer.from(JSON.stringify({ ...payload, iat, exp })).toString("base64url");
      const input = `${header}.${body}`;
      const sig = ed25519Sign(null, Buffer.from(input), privateKey).toString("base64url");
      return Promise.resolve(`${input}.${sig}`);
    },
    jwks: () => ({ keys: published }),
  };
}

/**
 * Rotate: retire the current key and create a new one. Reload the key ring afterwards.
 * @param store the token store
 * @param now epoch ms
 * @param rnd random source of the new key's `kid`
 */
export async function rotateSigningKey(
  store: TokenStore,
  now: number,
  rnd: RandomBytes = systemRandom,
): Promise<void> {
  for (const k of await store.listSigningKeys()) {
    if (k.retiredAt === null) await store.retireSigningKey(k.kid, now);
  }
  await newKey(store, now, rnd);
}
