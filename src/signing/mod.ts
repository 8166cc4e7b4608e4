/**
 * Public API of the signing layer (docs/signing.md): key stores (PKCS#12 files, PKCS#11 modules,
 * the Windows certificate store, the macOS Keychain), PKCS#11 module discovery, certificate
 * checks, and detached CMS/PKCS#7 signatures as the NRA expects them (docs/nra-api.md §5).
 * See docs/signing.md.
 * @module
 */

export type { CertificateInfo, Clock, KeyAlgorithm, KeyStore } from "./keystore.ts";
export { holderEgn, nameValue, parseCertificate, toCertificateInfo } from "./cert_info.ts";
export { openPkcs12KeyStore, pkcs12HasPlainKey, type Pkcs12Options } from "./pkcs12.ts";
export {
  openPkcs11KeyStore,
  type Pkcs11KeyStore,
  type Pkcs11Options,
  type Pkcs11Token,
} from "./pkcs11/mod.ts";
export { loadPkcs11Module, type Pkcs11Api } from "./pkcs11/mod.ts";
export {
  discoverPkcs11Modules,
  type ModuleCandidate,
  type ModuleOs,
  PKCS11_MODULE_CANDIDATES,
} from "./pkcs11/mod.ts";
export {
  openWindowsCertStore,
  trustInWindowsRoot,
  type WinCryptOps,
  type WindowsStoreOptions,
} from "./os/mod.ts";
export { type MacKeychainOptions, openMacKeychain } from "./os/mod.ts";
export {
  type CommandRequest,
  type CommandResult,
  type CommandRunner,
  denoCommandRunner,
} from "../command_runner.ts";
export {
  assertCertificateUsable,
  BULGARIAN_QES_PROVIDERS,
  type CertificateCheck,
  type CertificateCheckName,
  type CertificateFailure,
  checkCertificate,
  type QesProvider,
} from "./cert_checks.ts";
export {
  type CmsSigner,
  keyStoreSigner,
  signDetached,
  type SignDetachedOptions,
  verifyDetached,
} from "./cms.ts";
export { ecdsaDerToRaw, ecdsaRawToDer } from "./ecdsa_signature.ts";
export { signDetachedMany } from "./sign_many.ts";
export {
  type CscApprove,
  type CscAskOtp,
  type CscClientOptions,
  type CscCredential,
  type CscInfo,
  type CscKeyStore,
  type CscKeyStoreOptions,
  type CscTokens,
  openCscKeyStore,
} from "./csc/mod.ts";
export { CscClient } from "./csc/mod.ts";
export { type AuthorizeScope, authorizeUrl, newPkceRequest, type PkceRequest } from "./csc/mod.ts";
