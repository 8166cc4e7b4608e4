/**
 * The token service's signing keys at rest (docs/token-service.md § Signing
 * keys at rest). With a secret configured (SVC_SIGNING_KEY_SECRET, read by `src/cli/` and
 * injected here), a private Ed25519 JWK is stored as its public members plus `enc`:
 *
 * ```json
 * { "kty": "OKP", "crv": "Ed25519", "x": "…", "kid": "ed-…", "alg": "EdDSA",
 *   "enc": { "v": 1, "alg": "A256GCM", "kdf": "HKDF-SHA256", "sid": "<16 hex>",
 *            "iv": "<12 bytes, base64url>", "ct": "<ciphertext and tag, base64url>" } }
 * ```
 *
 * `ct` is AES-256-GCM over the whole private JWK (JSON, with `d`), the key derived from the
 * secret by HKDF-SHA256, the additional data binding it to its `kid` (a ciphertext moved to
 * another row does not open). `sid` is the secret's fingerprint (HKDF output of its own, not
 * the key): it tells "wrong secret" apart from "altered data" and picks the previous secret
 * while the secret is being changed. A stored JWK with `d` (written before a secret was set) is
 * read as it is, until it is re-encrypted (rotation, `token-service encrypt-keys`,
 * `POST /admin/v1/signing-keys/encrypt`).
 * @module
 */
import { Buffer } from "node:buffer";
import { type RandomBytes, systemRandom } from "../access/mod.ts";
import { UserError } from "../../user_error.ts";

/** Shortest secret accepted, characters (32 random bytes in base64 are 44). */
export const MIN_SIGNING_KEY_SECRET_LENGTH = 32;

/** The `enc` member of a stored private JWK. */
export interface SealedKey {
  readonly v: 1;
  readonly alg: "A256GCM";
  readonly kdf: "HKDF-SHA256";
  /** Fingerprint of the secret (16 hex digits). */
  readonly sid: string;
  /** AES-GCM nonce, 12 bytes, base64url. */
  readonly iv: string;
  /** Ciphertext followed by the 16-byte tag, base64url. */
  readonly ct: string;
}

/** Encrypts and decrypts private signing keys with the configured secret(s). */
export interface SigningKeyCipher {
  /** Fingerprint of the current secret (16 hex digits; safe to log). */
  readonly fingerprint: string;
  /** Fingerprints of the previous secrets (read only, never used to encrypt). */
  readonly previous: readonly string[];
  /**
   * Encrypt a private JWK for storage.
   * @param kid the key id (bound as additional data)
   * @param privateJwk the JWK as JSON text, with `d`
   * @returns the stored text: public members and `enc`, no `d`
   */
  seal(kid: string, privateJwk: string): Promise<string>;
  /**
   * Decrypt a stored JWK sealed with the current or a previous secret.
   * @throws Error naming the key and both fingerprints when no configured secret sealed it, or
   *   saying the data was altered when the tag does not verify
   */
  open(kid: string, stored: string): Promise<string>;
}

const te = new TextEncoder();
const SALT = te.encode("svc-filing/token-service/signing-keys/v1");
const b64u = (b: Uint8Array) => Buffer.from(b).toString("base64url");
const aad = (kid: string) => te.encode(`svc-filing signing key ${kid}`);

/** One secret's AES key and fingerprint. */
interface Derived {
  readonly key: CryptoKey;
  readonly sid: string;
}

async function derive(secret: string): Promise<Derived> {
  const ikm = await crypto.subtle.importKey("raw", te.encode(secret), "HKDF", false, [
    "deriveKey",
    "deriveBits",
  ]);
  const params = (info: string) => ({
    name: "HKDF",
    hash: "SHA-256",
    salt: SALT,
    info: te.encode(info),
  });
  const key = await crypto.subtle.deriveKey(
    params("aes-256-gcm key"),
    ikm,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  const fp = new Uint8Array(await crypto.subtle.deriveBits(params("fingerprint"), ikm, 64));
  return { key, sid: fp.toHex() };
}

/**
 * The `enc` member of a stored private JWK, or null for a plain-text one.
 * @param stored the `private_jwk` text
 * @returns the sealed envelope, or null when the JWK carries `d` in plain text
 * @throws Error when the text is not a JWK of either form
 */
export function sealedKeyOf(stored: string): SealedKey | null {
  let j: { d?: unknown; enc?: SealedKey };
  try {
    j = JSON.parse(stored);
  } catch {
    throw new UserError("A stored signing key is not JSON");
  }
  if (j.enc && typeof j.enc.sid === "string") return j.enc;
  if (typeof j.d === "string") return null;
  throw new UserError("A stored signing key has neither a private part nor its ciphertext");
}

/**
 * Build the cipher of the configured secrets.
 * @param secret the current secret (SVC_SIGNING_KEY_SECRET), at least 32 characters
 * @param previous earlier secrets still accepted for reading (SVC_SIGNING_KEY_SECRET_PREVIOUS)
 * @param random nonce source (default the system's)
 * @returns the cipher
 * @throws Error when a secret is shorter than {@link MIN_SIGNING_KEY_SECRET_LENGTH}
 */
export async function createSigningKeyCipher(
  secret: string,
  previous: readonly string[] = [],
  random: RandomBytes = systemRandom,
): Promise<SigningKeyCipher> {
  for (const s of [secret, ...previous]) {
    if (s.length < MIN_SIGNING_KEY_SECRET_LENGTH) {
      throw new UserError(
        `The signing key secret must be at least ${MIN_SIGNING_KEY_SECRET_LENGTH} characters`,
      );
    }
  }
  const current = await derive(secret);
  const older = await Promise.all(previous.map(derive));
  const known = [current, ...older];
  return {
    fingerprint: current.sid,
    previous: older.map((o) => o.sid),
    async seal(kid, privateJwk) {
      const jwk = JSON.parse(privateJwk) as Record<string, unknown>;
      const { d: _d, ...pub } = jwk;
      const iv = new Uint8Array(random(12));
      const ct = new Uint8Array(
        await crypto.subtle.encrypt(
          { name: "AES-GCM", iv, additionalData: aad(kid) },
          current.key,
          te.encode(privateJwk),
        ),
      );
      const enc: SealedKey = {
        v: 1,
        alg: "A256GCM",
        kdf: "HKDF-SHA256",
        sid: current.sid,
        iv: b64u(iv),
        ct: b64u(ct),
      };
      return JSON.stringify({ ...pub, enc });
    },
    async open(kid, stored) {
      const enc = sealedKeyOf(stored);
      if (enc === null) return stored;
      const by = known.find((k) => k.sid === enc.sid);
      if (!by) {
        throw new UserError(
          `The signing key secret does not open signing key ${kid}: it was encrypted with the ` +
            `secret of fingerprint ${enc.sid}, the configured secret's fingerprint is ` +
            `${current.sid}${
              older.length ? ` (previous: ${older.map((o) => o.sid).join(", ")})` : ""
            }`,
        );
      }
      try {
        const pt = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: Buffer.from(enc.iv, "base64url"), additionalData: aad(kid) },
          by.key,
          Buffer.from(enc.ct, "base64url"),
        );
        return new TextDecoder().decode(pt);
      } catch {
        throw new UserError(
          `Signing key ${kid} cannot be decrypted: its stored ciphertext was altered or copied ` +
            "from another key",
        );
      }
    },
  };
}

/**
 * The private JWK (JSON text with `d`) of a stored signing key.
 * @param kid the key id
 * @param stored the `private_jwk` text
 * @param cipher the configured cipher, or null when no secret is set
 * @returns the JWK text
 * @throws Error when the key is encrypted and no secret is set, or the secret does not open it
 */
export async function openPrivateJwk(
  kid: string,
  stored: string,
  cipher: SigningKeyCipher | null,
): Promise<string> {
  if (cipher) return await cipher.open(kid, stored);
  const enc = sealedKeyOf(stored);
  if (enc === null) return stored;
  throw new UserError(
    `Signing key ${kid} is encrypted at rest: set SVC_SIGNING_KEY_SECRET to the secret of ` +
      `fingerprint ${enc.sid}`,
  );
}
