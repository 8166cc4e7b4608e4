/**
 * Token issuance (docs/tokens.md § Issuing): the issue policy (`issue.ts`: key check, phase,
 * typeId and EIK limits), the hot route `POST /api/v1/tokens/issue` (`issue_route.ts`), the
 * Ed25519 signing keys and JWT minting (`signer.ts`) and the signing keys at rest
 * (`key_cipher.ts`).
 * @module
 */
export { authenticateKey, type IssueConfig, type IssueTimings } from "./issue.ts";
export { httpOriginList, issueRoute, MAX_ISSUE_BODY_BYTES } from "./issue_route.ts";
export {
  createSigningKeyCipher,
  MIN_SIGNING_KEY_SECRET_LENGTH,
  type SigningKeyCipher,
} from "./key_cipher.ts";
export {
  encryptSigningKeys,
  type KeyAtRest,
  type KeyRing,
  loadKeyRing,
  rotateSigningKey,
  type SigningKeyView,
  signingKeyViews,
} from "./signer.ts";
