/**
 * OAuth 2.0 authorization code with PKCE (RFC 7636, S256) for a CSC API v2 service
 * (docs/signing.md § 11): the verifier, its challenge, the `state` that ties the
 * callback to the request, and the authorization URLs for scope `service` (sign-in) and scope
 * `credential` (one approval of a batch's hashes, `oauth2code` credentials).
 * @module
 */

/** One authorization request's secrets, kept in memory until its callback. */
export interface PkceRequest {
  /** The code verifier (43 characters of base64url; a secret). */
  readonly verifier: string;
  /** BASE64URL(SHA-256(verifier)). */
  readonly challenge: string;
  /** The random `state` the callback must return. */
  readonly state: string;
}

const random32 = () =>
  crypto.getRandomValues(new Uint8Array(32)).toBase64({ alphabet: "base64url", omitPadding: true });

/**
 * A new verifier, challenge and state.
 * @returns the request's secrets
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const p = await newPkceRequest();
 * const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(p.verifier)));
 * equal(p.challenge, digest.toBase64({ alphabet: "base64url", omitPadding: true }));
 * equal(p.verifier.length, 43);
 * ```
 */
export async function newPkceRequest(): Promise<PkceRequest> {
  const verifier = random32();
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  return {
    verifier,
    challenge: digest.toBase64({ alphabet: "base64url", omitPadding: true }),
    state: random32(),
  };
}

/** What the authorization URL asks. */
export type AuthorizeScope =
  | { readonly scope: "service" }
  | {
    readonly scope: "credential";
    readonly credentialId: string;
    /** SHA-256 digests, base64 (the hashes the approval binds). */
    readonly hashes: readonly string[];
  };

/**
 * The provider's authorization URL (`<oauth2>/oauth2/authorize`).
 * @param oauth2 the OAuth base URI from `info`
 * @param clientId the agent's OAuth client id at the provider
 * @param redirectUri the agent's loopback callback
 * @param pkce the request's challenge and state
 * @param what scope `service`, or `credential` with the credential and its hashes
 * @returns the URL to open in the browser
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const p = await newPkceRequest();
 * const u = new URL(authorizeUrl("https://csc.example", "agent", "http://127.0.0.1:9/cb", p, {
 *   scope: "credential", credentialId: "c1", hashes: ["aGFzaA=="],
 * }));
 * equal(u.pathname, "/oauth2/authorize");
 * equal(u.searchParams.get("numSignatures"), "1");
 * equal(u.searchParams.get("state"), p.state);
 * ```
 */
export function authorizeUrl(
  oauth2: string,
  clientId: string,
  redirectUri: string,
  pkce: PkceRequest,
  what: AuthorizeScope,
): string {
  const u = new URL(`${oauth2.replace(/\/+$/, "")}/oauth2/authorize`);
  const q = u.searchParams;
  q.set("response_type", "code");
  q.set("client_id", clientId);
  q.set("redirect_uri", redirectUri);
  q.set("scope", what.scope);
  q.set("code_challenge", pkce.challenge);
  q.set("code_challenge_method", "S256");
  q.set("state", pkce.state);
  if (what.scope === "credential") {
    q.set("credentialID", what.credentialId);
    q.set("numSignatures", String(what.hashes.length));
    q.set("hashes", what.hashes.join(","));
    q.set("hashAlgorithmOID", "2.16.840.1.101.3.4.2.1");
  }
  return u.href;
}
