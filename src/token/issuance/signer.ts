/**
 * The token service's Ed25519 signing keys and JWT minting (EdDSA, `kid` in the header): keys
 * made and published as JWKs with jose, tokens signed by hand (JWS compact serialization) with node:crypto.
 * The first start generates a key and persists it in the store; rotation retires the current
 * key and the JWKS keeps publishing the previous one so tokens signed before a rotation still
 * verify until they expire. With a {@link SigningKeyCipher} (SVC_SIGNING_KEY_SECRET) new keys
 * are stored encrypted and a rotation re-encrypts the older ones; keys stored in plain text
 * before a secret was set keep working (key_cipher.ts).
 * @module
 */
import { Buffer } from "node:buffer";
import { createPrivateKey, sign as ed25519Sign } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { newId, type RandomBytes, systemRandom } from "../access/mod.ts";
import { openPrivateJwk, sealedKeyOf, type SigningKeyCipher } from "./key_cipher.ts";
import type { SigningKeyRecord, TokenStore } from "../store/mod.ts";

/** A loaded key ring: the current private key plus the public JWKs to publish. */
export interface KeyRing {
  readonly kid: string;
  /** Sign a JWT payload (claims without iat/exp, which are passed in). */
  sign(payload: Record<string, unknown>, iatSeconds: number, expSeconds: number): Promise<string>;
  /** `{ keys: [...] }` for `/.well-known/jwks.json`: the current and the previous key. */
  jwks(): { keys: JWK[] };
}

/**
 * Where the signing keys are kept and how: the store, the random source of a new key's `kid`
 * and the cipher that seals new keys (SVC_SIGNING_KEY_SECRET; null or absent: plain text).
 */
export interface SigningKeyPlace {
  readonly store: TokenStore;
  /** Default: the system's random source. */
  readonly rnd?: RandomBytes | undefined;
  readonly cipher?: SigningKeyCipher | null | undefined;
}

async function newKey(place: SigningKeyPlace, now: number): Promise<void> {
  const { store, cipher } = place;
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { extractable: true });
  const priv = await exportJWK(privateKey);
  const pub = await exportJWK(publicKey);
  const kid = newId("ed", place.rnd ?? systemRandom).replace("_", "-");
  const privateJwk = JSON.stringify({ ...priv, kid, alg: "EdDSA" });
  await store.saveSigningKey({
    kid,
    privateJwk: cipher ? await cipher.seal(kid, privateJwk) : privateJwk,
    publicJwk: JSON.stringify({ ...pub, kid, alg: "EdDSA", use: "sig" }),
    createdAt: now,
    retiredAt: null,
  });
}

/**
 * Load the current signing key, generating and persisting one on first start (encrypted when a
 * cipher is given).
 * @param place the store, the random source of a new key's `kid` and the cipher (or none:
 *   plain text)
 * @param now epoch ms
 * @returns the key ring
 * @throws Error when the current key is encrypted and `cipher` is null or holds another secret,
 *   or its ciphertext was altered (the messages name the key and the secrets' fingerprints)
 */
export async function loadKeyRing(place: SigningKeyPlace, now: number): Promise<KeyRing> {
  const { store, cipher = null } = place;
  let keys = await store.listSigningKeys();
  if (!keys.some((k) => k.retiredAt === null)) {
    await newKey(place, now);
    keys = await store.listSigningKeys();
  }
  // non-null: a current key exists: made above when there was none
  const current = keys.filter((k) => k.retiredAt === null).at(-1)!;
  const previous = keys.filter((k) => k.retiredAt !== null).sort((a, b) =>
    (b.retiredAt ?? 0) - (a.retiredAt ?? 0)
  ).slice(0, 1);
  // JWS compact serialization (RFC 7515 § 7.1) with node:crypto's synchronous Ed25519, measured
  // about twice the rate of the asynchronous WebCrypto signing jose uses; tokens are verified
  // with jose (tests check both agree).
  const jwk = await openPrivateJwk(current.kid, current.privateJwk, cipher);
  const privateKey = createPrivateKey({ key: JSON.parse(jwk), format: "jwk" });
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
 * Rotate: retire the current key and create a new one; with a cipher the new key is stored
 * encrypted and the older keys are re-encrypted ({@link encryptSigningKeys}). Reload the key
 * ring afterwards.
 * @param place the store, the random source of the new key's `kid` and the cipher (or none: plain
 *   text)
 * @param now epoch ms
 * @throws Error when an older key cannot be decrypted with the configured secrets
 */
export async function rotateSigningKey(place: SigningKeyPlace, now: number): Promise<void> {
  const { store, cipher } = place;
  for (const k of await store.listSigningKeys()) {
    if (k.retiredAt === null) await store.retireSigningKey(k.kid, now);
  }
  await newKey(place, now);
  if (cipher) await encryptSigningKeys(store, cipher);
}

/** How a signing key is stored. */
export type KeyAtRest = "plaintext" | "encrypted" | "previous-secret" | "other-secret";

/** A signing key as the admin API and `token-service encrypt-keys` show it (no key material). */
export interface SigningKeyView {
  readonly kid: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601, or null for the current key. */
  readonly retiredAt: string | null;
  /** plaintext; encrypted (with the current secret); previous-secret; other-secret (none of
   * the configured secrets: it cannot be read here). */
  readonly atRest: KeyAtRest;
  /** Fingerprint of the secret it is encrypted with, or null in plain text. */
  readonly secretFingerprint: string | null;
}

/**
 * How each key is stored.
 * @param keys the stored keys
 * @param cipher the configured cipher, or null
 * @returns one view per key, oldest first
 */
export function signingKeyViews(
  keys: readonly SigningKeyRecord[],
  cipher: SigningKeyCipher | null,
): SigningKeyView[] {
  return keys.map((k) => {
    const enc = sealedKeyOf(k.privateJwk);
    const atRest: KeyAtRest = enc === null
      ? "plaintext"
      : enc.sid === cipher?.fingerprint
      ? "encrypted"
      : cipher?.previous.includes(enc.sid)
      ? "previous-secret"
      : "other-secret";
    return {
      kid: k.kid,
      createdAt: new Date(k.createdAt).toISOString(),
      retiredAt: k.retiredAt === null ? null : new Date(k.retiredAt).toISOString(),
      atRest,
      secretFingerprint: enc?.sid ?? null,
    };
  });
}

/**
 * Re-encrypt every signing key that is not encrypted with the current secret: plain-text keys
 * and keys of a previous secret. Idempotent; a key changed meanwhile by another instance is
 * left as that instance wrote it.
 * @param store the token store
 * @param cipher the current (and previous) secrets
 * @returns the keys afterwards, with how each is stored
 * @throws Error when a key is encrypted with a secret that is not configured (nothing after it
 *   is changed; keys before it stay re-encrypted, which is harmless)
 */
export async function encryptSigningKeys(
  store: TokenStore,
  cipher: SigningKeyCipher,
): Promise<SigningKeyView[]> {
  for (const k of await store.listSigningKeys()) {
    if (sealedKeyOf(k.privateJwk)?.sid === cipher.fingerprint) continue;
    const jwk = await cipher.open(k.kid, k.privateJwk);
    await store.replaceSigningKeyPrivate(k.kid, k.privateJwk, await cipher.seal(k.kid, jwk));
  }
  return signingKeyViews(await store.listSigningKeys(), cipher);
}
