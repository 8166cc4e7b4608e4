/**
 * The public keys the agent trusts for update manifests (docs/install.md): Ed25519 JWKs, found by
 * the manifest's `kid`. A list, so that a key can be rotated: a release ships the new key beside
 * the old one, is signed with the old one, and the release after it with the new one (then the
 * old key is removed).
 *
 * The private halves are never in the repository. The first release's maintainer makes a pair
 * with `deno run -A scripts/update_keys.ts --out update-signing-key.jwk.json`, pastes the public
 * JWK it prints into this list, and keeps the private file in the release CI's secret store
 * (`SVC_UPDATE_SIGNING_KEY`, docs/install.md § Updates). Until a key is listed here the agent
 * refuses every manifest (UPDATE_SIGNATURE_INVALID: "this build has no update key"), and
 * `scripts/sign_manifest.ts` refuses to sign with a key this list does not hold.
 *
 * Tests build packages whose bundle lists a key pair of their own (tests/_helpers/update_packages.ts
 * replaces this list in the bundle text, as it replaces the version).
 * @module
 */

/** One trusted key: an Ed25519 public JWK with its key id. */
export interface UpdatePublicKey {
  readonly kid: string;
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  /** The public key, base64url (32 bytes). */
  readonly x: string;
}

/** The keys this build trusts, newest first. Empty until the first release's key is added. */
export const UPDATE_PUBLIC_KEYS: readonly UpdatePublicKey[] = [];
