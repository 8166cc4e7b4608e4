/**
 * Decryption for the PKCS#12 bags and shrouded keys a PFX file holds: PBES2 (PBKDF2 + AES, the
 * OpenSSL 3 default) through pkijs, and the legacy PKCS#12 PBE scheme
 * schemes of RFC 7292 App. C implemented here: `pbeWithSHAAnd3-KeyTripleDES-CBC` (older Windows
 * exports; `openssl pkcs12 -legacy` key bags) with `node:crypto` 3DES, and
 * `pbeWithSHAAnd40BitRC2-CBC` / `…128BitRC2-CBC` (OpenSSL 1.x and `-legacy` certificate bags)
 * with the RC2 in rc2.ts, since Deno's `node:crypto` has no RC2.
 * @module
 */

import * as nodeCrypto from "node:crypto";
import { createDecipheriv, createHash, createHmac, timingSafeEqual } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { AppError } from "../contract/mod.ts";
import { toArrayBuffer } from "./bytes.ts";
import { rc2CbcDecrypt } from "./rc2.ts";

const PBES2 = "1.2.840.113549.1.5.13";
const PBE_SHA1_3DES = "1.2.840.113549.1.12.1.3";
const PBE_SHA1_RC2_128 = "1.2.840.113549.1.12.1.5";
const PBE_SHA1_RC2_40 = "1.2.840.113549.1.12.1.6";

/** Digest sizes (u) and block sizes (v) for the PKCS#12 KDF, by node:crypto hash name. */
const KDF_HASHES: Record<string, [number, number]> = {
  sha1: [20, 64],
  sha256: [32, 64],
  sha384: [48, 128],
  sha512: [64, 128],
};

/** One-shot digest: `node:crypto` `hash()` (a single op, ~4× cheaper than createHash here). */
function iterate(alg: string, data: Uint8Array): Uint8Array {
  return oneShot ? oneShot(alg, data, "buffer") : createHash(alg).update(data).digest();
}
const oneShot = (nodeCrypto as unknown as {
  hash?: (alg: string, data: Uint8Array, enc: "buffer") => Uint8Array;
}).hash;

/**
 * PKCS#12 key derivation (RFC 7292 Appendix B.2).
 *
 * @param password the password (encoded as BMPString + two zero bytes, as B.1 requires)
 * @param salt salt bytes
 * @param iterations iteration count
 * @param id 1 = key material, 2 = IV, 3 = MAC key
 * @param length output length in bytes
 * @param hash node:crypto hash name: sha1 (default), sha256, sha384, sha512
 * @returns derived bytes
 * @throws TypeError for an unknown hash
 */
export function pkcs12Kdf(
  password: string,
  salt: Uint8Array,
  iterations: number,
  id: 1 | 2 | 3,
  length: number,
  hash = "sha1",
): Uint8Array {
  const sizes = KDF_HASHES[hash];
  if (!sizes) throw new TypeError(`Unsupported PKCS#12 KDF hash ${hash}`);
  const [u, v] = sizes;
  const pw = new Uint8Array(password.length * 2 + 2);
  for (let i = 0; i < password.length; i++) {
    pw[i * 2] = password.charCodeAt(i) >> 8;
    pw[i * 2 + 1] = password.charCodeAt(i) & 0xff;
  }
  const fill = (src: Uint8Array) => {
    const out = new Uint8Array(src.length === 0 ? 0 : v * Math.ceil(src.length / v));
    for (let i = 0; i < out.length; i++) out[i] = src[i % src.length]!; // non-null: out is empty when src is
    return out;
  };
  const I = new Uint8Array([...fill(salt), ...fill(pw)]);
  pw.fill(0);
  const D = new Uint8Array(v).fill(id);
  const out = new Uint8Array(length);
  for (let done = 0; done < length; done += u) {
    let a: Uint8Array = createHash(hash).update(D).update(I).digest();
    for (let j = 1; j < iterations; j++) a = iterate(hash, a);
    out.set(a.subarray(0, Math.min(u, length - done)), done);
    const b = fill(a);
    for (let k = 0; k < I.length; k += v) {
      let carry = 1;
      for (let m = v - 1; m >= 0; m--) {
        carry += I[k + m]! + b[m]!; // non-null: I.length is a multiple of v, b.length ≥ v
        I[k + m] = carry & 0xff;
        carry >>= 8;
      }
    }
  }
  I.fill(0);
  return out;
}

/** Legacy PKCS#12 PBE schemes: key length and cipher (RFC 7292 App. C). */
const LEGACY: Record<string, { keyLength: number; rc2Bits?: number }> = {
  [PBE_SHA1_3DES]: { keyLength: 24 },
  [PBE_SHA1_RC2_128]: { keyLength: 16, rc2Bits: 128 },
  [PBE_SHA1_RC2_40]: { keyLength: 5, rc2Bits: 40 },
};

function legacyDecrypt(
  scheme: { keyLength: number; rc2Bits?: number },
  algorithm: pkijs.AlgorithmIdentifier,
  ciphertext: Uint8Array,
  password: string,
): Uint8Array {
  const params = algorithm.algorithmParams as asn1js.Sequence;
  const salt = (params.valueBlock.value[0] as asn1js.OctetString).valueBlock.valueHexView;
  const iterations = (params.valueBlock.value[1] as asn1js.Integer).valueBlock.valueDec;
  const key = pkcs12Kdf(password, salt, iterations, 1, scheme.keyLength);
  const iv = pkcs12Kdf(password, salt, iterations, 2, 8);
  try {
    if (scheme.rc2Bits) return rc2CbcDecrypt(key, scheme.rc2Bits, iv, ciphertext);
    const d = createDecipheriv("des-ede3-cbc", key, iv);
    return new Uint8Array([...d.update(ciphertext), ...d.final()]);
  } finally {
    key.fill(0);
  }
}

/**
 * Decrypts a PKCS#12 encrypted payload (an EncryptedData safe or a shrouded key bag).
 *
 * @param algorithm the content encryption algorithm identifier
 * @param ciphertext the encrypted bytes
 * @param password the file password (the "PIN")
 * @returns plaintext bytes
 * @throws AppError PIN_INCORRECT (decryption failed: wrong password), KEYSTORE_UNAVAILABLE
 *   (an encryption scheme this agent cannot decrypt, e.g. PBES2 with DES or an unknown cipher)
 */
export async function decryptPkcs12(
  algorithm: pkijs.AlgorithmIdentifier,
  ciphertext: Uint8Array,
  password: string,
): Promise<Uint8Array> {
  const oid = algorithm.algorithmId;
  try {
    const legacy = LEGACY[oid];
    if (legacy) return legacyDecrypt(legacy, algorithm, ciphertext, password);
    if (oid === PBES2) {
      const enc = new pkijs.EncryptedData({
        encryptedContentInfo: new pkijs.EncryptedContentInfo({
          contentType: pkijs.id_ContentType_Data,
          contentEncryptionAlgorithm: algorithm,
          encryptedContent: new asn1js.OctetString({
            valueHex: toArrayBuffer(ciphertext),
          }) as unknown as NonNullable<pkijs.EncryptedContentInfo["encryptedContent"]>,
        }),
      });
      const buf = new TextEncoder().encode(password);
      try {
        return new Uint8Array(await enc.decrypt({ password: toArrayBuffer(buf) }));
      } finally {
        buf.fill(0);
      }
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError("PIN_INCORRECT", "The PKCS#12 password is incorrect", undefined, e);
  }
  throw new AppError(
    "KEYSTORE_UNAVAILABLE",
    "The PKCS#12 file uses an unsupported encryption scheme",
    { scheme: oid },
  );
}

const MAC_HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};

/**
 * Checks the PFX integrity MAC (RFC 7292 §4, HMAC keyed by the PKCS#12 KDF) with the password.
 * A mismatch means a wrong password (or a damaged file; the two cannot be told apart).
 *
 * @param macData the PFX's MacData
 * @param content the authenticated safe's content octets
 * @param password the file password
 * @returns when the MAC matches
 * @throws AppError PIN_INCORRECT on mismatch; KEYSTORE_UNAVAILABLE for an unknown MAC digest
 */
export function verifyPkcs12Mac(
  macData: pkijs.MacData,
  content: Uint8Array,
  password: string,
): void {
  const hash = MAC_HASHES[macData.mac.digestAlgorithm.algorithmId];
  const size = hash === undefined ? undefined : KDF_HASHES[hash]?.[0];
  if (!hash || size === undefined) {
    throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#12 file uses an unsupported MAC", {
      algorithm: macData.mac.digestAlgorithm.algorithmId,
    });
  }
  const salt = macData.macSalt.valueBlock.valueHexView;
  const key = pkcs12Kdf(password, salt, macData.iterations ?? 1, 3, size, hash);
  const mac = createHmac(hash, key).update(content).digest();
  key.fill(0);
  const expected = macData.mac.digest.valueBlock.valueHexView;
  if (expected.length !== mac.length || !timingSafeEqual(mac, expected)) {
    throw new AppError("PIN_INCORRECT", "The PKCS#12 password is incorrect");
  }
}
