/**
 * {@link KeyStore} over the Windows certificate store (`CurrentUser\My`, and `LocalMachine\My`
 * where readable) through the Windows API (windows_crypt_api.ts; no PowerShell, no .NET).
 *
 * Listing: every certificate of `My` with a private key (CERT_KEY_PROV_INFO_PROP_ID), id
 * `windows:<location>/My/<SHA-1 thumbprint>`.
 *
 * Signing (SHA-256 computed here; the key signs the hash):
 * 1. `CryptAcquireCertificatePrivateKey` with CNG allowed. A CNG handle (key spec
 *    CERT_NCRYPT_KEY_SPEC) signs with `NCryptSignHash` (PKCS#1 v1.5 for RSA, r||s for EC → DER).
 * 2. Otherwise a CryptoAPI key: the key spec must be AT_KEYEXCHANGE or AT_SIGNATURE — when the
 *    handle's is neither (Wine 8 answers 3), the certificate's CRYPT_KEY_PROV_INFO says it, and
 *    when that is neither too (Wine 8: 3 again), the container is asked which key pair it holds
 *    (CryptGetUserKey); no key spec is assumed. `CryptCreateHash(CALG_SHA_256)` needs an
 *    AES-capable provider: a PROV_RSA_FULL handle answers NTE_BAD_ALGID, and the key's container
 *    is then reopened with PROV_RSA_AES. CryptoAPI's signature is little-endian; it is reversed.
 * The key's CSP/KSP (a smart card's minidriver) shows its own PIN dialog, so the `pin` argument
 * is ignored and never passed on. Windows' codes map to the product's errors (winerror.h,
 * scarderr.h).
 * @module
 */

import { AppError, type ErrorCode, isAppError } from "../../contract/mod.ts";
import { digest } from "../bytes.ts";
import { toCertificateInfo } from "../cert_info.ts";
import { ecdsaRawToDer } from "../ecdsa_signature.ts";
import type { CertificateInfo, KeyStore } from "../keystore.ts";
import {
  type AcquiredKey,
  AT_KEYEXCHANGE,
  AT_SIGNATURE,
  CERT_NCRYPT_KEY_SPEC,
  NTE_BAD_ALGID,
  PROV_RSA_AES,
  type RawCert,
  win32CryptOps,
  WinCallError,
  type WinCryptOps,
} from "./windows_crypt_api.ts";

/** A store location. */
export type WindowsStoreLocation = "CurrentUser" | "LocalMachine";

/** Options of {@link openWindowsCertStore}. */
export interface WindowsStoreOptions {
  /** The Windows calls (default: the real ones; tests inject their own). */
  readonly ops?: WinCryptOps;
  /** Locations listed, in order (default CurrentUser, then LocalMachine where readable). */
  readonly locations?: readonly WindowsStoreLocation[];
}

/** Windows codes (hex, upper case) → product codes; scarderr.h / winerror.h. */
const CODES: Record<string, [ErrorCode, string]> = {
  "8010006B": ["PIN_INCORRECT", "The smart card PIN is incorrect"], // SCARD_W_WRONG_CHV
  "8010006C": ["PIN_LOCKED", "The smart card PIN is locked"], // SCARD_W_CHV_BLOCKED
  "8010006E": ["KEYSTORE_UNAVAILABLE", "PIN entry was cancelled"], // SCARD_W_CANCELLED_BY_USER
  "800704C7": ["KEYSTORE_UNAVAILABLE", "The operation was cancelled"], // ERROR_CANCELLED
  "000004C7": ["KEYSTORE_UNAVAILABLE", "The operation was cancelled"], // ERROR_CANCELLED (Win32)
  "8010000C": ["KEYSTORE_UNAVAILABLE", "No smart card is inserted"], // SCARD_E_NO_SMARTCARD
  "80100069": ["KEYSTORE_UNAVAILABLE", "The smart card was removed"], // SCARD_W_REMOVED_CARD
  "8010001D": ["KEYSTORE_UNAVAILABLE", "The smart card service is not running"], // SCARD_E_NO_SERVICE
  "80090016": ["CERTIFICATE_INVALID", "The certificate has no usable private key"], // NTE_BAD_KEYSET
  "8009200B": ["CERTIFICATE_INVALID", "The certificate has no usable private key"], // CRYPT_E_NO_KEY_PROPERTY
  "80092004": ["CERTIFICATE_INVALID", "The certificate is not in the Windows store"], // CRYPT_E_NOT_FOUND
};

const hex8 = (n: number) => (n >>> 0).toString(16).toUpperCase().padStart(8, "0");

/**
 * Map a failed Windows call to the product's error.
 * @param e what was thrown (a {@link WinCallError} names the call and its code)
 * @param fallback the code for anything not in the table
 * @returns the AppError, with `{call, code}` in its details
 */
export function windowsError(
  e: unknown,
  fallback: "KEYSTORE_UNAVAILABLE" | "SIGNING_FAILED",
): AppError {
  if (isAppError(e)) return e;
  if (!(e instanceof WinCallError)) {
    return new AppError(fallback, "The Windows certificate store cannot be used", {}, e);
  }
  const code = hex8(e.code);
  const known = CODES[code];
  const d = { call: e.call, code: `0x${code}` };
  return known
    ? new AppError(known[0], known[1], d, e)
    : new AppError(fallback, `The Windows certificate store answered 0x${code} (${e.call})`, d, e);
}

const thumbprintOf = async (der: Uint8Array) => (await digest(der, "SHA-1")).toHex().toUpperCase();

/**
 * Which CryptoAPI key spec to sign with: the handle's when it is one, else the certificate's,
 * else the one key pair the container holds (AT_KEYEXCHANGE first). Wine 8 answers 3 for both
 * the handle and the certificate's CRYPT_KEY_PROV_INFO.
 * @param handleSpec what CryptAcquireCertificatePrivateKey answered
 * @param certSpec the certificate's CRYPT_KEY_PROV_INFO dwKeySpec (0 when absent)
 * @param held the key pairs the container holds (CryptGetUserKey), asked only when needed
 * @returns AT_KEYEXCHANGE or AT_SIGNATURE
 * @throws AppError CERTIFICATE_INVALID naming the values when none is one
 */
export function capiKeySpec(handleSpec: number, certSpec: number, held: () => number[]): number {
  for (const s of [handleSpec, certSpec]) if (s === AT_KEYEXCHANGE || s === AT_SIGNATURE) return s;
  const h = held();
  for (const s of [AT_KEYEXCHANGE, AT_SIGNATURE]) if (h.includes(s)) return s;
  throw new AppError("CERTIFICATE_INVALID", "The certificate's key has no signing key spec", {
    keySpec: handleSpec,
    certKeySpec: certSpec,
    containerHolds: h,
  });
}

/**
 * Sign a SHA-256 hash with a certificate's key (the steps of the module doc).
 * @param ops the Windows calls
 * @param location the store location
 * @param cert the certificate as listed (DER, key provider info)
 * @param hash SHA-256 of the data
 * @param rsa whether the key is RSA (else EC)
 * @returns PKCS#1 v1.5 signature (big-endian), or DER ECDSA-Sig-Value
 * @throws WinCallError from the calls; AppError CERTIFICATE_INVALID (key spec, EC under CryptoAPI)
 */
export function signHashWithStore(
  ops: WinCryptOps,
  location: WindowsStoreLocation,
  cert: RawCert,
  hash: Uint8Array,
  rsa: boolean,
): Uint8Array {
  const key = ops.acquire(location, cert.der);
  let reopened: AcquiredKey | null = null;
  try {
    if (key.keySpec === CERT_NCRYPT_KEY_SPEC) {
      const sig = ops.ncryptSign(key.handle, hash, rsa);
      return rsa ? sig : ecdsaRawToDer(sig);
    }
    if (!rsa) {
      throw new AppError("CERTIFICATE_INVALID", "An EC key must be a CNG key on Windows", {});
    }
    const info = cert.provInfo;
    const valid = (x: number) => x === AT_KEYEXCHANGE || x === AT_SIGNATURE;
    let sig: Uint8Array;
    if (valid(key.keySpec)) {
      try {
        sig = ops.capiSign(key.handle, key.keySpec, hash);
      } catch (e) {
        // A PROV_RSA_FULL handle has no SHA-256: the container again, AES-capable.
        if (!(e instanceof WinCallError) || e.code >>> 0 !== NTE_BAD_ALGID || !info) throw e;
        reopened = ops.capiOpen(info, PROV_RSA_AES);
        sig = ops.capiSign(reopened.handle, key.keySpec, hash);
      }
    } else {
      // No usable key spec on the handle (Wine 8: 3): the certificate's container, AES-capable.
      if (!info) {
        throw new AppError("CERTIFICATE_INVALID", "The certificate has no key container", {});
      }
      const r = reopened = ops.capiOpen(info, PROV_RSA_AES);
      const spec = capiKeySpec(key.keySpec, info.keySpec, () => ops.capiKeySpecs(r.handle));
      sig = ops.capiSign(r.handle, spec, hash);
    }
    return sig.slice().reverse(); // CryptoAPI is little-endian
  } finally {
    reopened?.free();
    key.free();
  }
}

/**
 * Opens the Windows certificate store key store.
 * @param options the Windows calls and the locations
 * @returns the key store (`pin` is ignored: Windows asks for it)
 * @throws never (errors surface from methods: KEYSTORE_UNAVAILABLE, PIN_INCORRECT, PIN_LOCKED,
 *   CERTIFICATE_INVALID, SIGNING_FAILED)
 */
export function openWindowsCertStore(options: WindowsStoreOptions = {}): KeyStore {
  const ops = options.ops ?? win32CryptOps;
  const explicit = options.locations !== undefined;
  const locations = options.locations ?? ["CurrentUser", "LocalMachine"];
  /** The certificates with a key, per location; LocalMachine skipped when unreadable. */
  const list = async () => {
    const out: { location: WindowsStoreLocation; cert: RawCert; thumb: string }[] = [];
    for (const location of locations) {
      let certs: RawCert[];
      try {
        certs = ops.listMy(location);
      } catch (e) {
        if (location === "LocalMachine" && !explicit) continue;
        throw windowsError(e, "KEYSTORE_UNAVAILABLE");
      }
      for (const cert of certs) {
        if (cert.provInfo) out.push({ location, cert, thumb: await thumbprintOf(cert.der) });
      }
    }
    return out;
  };
  return {
    kind: "windows",
    async listCertificates(): Promise<CertificateInfo[]> {
      return (await list()).map((c) =>
        toCertificateInfo(c.cert.der, `windows:${c.location}/My/${c.thumb}`, c.cert.friendlyName)
      );
    },
    async sign(certId, data) {
      const m = /^(?:windows:)?(?:(CurrentUser|LocalMachine)\/My\/)?([0-9A-F]{40})$/i.exec(certId);
      if (!m) throw new AppError("CERTIFICATE_INVALID", "Not a Windows certificate thumbprint");
      // non-null: group 2 of the pattern is not optional, so a match has it
      const thumb = m[2]!.toUpperCase();
      const found = (await list()).find((c) => c.thumb === thumb && (!m[1] || c.location === m[1]));
      if (!found) {
        throw new AppError("CERTIFICATE_INVALID", "The certificate is not in the Windows store", {
          thumbprint: thumb,
        });
      }
      const hash = await digest(data, "SHA-256");
      const rsa = toCertificateInfo(found.cert.der, certId).keyAlgorithm === "RSA";
      try {
        return signHashWithStore(ops, found.location, found.cert, hash, rsa);
      } catch (e) {
        throw windowsError(e, "SIGNING_FAILED");
      }
    },
    close: () => Promise.resolve(),
  };
}

/**
 * Trust a CA certificate for the current user: `CertAddEncodedCertificateToStore` into the
 * user's Root store (Windows shows its own confirmation), then read the store again.
 * @param der the CA certificate
 * @param ops the Windows calls (default the real ones)
 * @throws AppError KEYSTORE_UNAVAILABLE naming the call and its code, or when the certificate is
 *   not in the store afterwards (the person declined Windows' question)
 */
export function trustInWindowsRoot(der: Uint8Array, ops: WinCryptOps = win32CryptOps): void {
  try {
    ops.addToUserRoot(der);
  } catch (e) {
    throw windowsError(e, "KEYSTORE_UNAVAILABLE");
  }
  let found: boolean;
  try {
    found = ops.userRootHas(der);
  } catch (e) {
    throw windowsError(e, "KEYSTORE_UNAVAILABLE");
  }
  if (!found) {
    throw new AppError(
      "KEYSTORE_UNAVAILABLE",
      "The certificate is not in the user's Root store after adding it",
      {},
    );
  }
}
