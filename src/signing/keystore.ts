/**
 * The key store abstraction of the signing layer: something that lists the user's signing
 * certificates and makes raw SHA-256 signatures with the matching private key. Implemented by
 * PKCS#12 files, PKCS#11 modules (QES smart cards and tokens), the Windows certificate store and
 * the macOS Keychain. Implements docs/signing.md).
 *
 * PIN rules shared by every implementation: a PIN is used for at most one login attempt per
 * `sign()` call, is never retried, never logged, never stored, and never appears in an error. A
 * PKCS#11 store keeps the session a successful login opened until `close()`, so the signatures
 * of one folder-wide filing cost one login.
 * @module
 */

/** Public-key algorithm of a signing certificate. */
export type KeyAlgorithm = "RSA" | "EC-P256" | "EC-P384" | "EC-P521" | "UNKNOWN";

/** One signing certificate as a key store exposes it (all text fields decoded, dates UTC). */
export interface CertificateInfo {
  /** Store-specific stable id to pass to {@link KeyStore.sign} (not secret). */
  readonly id: string;
  /** Subject DN, RFC 4514 style (`CN=…, O=…, C=BG`). */
  readonly subject: string;
  /** Issuer DN, RFC 4514 style. */
  readonly issuer: string;
  /** Certificate serial number, lower-case hex without leading zero bytes. */
  readonly serialNumber: string;
  /** Start of validity. */
  readonly notBefore: Date;
  /** End of validity. */
  readonly notAfter: Date;
  /** Public-key algorithm (and curve for EC). */
  readonly keyAlgorithm: KeyAlgorithm;
  /** The certificate, DER bytes. */
  readonly der: Uint8Array;
  /**
   * The holder's personal id from the subject `serialNumber` attribute (OID 2.5.4.5), e.g.
   * `PNOBG-8001010008` (ETSI EN 319 412-1 semantics identifier); absent when the subject has none.
   */
  readonly personalId?: string;
  /** Store-specific label (token label, friendly name, PKCS#11 CKA_LABEL), if any. */
  readonly label?: string;
}

/**
 * A source of signing keys. Signatures are made over `data` with SHA-256:
 * RSA → PKCS#1 v1.5 signature bytes (modulus length); EC → DER `ECDSA-Sig-Value`
 * (`SEQUENCE { r INTEGER, s INTEGER }`, RFC 3279 §2.2.3), the form CMS carries.
 */
export interface KeyStore {
  /** Short human-readable kind, e.g. `"pkcs11"`, `"pkcs12"`, `"windows"`, `"macos"`. */
  readonly kind: string;

  /**
   * Lists the signing certificates this store holds.
   *
   * @param pin only for stores whose certificate list is itself protected (a PKCS#12 file whose
   *   certificate bag is encrypted); other stores ignore it. Used once, never stored.
   * @returns the certificates, in store order
   * @throws AppError PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH, KEYSTORE_UNAVAILABLE,
   *   PIN_INCORRECT (PKCS#12 with an encrypted certificate bag)
   */
  listCertificates(pin?: string): Promise<CertificateInfo[]>;

  /**
   * Signs `data` (the whole message; the store hashes it with SHA-256) with the private key of
   * the certificate `certId`. One login attempt with `pin`; a wrong PIN is never retried.
   *
   * @param certId a {@link CertificateInfo.id} from {@link KeyStore.listCertificates}
   * @param data the bytes to sign (for CMS: the DER of the signed attributes)
   * @param pin the PIN or file password; omitted for stores that ask the user themselves
   *   (OS stores, PIN-pad readers)
   * @returns RSA PKCS#1 v1.5 signature, or DER ECDSA-Sig-Value for EC keys
   * @throws AppError PIN_INCORRECT, PIN_LOCKED, KEYSTORE_UNAVAILABLE, CERTIFICATE_INVALID
   *   (no such certificate or no private key for it), SIGNING_FAILED
   */
  sign(certId: string, data: Uint8Array, pin?: string): Promise<Uint8Array>;

  /**
   * Releases sessions, modules and decrypted material. Safe to call twice.
   *
   * @returns when released
   * @throws never
   */
  close(): Promise<void>;
}

/** A clock returning "now"; injected so that tests control time. */
export type Clock = () => Date;
