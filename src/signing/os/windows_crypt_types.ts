/**
 * The shapes of the Windows certificate store's calls (windows_crypt_api.ts makes them,
 * windows_store.ts decides with them): the calls as an interface, what they give, and the
 * constants both sides name (wincrypt.h, winerror.h).
 * @module
 */

/** A failed Windows call: its name and the code it answered (HRESULT / Win32 error / status). */
export class WinCallError extends Error {
  /**
   * @param call the API function
   * @param code the code it answered (unsigned 32-bit)
   */
  constructor(readonly call: string, readonly code: number) {
    super(`${call} failed: 0x${(code >>> 0).toString(16).toUpperCase().padStart(8, "0")}`);
  }
}

/** CRYPT_KEY_PROV_INFO of a certificate: where its private key lives. */
export interface KeyProvInfo {
  readonly container: string;
  /** CSP or KSP name ("" for the default). */
  readonly provider: string;
  /** CSP type (PROV_RSA_FULL = 1, PROV_RSA_AES = 24); 0 for a CNG key. */
  readonly provType: number;
  /** CRYPT_MACHINE_KEYSET (0x20) / NCRYPT_MACHINE_KEY_FLAG among others. */
  readonly flags: number;
  /** AT_KEYEXCHANGE (1), AT_SIGNATURE (2); 0 for CNG. */
  readonly keySpec: number;
}

/** One certificate of a store. */
export interface RawCert {
  readonly der: Uint8Array;
  readonly friendlyName?: string | undefined;
  /** Absent when the certificate has no private key here. */
  readonly provInfo?: KeyProvInfo;
}

/** What CryptAcquireCertificatePrivateKey gave. */
export interface AcquiredKey {
  /** HCRYPTPROV or NCRYPT_KEY_HANDLE. */
  readonly handle: bigint;
  /** CERT_NCRYPT_KEY_SPEC (0xFFFFFFFF) for CNG, AT_KEYEXCHANGE / AT_SIGNATURE for CryptoAPI. */
  readonly keySpec: number;
  /** Release the handle (when the caller owns it). */
  free(): void;
}

/** The raw Windows calls the certificate store needs (real: {@link win32CryptOps}). */
export interface WinCryptOps {
  /** The certificates of `<location>\My`; throws WinCallError when the store cannot be opened. */
  listMy(location: "CurrentUser" | "LocalMachine"): RawCert[];
  /** CryptAcquireCertificatePrivateKey (CNG allowed) for the certificate with these DER bytes. */
  acquire(location: "CurrentUser" | "LocalMachine", der: Uint8Array): AcquiredKey;
  /** NCryptSignHash: PKCS#1 v1.5 (SHA256) for RSA, raw r||s for EC. */
  ncryptSign(handle: bigint, hash: Uint8Array, rsa: boolean): Uint8Array;
  /** CryptCreateHash(CALG_SHA_256) + HP_HASHVAL + CryptSignHashW: the signature little-endian. */
  capiSign(handle: bigint, keySpec: number, hash: Uint8Array): Uint8Array;
  /** Which key pairs a CryptoAPI container holds (CryptGetUserKey for AT_KEYEXCHANGE, AT_SIGNATURE). */
  capiKeySpecs(handle: bigint): number[];
  /** CryptAcquireContextW on a key container (provider "" = the type's default). */
  capiOpen(info: KeyProvInfo, provType: number): AcquiredKey;
  /** CertAddEncodedCertificateToStore into the user's Root store (replacing an equal one). */
  addToUserRoot(der: Uint8Array): void;
  /** Whether the user's Root store holds exactly these bytes (a fresh open of the store). */
  userRootHas(der: Uint8Array): boolean;
}

export const CERT_NCRYPT_KEY_SPEC = 0xFFFFFFFF;
export const AT_KEYEXCHANGE = 1;
export const AT_SIGNATURE = 2;
export const PROV_RSA_AES = 24;
export const CRYPT_MACHINE_KEYSET = 0x20;
export const NTE_BAD_ALGID = 0x80090008;
