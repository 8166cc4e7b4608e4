/**
 * Token issuance policy (docs/tokens.md § Issuing, docs/errors.md § Wire format,
 * docs/token-service.md § Access phases): key check with the key's effective phase (401), typeId
 * and EIK presence (400), allowed list (403 with rejectedEiks), the 3-EIK limit of a live key
 * without a contract (402), then a 5-second EdDSA JWT bound to one typeId and its EIK(s), counted for billing.
 * @module
 */
import { AppError, getOperation } from "../../contract/mod.ts";
import {
  hashSecret,
  type KeyPolicy,
  keyPolicy,
  looksLikeApiKey,
  newUuid,
  type RandomBytes,
} from "../access/mod.ts";
import type { KeyRing } from "./signer.ts";
import type { ApiKeyRecord, TokenStore } from "../store/mod.ts";
import type { BillingCounter } from "../contracts/mod.ts";

/** Token lifetime, seconds (docs/tokens.md § Claims). */
export const TOKEN_TTL_SECONDS = 5;

/** Settings of issuance. */
export interface IssueConfig {
  /** `iss` claim and `issuer` field. */
  readonly issuer: string;
  /** `aud` claim the agent checks. */
  readonly audience: string;
  /** Minimum agent version carried in the token (`minAgentVersion`), or null. */
  readonly minAgentVersion: string | null;
  /** Newest agent version known (published at /api/v1/agent-version for /health), or null. */
  readonly latestAgentVersion?: string | null;
}

/** Validated issue request. */
export interface IssueRequest {
  readonly typeId: string;
  readonly eik?: string | undefined;
  readonly eiks?: readonly string[] | undefined;
  /** The calling page's origin, already checked by the route (issue_route.ts): an http(s)
   * origin (`scheme://host[:port]`) among the key's allowed origins. */
  readonly origin?: string | undefined;
  readonly bodySha256?: string | undefined;
}

/** 200 body of `POST /api/v1/tokens/issue`. */
export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: string;
  readonly jti: string;
  readonly issuer: string;
}

/** Timings of the issuance path, microseconds (for the benchmark's time split). */
export interface IssueTimings {
  keyLookupUs: number;
  policyUs: number;
  signingUs: number;
}

/** An authenticated key with the rules that apply to it now. */
export interface AuthenticatedKey {
  readonly key: ApiKeyRecord;
  readonly policy: KeyPolicy;
}

/**
 * Authenticate the secret key and work out its phase (key, integrator name and contract state:
 * from the instance's issuance cache in the steady state, store/issue_cache.ts).
 * @param store token store
 * @param bearer the `Authorization` header value
 * @param now epoch ms
 * @param known told of the key the secret names before a revoked or expired key is refused (the
 *   request log keeps those refusals under their key)
 * @returns the key record and its effective policy
 * @throws AppError API_KEY_INVALID | API_KEY_EXPIRED | API_KEY_REVOKED (401); LIVE_TRIAL_OVER
 *   (402) for a live key without a contract past its integrator's 7 days
 */
export async function authenticateKey(
  store: TokenStore,
  bearer: string | undefined,
  now: number,
  known?: (key: ApiKeyRecord) => void,
): Promise<AuthenticatedKey> {
  const secret = bearerSecret(bearer);
  let hash = knownSecretHashes.get(secret);
  if (hash === undefined) {
    if (!looksLikeApiKey(secret)) {
      throw new AppError("API_KEY_INVALID", "The secret key is not valid");
    }
    hash = hashSecret(secret);
  }
  const found = await store.findKeyForIssue(hash, now);
  if (!found) throw new AppError("API_KEY_INVALID", "The secret key is not valid");
  rememberSecretHash(secret, hash);
  const { key } = found;
  known?.(key);
  if (key.revokedAt !== null && key.revokedAt <= now) {
    throw new AppError("API_KEY_REVOKED", "The secret key was revoked; issue a new key");
  }
  const policy = keyPolicy(key, key.mode === "live" ? found.contract : null);
  if (policy.expiresAt !== null && policy.expiresAt <= now) {
    // Without a contract a live key expires with its integrator's 7 days
    // (docs/token-service.md § Access phases): the trial is over, a new key would not help.
    if (policy.phase === "pre_contract") {
      throw new AppError(
        "LIVE_TRIAL_OVER",
        "The 7 days of live keys without a contract are over; apply for a contract",
        { trialEndedAt: new Date(policy.expiresAt).toISOString() },
      );
    }
    throw new AppError("API_KEY_EXPIRED", "The secret key has expired; issue a new key", {
      expiredAt: new Date(policy.expiresAt).toISOString(),
    });
  }
  return { key, policy };
}

/** The credential of an `Authorization: Bearer <API_KEY>` value (RFC 6750 § 2.1; the scheme's
 * case and the spaces or tabs after it are free). Spaces and tabs at the very end of a header
 * never reach the service (HTTP removes them, RFC 9110 § 5.5); any other character around a
 * key — a space or a tab followed by more text, a no-break space copied from a web page or a
 * PDF, a quote — is refused with a hint, never trimmed away. @throws AppError API_KEY_INVALID
 * (401) */
function bearerSecret(bearer: string | undefined): string {
  // The usual spelling without a regular expression; any other through one.
  if (
    bearer?.startsWith("Bearer ") && bearer.length === 7 + KEY_LENGTH && bearer.charCodeAt(7) !== 32
  ) {
    return bearer.slice(7);
  }
  const m = /^Bearer[ \t]+(.+)$/is.exec(bearer ?? "");
  if (!m) {
    throw new AppError("API_KEY_INVALID", "Send the secret key as Authorization: Bearer <API_KEY>");
  }
  // non-null: group 1 of the pattern is not optional, so a match has it
  const credential = m[1]!;
  const key = /svc_(?:test|live)_[A-Za-z0-9_-]{43}/.exec(credential)?.[0];
  if (key !== undefined && key !== credential) {
    throw new AppError(
      "API_KEY_INVALID",
      "The secret key has other characters around it (a space, a tab, a no-break space or a " +
        "quote copied with it?): send Authorization: Bearer <API_KEY> with nothing after the key",
      { hint: "whitespace_around_key" },
    );
  }
  return credential;
}

/** Characters of a secret key: `svc_test_` / `svc_live_` and 43 base64url characters. */
const KEY_LENGTH = 9 + 43;

/** Most secrets whose hash {@link authenticateKey} keeps. */
const MAX_KNOWN_SECRETS = 10_000;
/**
 * SHA-256 of the secrets of keys that exist (the store found them), so a key, which sends its
 * secret with every request, is hashed once per process and not once per token
 * (BENCHMARKS.md § The issuance hot path). An unknown secret is never kept; the map is emptied
 * when full. In memory only, never logged.
 */
const knownSecretHashes = new Map<string, string>();

function rememberSecretHash(secret: string, hash: string): void {
  if (knownSecretHashes.has(secret)) return;
  if (knownSecretHashes.size >= MAX_KNOWN_SECRETS) knownSecretHashes.clear();
  knownSecretHashes.set(secret, hash);
}

/** What {@link issueToken} is given besides the request (the app's dependencies). */
export interface IssueDeps {
  /** EIK claims. */
  readonly store: TokenStore;
  /** The current signing keys. */
  keyRing(): KeyRing;
  /** Issuer, audience, minimum agent version. */
  readonly config: IssueConfig;
  /** Optional accumulator of the time split. */
  readonly timings?: IssueTimings | undefined;
  /** Optional usage counter (billing). */
  readonly usage?: BillingCounter | undefined;
  /** Random source of the token's `jti` (default the system's). */
  readonly random?: RandomBytes | undefined;
}

/**
 * Apply the policy and mint the token.
 * @param d store, key ring, config, timings, usage counter, random source
 * @param auth the authenticated key and its policy ({@link authenticateKey})
 * @param req the validated request
 * @param now epoch ms
 * @returns the issued token
 * @throws AppError UNKNOWN_TYPE_ID | EIK_REQUIRED (400), EIK_NOT_ALLOWED (403),
 *   EIK_LIMIT_REACHED (402)
 */
export async function issueToken(
  d: IssueDeps,
  auth: AuthenticatedKey,
  req: IssueRequest,
  now: number,
): Promise<IssuedToken> {
  const { store, config, timings, usage } = d;
  const t0 = performance.now();
  const { key, policy } = auth;
  const op = getOperation(req.typeId);
  if (!op) {
    throw new AppError("UNKNOWN_TYPE_ID", `Unknown typeId "${req.typeId}"`, { field: "typeId" });
  }
  let eiks: string[] = [];
  if (op.scope === "eik") {
    if (!req.eik) {
      throw new AppError("EIK_REQUIRED", `typeId "${op.typeId}" needs eik`, { field: "eik" });
    }
    eiks = [req.eik];
  } else if (op.scope === "eiks") {
    if (!req.eiks || req.eiks.length === 0) {
      throw new AppError("EIK_REQUIRED", `typeId "${op.typeId}" is folder-wide and needs eiks`, {
        field: "eiks",
      });
    }
    eiks = [...new Set(req.eiks)];
  }
  if (key.allowedEiks !== null && eiks.length > 0) {
    const allowed = new Set(key.allowedEiks);
    const rejected = eiks.filter((e) => !allowed.has(e));
    if (rejected.length > 0) {
      throw new AppError("EIK_NOT_ALLOWED", "An EIK is not on the key's allowed list", {
        rejectedEiks: rejected,
      });
    }
  }
  // Under a contract there is no limit and nothing to record; the persistent set counts the
  // EIKs of the pre-contract phases only.
  if (policy.eikLimit !== null && eiks.length > 0) {
    const res = await store.claimEiks(key.id, eiks, policy.eikLimit, now);
    if (!res.ok) {
      throw new AppError(
        "EIK_LIMIT_REACHED",
        `The live keys of an integrator without a contract cover at most ${res.limit} companies (EIKs) together`,
        { limit: res.limit, used: res.used },
      );
    }
  }
  const t1 = performance.now();
  const iat = Math.floor(now / 1000);
  const exp = iat + TOKEN_TTL_SECONDS;
  // The system's own UUID unless a random source is injected (tests): measurably cheaper.
  const jti = d.random ? newUuid(d.random) : crypto.randomUUID();
  const claims: Record<string, unknown> = {
    iss: config.issuer,
    aud: config.audience,
    sub: key.id,
    jti,
    typeId: op.typeId,
    mode: key.mode,
    intg: key.integratorId,
  };
  // Shown on the agent's confirmation page ("who asks").
  if (key.integratorName) claims.intgName = key.integratorName;
  // Only an identity an administrator verified (docs/token-service.md § Who asks); without it
  // the agent shows the name as self-declared, after the page's origin.
  if (key.integratorVerified) {
    claims.intgVerified = {
      legalName: key.integratorVerified.legalName,
      eik: key.integratorVerified.eik,
    };
  }
  if (op.scope === "eik") claims.eik = eiks[0];
  if (op.scope === "eiks") claims.eiks = eiks;
  if (config.minAgentVersion) claims.minAgentVersion = config.minAgentVersion;
  if (req.origin !== undefined) claims.origin = req.origin;
  if (req.bodySha256) claims.bodySha256 = req.bodySha256;
  const token = await d.keyRing().sign(claims, iat, exp);
  const t2 = performance.now();
  if (timings) {
    timings.policyUs += (t1 - t0) * 1000;
    timings.signingUs += (t2 - t1) * 1000;
  }
  usage?.record(now, key, policy.contractId, op.typeId, eiks);
  return { token, expiresAt: new Date(exp * 1000).toISOString(), jti, issuer: config.issuer };
}
