/**
 * {@link KeyStore} over a PKCS#12 (PFX) file: pkijs parses the PFX, the integrity MAC is checked
 * with the file password (the "PIN"), bags are decrypted (PBES2/AES as OpenSSL 3 writes them,
 * or legacy 3DES), and the key is imported into WebCrypto as non-extractable for each signature.
 * Nothing decrypted outlives one call; the password is never stored.
 * @module
 */

import type * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { AppError, isAppError } from "../contract/mod.ts";
import { digest, toArrayBuffer } from "./bytes.ts";
import { keyAlgorithmOf, parseCertificate, toCertificateInfo } from "./cert_info.ts";
import { ecdsaRawToDer } from "./ecdsa_signature.ts";
import type { CertificateInfo, KeyStore } from "./keystore.ts";
import { decryptPkcs12, verifyPkcs12Mac } from "./pkcs12_pbe.ts";

const BAG_KEY = "1.2.840.113549.1.12.10.1.1";
const BAG_SHROUDED_KEY = "1.2.840.113549.1.12.10.1.2";
const BAG_CERT = "1.2.840.113549.1.12.10.1.3";
const BAG_SAFE_CONTENTS = "1.2.840.113549.1.12.10.1.6";
const ATTR_LOCAL_KEY_ID = "1.2.840.113549.1.9.21";
const ATTR_FRIENDLY_NAME = "1.2.840.113549.1.9.20";

interface KeyEntry {
  localKeyId?: string | undefined;
  /** PKCS#8 PrivateKeyInfo DER; absent until decrypted. */
  pkcs8?: Uint8Array | undefined;
}
interface CertEntry {
  der: Uint8Array;
  localKeyId?: string | undefined;
  friendlyName?: string | undefined;
}
interface PfxContents {
  certs: CertEntry[];
  keys: KeyEntry[];
  /** true when a private key is stored unencrypted (then only the MAC checks the password). */
  plainKey: boolean;
}
/** What {@link readPfx} may skip once a store has learnt it (never secrets). */
interface ReadOptions {
  /** Check the integrity MAC (skipped after one successful check of this store's bytes). */
  checkMac: boolean;
  /** Skip EncryptedData safes (certificate bags) whose public contents are already known. */
  skipEncryptedSafes: boolean;
}

/** True when `b` is exactly one DER SEQUENCE (definite length covering all bytes). */
function isDerSequence(b: Uint8Array): boolean {
  const n = b[1];
  if (n === undefined || b[0] !== 0x30) return false;
  if (n < 0x80) return 2 + n === b.length;
  const k = n & 0x7f;
  if (k < 1 || k > 4 || b.length < 2 + k) return false;
  let len = 0;
  for (const x of b.subarray(2, 2 + k)) len = len * 256 + x;
  return 2 + k + len === b.length;
}

function bagAttr(bag: pkijs.SafeBag, oid: string): asn1js.AsnType | undefined {
  return bag.bagAttributes?.find((a) => a.type === oid)?.values[0];
}

function pinRequired(): AppError {
  return new AppError("PIN_INCORRECT", "The PKCS#12 file needs its password", {
    pinRequired: true,
  });
}

async function readBags(bags: pkijs.SafeBag[], pw: string | undefined, out: PfxContents) {
  for (const bag of bags) {
    const idAttr = bagAttr(bag, ATTR_LOCAL_KEY_ID) as asn1js.OctetString | undefined;
    const localKeyId = idAttr ? idAttr.valueBlock.valueHexView.toHex() : undefined;
    if (bag.bagId === BAG_CERT) {
      const cb = bag.bagValue as pkijs.CertBag;
      const der = new Uint8Array(
        (cb.certValue as unknown as asn1js.OctetString).valueBlock.valueHexView,
      );
      const fn = bagAttr(bag, ATTR_FRIENDLY_NAME) as asn1js.BmpString | undefined;
      out.certs.push({ der, localKeyId, friendlyName: fn?.valueBlock.value });
    } else if (bag.bagId === BAG_KEY) {
      const pki = bag.bagValue as pkijs.PrivateKeyInfo;
      out.keys.push({ localKeyId, pkcs8: new Uint8Array(pki.toSchema().toBER()) });
      out.plainKey = true;
    } else if (bag.bagId === BAG_SHROUDED_KEY) {
      const sk = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
      const pkcs8 = pw === undefined ? undefined : await decryptPkcs12(
        sk.encryptionAlgorithm,
        sk.encryptedData.valueBlock.valueHexView,
        pw,
      );
      if (pkcs8 && !isDerSequence(pkcs8)) {
        // Only reachable without a MAC: a wrong password that happened to pass the padding check.
        throw new AppError("PIN_INCORRECT", "The PKCS#12 password is incorrect");
      }
      out.keys.push({ localKeyId, pkcs8 });
    } else if (bag.bagId === BAG_SAFE_CONTENTS) {
      await readBags((bag.bagValue as pkijs.SafeContents).safeBags, pw, out);
    }
  }
}

/**
 * Parses a PFX and decrypts what `password` allows (everything when given; the unencrypted
 * parts otherwise), checking the integrity MAC when a password is given.
 */
async function readPfx(
  data: Uint8Array,
  password: string | undefined,
  opts: ReadOptions = { checkMac: true, skipEncryptedSafes: false },
): Promise<PfxContents> {
  let pfx: pkijs.PFX;
  try {
    pfx = pkijs.PFX.fromBER(toArrayBuffer(data));
  } catch (e) {
    throw new AppError("KEYSTORE_UNAVAILABLE", "The file is not a PKCS#12 (PFX) file", {}, e);
  }
  if (pfx.authSafe.contentType !== pkijs.id_ContentType_Data) {
    throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#12 file uses public-key integrity mode");
  }
  const authSafeContent = new Uint8Array((pfx.authSafe.content as asn1js.OctetString).getValue());
  if (password !== undefined && pfx.macData && opts.checkMac) {
    verifyPkcs12Mac(pfx.macData, authSafeContent, password);
  }
  try {
    await pfx.parseInternalValues({ password: new ArrayBuffer(0), checkIntegrity: false });
  } catch (e) {
    throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#12 file cannot be read", {}, e);
  }
  const out: PfxContents = { certs: [], keys: [], plainKey: false };
  const safes = pfx.parsedValue?.authenticatedSafe?.safeContents ?? [];
  for (const ci of safes) {
    let plain: Uint8Array;
    if (ci.contentType === pkijs.id_ContentType_Data) {
      plain = new Uint8Array((ci.content as asn1js.OctetString).getValue());
    } else if (ci.contentType === pkijs.id_ContentType_EncryptedData) {
      if (password === undefined || opts.skipEncryptedSafes) continue;
      const eci = new pkijs.EncryptedData({ schema: ci.content }).encryptedContentInfo;
      plain = await decryptPkcs12(
        eci.contentEncryptionAlgorithm,
        new Uint8Array(eci.getEncryptedContent()),
        password,
      );
    } else continue;
    try {
      await readBags(pkijs.SafeContents.fromBER(toArrayBuffer(plain)).safeBags, password, out);
    } catch (e) {
      if (isAppError(e)) throw e;
      throw new AppError("PIN_INCORRECT", "The PKCS#12 password is incorrect", undefined, e);
    }
  }
  return out;
}

function isCa(der: Uint8Array): boolean {
  const ext = parseCertificate(der).cert.extensions?.find((x) => x.extnID === "2.5.29.19");
  return (ext?.parsedValue as pkijs.BasicConstraints | undefined)?.cA === true;
}

/** Certificates that have a private key in the file (signers), in file order. */
function signerCerts(c: PfxContents): CertEntry[] {
  const ids = new Set(c.keys.map((k) => k.localKeyId).filter((x) => x !== undefined));
  const byId = c.certs.filter((x) => x.localKeyId !== undefined && ids.has(x.localKeyId));
  if (byId.length > 0 || c.keys.length === 0) return byId;
  return c.certs.filter((x) => !isCa(x.der)).slice(0, c.keys.length);
}

async function certId(der: Uint8Array): Promise<string> {
  return `sha256:${(await digest(der)).toHex()}`;
}

/**
 * Whether a PKCS#12 file keeps a private key unencrypted (a plain keyBag; then only the MAC
 * checks the password). Needs no password: encrypted safes are skipped.
 * @param data the PFX file bytes
 * @returns true when a private key is readable without the password
 * @throws AppError KEYSTORE_UNAVAILABLE when the bytes are not a readable PKCS#12 file
 */
export async function pkcs12HasPlainKey(data: Uint8Array): Promise<boolean> {
  return (await readPfx(data, undefined, { checkMac: false, skipEncryptedSafes: true })).plainKey;
}

/** Options of {@link openPkcs12KeyStore}. */
export interface Pkcs12Options {
  /** Display name of the file (e.g. its base name), used in messages; never the password. */
  readonly name?: string;
}

/**
 * Opens a PKCS#12 key store over the bytes of a PFX file. The file password acts as the PIN.
 *
 * @param data the PFX file bytes
 * @param options display name for messages
 * @returns a key store; `listCertificates(pin)` needs the password only when the certificate bag
 *   is encrypted (the OpenSSL default), `sign(certId, data, pin)` always needs it
 * @throws never (errors surface from the store's methods: KEYSTORE_UNAVAILABLE, PIN_INCORRECT,
 *   CERTIFICATE_INVALID, SIGNING_FAILED)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * // A test-only file (RSA 2048, self-signed, password 1234); a sender's own .p12/.pfx in use
 * const store = openPkcs12KeyStore(await Deno.readFile("fixtures/signing/example-sender.p12"));
 * const [cert] = await store.listCertificates("1234");
 * const sig = await store.sign(cert!.id, new TextEncoder().encode("hi"), "1234");
 * equal(sig.length, 256); // RSA PKCS#1 v1.5 with a 2048-bit key
 * ```
 */
export function openPkcs12KeyStore(data: Uint8Array, options: Pkcs12Options = {}): KeyStore {
  let bytes: Uint8Array | undefined = data.slice();
  const name = options.name ?? "PKCS#12 file";
  const alive = (): Uint8Array => {
    if (!bytes) throw new AppError("KEYSTORE_UNAVAILABLE", `${name} is closed`);
    return bytes;
  };
  // Learnt from the file, never secret: whether its MAC was verified once (the bytes are this
  // store's private copy, so integrity cannot change; a wrong password is still caught on every
  // call by decrypting the shrouded key), and its public certificate bags.
  let macVerified = false;
  let publicCerts: CertEntry[] | undefined;
  const read = async (pin: string | undefined, needCerts: boolean): Promise<PfxContents> => {
    const skip = !needCerts && publicCerts !== undefined;
    let c = await readPfx(alive(), pin, { checkMac: !macVerified, skipEncryptedSafes: skip });
    if (skip && c.keys.length === 0) {
      c = await readPfx(alive(), pin, { checkMac: !macVerified, skipEncryptedSafes: false });
    } else if (skip) {
      // non-null: skip is true only when publicCerts is set
      c.certs = publicCerts!;
    }
    if (pin !== undefined) {
      macVerified = !c.plainKey;
      if (c.certs.length > 0) publicCerts = c.certs;
    }
    return c;
  };
  return {
    kind: "pkcs12",
    async listCertificates(pin?: string): Promise<CertificateInfo[]> {
      const contents = await read(pin, true);
      if (contents.certs.length === 0 && pin === undefined) throw pinRequired();
      const out: CertificateInfo[] = [];
      for (const c of signerCerts(contents)) {
        out.push(toCertificateInfo(c.der, await certId(c.der), c.friendlyName));
      }
      return out;
    },
    async sign(id: string, tbs: Uint8Array, pin?: string): Promise<Uint8Array> {
      if (pin === undefined) throw pinRequired();
      const contents = await read(pin, false);
      const certs = signerCerts(contents);
      let index = -1;
      for (const [i, c] of certs.entries()) if (await certId(c.der) === id) index = i;
      const cert = certs[index];
      if (cert === undefined) {
        throw new AppError("CERTIFICATE_INVALID", `${name} holds no signing certificate ${id}`);
      }
      const key = cert.localKeyId !== undefined
        ? contents.keys.find((k) => k.localKeyId === cert.localKeyId)
        : contents.keys[index];
      if (!key?.pkcs8) {
        throw new AppError("CERTIFICATE_INVALID", `${name} holds no private key for ${id}`);
      }
      try {
        return await signWithPkcs8(key.pkcs8, cert.der, tbs, name);
      } finally {
        for (const k of contents.keys) k.pkcs8?.fill(0);
      }
    },
    close(): Promise<void> {
      bytes?.fill(0);
      bytes = undefined;
      return Promise.resolve();
    },
  };
}

/**
 * Sign with a PKCS#8 private key (wiped afterwards): RSASSA-PKCS1-v1_5 or ECDSA with SHA-256, by
 * the certificate's key algorithm.
 * @returns the signature (DER ECDSA-Sig-Value for ECDSA)
 * @throws AppError SIGNING_FAILED (unsupported algorithm, failed import or signature)
 */
async function signWithPkcs8(
  pkcs8: Uint8Array,
  certDer: Uint8Array,
  tbs: Uint8Array,
  name: string,
): Promise<Uint8Array> {
  const alg = keyAlgorithmOf(parseCertificate(certDer));
  const params = alg === "RSA"
    ? { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }
    : alg === "EC-P256" || alg === "EC-P384" || alg === "EC-P521"
    ? { name: "ECDSA", namedCurve: `P-${alg.slice(4)}` }
    : undefined;
  if (!params) throw new AppError("SIGNING_FAILED", `Unsupported key algorithm in ${name}`);
  try {
    const k = await crypto.subtle.importKey("pkcs8", toArrayBuffer(pkcs8), params, false, [
      "sign",
    ]);
    pkcs8.fill(0);
    const sig = new Uint8Array(
      await crypto.subtle.sign({ name: params.name, hash: "SHA-256" }, k, toArrayBuffer(tbs)),
    );
    return params.name === "ECDSA" ? ecdsaRawToDer(sig) : sig;
  } catch (e) {
    if (isAppError(e)) throw e;
    throw new AppError("SIGNING_FAILED", `Signing with the key from ${name} failed`, {}, e);
  }
}
