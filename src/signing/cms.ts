/**
 * Detached CMS/PKCS#7 SignedData, the signature form the NRA expects in `base64EncodedPkcs7`
 * (docs/nra-api.md §5): SHA-256, one SignerInfo identified by issuer and serial number,
 * signed attributes contentType, signingTime, messageDigest and ESS signingCertificateV2, the
 * signer certificate in `certificates`, no encapsulated content. The private key never leaves its
 * store: the DER of the signed attributes goes to the signer's `sign()` (a KeyStore).
 * @module
 */

import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { AppError, isAppError } from "../contract/mod.ts";
import { toArrayBuffer } from "./bytes.ts";
import { keyAlgorithmOf, parseCertificate, type ParsedCertificate } from "./cert_info.ts";
import { buildSignedAttributes, OID } from "./cms_attributes.ts";
import { ecdsaDerToRaw, isDerEcdsaSignature } from "./ecdsa_signature.ts";
import type { CertificateInfo, Clock, KeyAlgorithm, KeyStore } from "./keystore.ts";

/** What {@link signDetached} needs from a signer. */
export interface CmsSigner {
  /** Signer certificate, DER. */
  readonly certificate: Uint8Array;
  /**
   * Signs `toBeSigned` with SHA-256 (RSA PKCS#1 v1.5 bytes, or DER ECDSA-Sig-Value).
   *
   * @param toBeSigned the DER of the signed attributes
   * @returns the signature
   */
  sign(toBeSigned: Uint8Array): Promise<Uint8Array>;
}

/** Options of {@link signDetached}. */
export interface SignDetachedOptions {
  /** Clock for signingTime (default: system time). */
  readonly clock?: Clock;
  /** Verify the signature with the certificate's public key before returning (default true). */
  readonly verify?: boolean;
}

const CURVES: Partial<Record<KeyAlgorithm, [string, number]>> = {
  "EC-P256": ["P-256", 32],
  "EC-P384": ["P-384", 48],
  "EC-P521": ["P-521", 66],
};

/** Parsed signer certificates and their public keys, per DER buffer (public data only). */
interface SignerEntry {
  parsed: ParsedCertificate;
  alg: KeyAlgorithm;
  key?: CryptoKey;
}
const PARSED = new WeakMap<Uint8Array, SignerEntry>();

function signerCertificate(der: Uint8Array): SignerEntry {
  let hit = PARSED.get(der);
  if (!hit) {
    const parsed = parseCertificate(der);
    hit = { parsed, alg: keyAlgorithmOf(parsed) };
    PARSED.set(der, hit);
  }
  return hit;
}

async function verifyWithCertificate(
  entry: SignerEntry,
  tbs: Uint8Array,
  sig: Uint8Array,
): Promise<boolean> {
  const spki = entry.parsed.cert.subjectPublicKeyInfo.toSchema().toBER();
  if (entry.alg === "RSA") {
    const alg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    entry.key ??= await crypto.subtle.importKey("spki", spki, alg, false, ["verify"]);
    return crypto.subtle.verify(alg, entry.key, toArrayBuffer(sig), toArrayBuffer(tbs));
  }
  // non-null: signCms refuses an UNKNOWN key before it verifies, RSA returned above, and CURVES has
  // the three EC algorithms
  const [namedCurve, half] = CURVES[entry.alg]!;
  entry.key ??= await crypto.subtle.importKey("spki", spki, { name: "ECDSA", namedCurve }, false, [
    "verify",
  ]);
  const raw = ecdsaDerToRaw(sig, half);
  const alg = { name: "ECDSA", hash: "SHA-256" };
  return crypto.subtle.verify(alg, entry.key, toArrayBuffer(raw), toArrayBuffer(tbs));
}

/**
 * Produces a detached CMS SignedData (DER) over `data`.
 *
 * @param data the exact bytes that will be sent (the raw file, not its Base64)
 * @param signer the certificate and a signing function (usually {@link keyStoreSigner})
 * @param options clock for signingTime; self-verification switch
 * @returns DER-encoded ContentInfo(SignedData)
 * @throws AppError SIGNING_FAILED (unsupported key, malformed or non-verifying signature, encoding
 *   failure), CERTIFICATE_INVALID (unparsable certificate), and the signer's own codes
 *   (PIN_INCORRECT, PIN_LOCKED, KEYSTORE_UNAVAILABLE…) unchanged
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * // The signer is usually keyStoreSigner(store, cert, pin) over the sender's token or PKCS#12
 * // file; here a throw-away key and its self-signed certificate.
 * import "reflect-metadata"; // @peculiar/x509 needs it loaded first
 * import { X509CertificateGenerator } from "@peculiar/x509";
 * const alg = {
 *   name: "RSASSA-PKCS1-v1_5",
 *   hash: "SHA-256",
 *   publicExponent: new Uint8Array([1, 0, 1]),
 *   modulusLength: 2048,
 * };
 * const keys = await crypto.subtle.generateKey(alg, false, ["sign", "verify"]);
 * const cert = await X509CertificateGenerator.createSelfSigned({
 *   name: "CN=Иван Петров",
 *   keys,
 *   signingAlgorithm: alg,
 * });
 * const signer = {
 *   certificate: new Uint8Array(cert.rawData),
 *   sign: async (tbs: Uint8Array) =>
 *     new Uint8Array(await crypto.subtle.sign(alg, keys.privateKey, tbs.slice())),
 * };
 * const fileBytes = new TextEncoder().encode("the declaration's bytes");
 * const p7s = await signDetached(fileBytes, signer);
 * const base64EncodedPkcs7 = p7s.toBase64(); // what the portal's submit body carries
 * deepEqual((await verifyDetached(p7s, fileBytes)).certificate, signer.certificate);
 * console.log(base64EncodedPkcs7.length);
 * ```
 */
export async function signDetached(
  data: Uint8Array,
  signer: CmsSigner,
  options: SignDetachedOptions = {},
): Promise<Uint8Array> {
  const entry = signerCertificate(signer.certificate);
  const cert = entry.parsed.cert;
  const alg = entry.alg;
  if (alg === "UNKNOWN") {
    throw new AppError("SIGNING_FAILED", "The certificate's key algorithm is not RSA or ECDSA");
  }
  try {
    const when = (options.clock ?? (() => new Date()))();
    const attrs = await buildSignedAttributes(data, cert, signer.certificate, when);
    const signature = await signer.sign(attrs.toBeSigned);
    if (alg !== "RSA" && !isDerEcdsaSignature(signature)) {
      throw new AppError(
        "SIGNING_FAILED",
        "The key store returned an ECDSA signature that is not DER",
      );
    }
    if (
      (options.verify ?? true) &&
      !(await verifyWithCertificate(entry, attrs.toBeSigned, signature))
    ) {
      throw new AppError(
        "SIGNING_FAILED",
        "The signature does not verify with the certificate (key and certificate differ)",
      );
    }
    const signerInfo = new pkijs.SignerInfo({
      version: 1,
      sid: new pkijs.IssuerAndSerialNumber({
        issuer: cert.issuer,
        serialNumber: cert.serialNumber,
      }),
      digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
      signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: attrs.attributes }),
      signatureAlgorithm: alg === "RSA"
        ? new pkijs.AlgorithmIdentifier({
          algorithmId: OID.rsaEncryption,
          algorithmParams: new asn1js.Null(),
        })
        : new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSha256 }),
      // asn1js 3.0.6 (import map) and 3.1.0 (pkijs) differ only in types here.
      signature: new asn1js.OctetString({
        valueHex: toArrayBuffer(signature),
      }) as unknown as pkijs.SignerInfo["signature"],
    });
    const signed = new pkijs.SignedData({
      version: 1,
      digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
      certificates: [cert],
      signerInfos: [signerInfo],
    });
    const ci = new pkijs.ContentInfo({
      contentType: OID.signedData,
      content: signed.toSchema(true),
    });
    return new Uint8Array(ci.toSchema().toBER());
  } catch (e) {
    if (isAppError(e)) throw e;
    throw new AppError("SIGNING_FAILED", "The CMS signature could not be produced", {}, e);
  }
}

/**
 * Adapts a key store certificate to a {@link CmsSigner}. The PIN lives only as long as the
 * returned object (create it per signing step; do not keep it).
 *
 * @param store the key store
 * @param cert a certificate from `store.listCertificates()`
 * @param pin the PIN or file password (one login attempt per signature)
 * @returns the signer
 * @throws never (errors come from `sign`)
 */
export function keyStoreSigner(store: KeyStore, cert: CertificateInfo, pin?: string): CmsSigner {
  return { certificate: cert.der, sign: (tbs) => store.sign(cert.id, tbs, pin) };
}

/**
 * Verifies a detached CMS SignedData over `data` the way a receiver would: parses the DER,
 * recomputes the messageDigest and checks the signature over the signed attributes with the
 * certificate inside (pkijs). The chain, revocation and trusted list are NOT checked.
 *
 * @param p7s DER-encoded ContentInfo(SignedData), as {@link signDetached} returns it
 * @param data the exact bytes that were signed
 * @returns the signer certificate (DER) carried in the signature
 * @throws AppError SIGNING_FAILED when the bytes are not a SignedData or it does not verify
 * @example
 * ```ts
 * import { rejects } from "node:assert/strict";
 * // A signature made by signDetached: `const { certificate } = await verifyDetached(p7s, fileBytes)`.
 * // Bytes that are not one are refused:
 * const notASignature = new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00]);
 * await rejects(verifyDetached(notASignature, new Uint8Array()), { code: "SIGNING_FAILED" });
 * ```
 */
export async function verifyDetached(
  p7s: Uint8Array,
  data: Uint8Array,
): Promise<{ certificate: Uint8Array }> {
  let ok = false;
  let certificate: Uint8Array | undefined;
  try {
    const ci = pkijs.ContentInfo.fromBER(toArrayBuffer(p7s));
    if (ci.contentType === OID.signedData) {
      const sd = new pkijs.SignedData({ schema: ci.content });
      const first = sd.certificates?.[0];
      if (first instanceof pkijs.Certificate) {
        certificate = new Uint8Array(first.toSchema().toBER());
      }
      ok = await sd.verify({ signer: 0, data: toArrayBuffer(data), checkChain: false });
    }
  } catch (e) {
    throw new AppError("SIGNING_FAILED", "The signature could not be verified", {}, e);
  }
  if (!ok || !certificate) {
    throw new AppError("SIGNING_FAILED", "The signature does not verify over the signed data");
  }
  return { certificate };
}
