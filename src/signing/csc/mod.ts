/**
 * Cloud qualified signatures through the Cloud Signature Consortium API v2 (docs/signing.md
 * § 11): the client, OAuth 2.0 with PKCE, and the key store.
 * @module
 */
export {
  type CscClientOptions,
  type CscCredential,
  type CscInfo,
  type CscTokens,
  ECDSA_SHA256_OID,
  RSA_OID,
  SHA256_OID,
} from "./client.ts";
export { CscClient } from "./client.ts";
export { type AuthorizeScope, authorizeUrl, newPkceRequest, type PkceRequest } from "./oauth.ts";
export {
  type CscApprove,
  type CscAskOtp,
  type CscKeyStore,
  type CscKeyStoreOptions,
  openCscKeyStore,
} from "./keystore.ts";
