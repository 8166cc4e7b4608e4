/**
 * Verification of the per-operation JWT (docs/tokens.md § Verification by the agent 2–4, our
 * design for "Claims inside the token and how the agent verifies its signature", docs/tokens.md):
 * EdDSA only, signature against the token service's JWKS (cached; refetched on an unknown
 * `kid`), `iss`, `aud`, `exp` with at most 2 s leeway, `typeId` equal to the path, `jti` used
 * once, `minAgentVersion` not above ours (else 426).
 * @module
 */
import { errors as joseErrors, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from "jose";
// Only the functions used (semver's index loads its ~50 CommonJS modules).
import valid from "semver/functions/valid.js";
import lt from "semver/functions/lt.js";
import { AppError, type KeyMode } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";

/** Leeway for `exp`/`iat`, seconds (at most 2 s by design). */
export const CLOCK_LEEWAY_SECONDS = 2;
/** Longest lifetime the agent accepts, seconds (5 s tokens + leeway). */
export const MAX_TOKEN_AGE_SECONDS = 5 + CLOCK_LEEWAY_SECONDS;

/** The claims the agent relies on. */
export interface OperationClaims extends JWTPayload {
  jti: string;
  typeId: string;
  mode: KeyMode;
  eik?: string;
  eiks?: string[];
  minAgentVersion?: string;
  origin?: string;
  bodySha256?: string;
  intg?: string;
  intgName?: string;
  /** The integrator's legal name and EIK, present only when the token service's administrator
   * verified them (docs/confirmation.md § Who asks). */
  intgVerified?: { legalName?: unknown; eik?: unknown };
}

/**
 * The verified identity a token carries, when it carries a well-formed one
 * (docs/confirmation.md § Who asks).
 * @param claims the verified claims
 * @returns legal name and EIK, or null (not verified: the name is self-declared)
 */
export function verifiedIdentity(
  claims: OperationClaims,
): { legalName: string; eik: string } | null {
  const v = claims.intgVerified;
  if (!v || typeof v !== "object") return null;
  const { legalName, eik } = v;
  if (typeof legalName !== "string" || legalName.trim() === "") return null;
  if (typeof eik !== "string" || !/^(\d{9}|\d{13})$/.test(eik)) return null;
  return { legalName, eik };
}

/** Thrown for 426: carries both versions for the AgentUpdateRequired body. */
export class AgentUpdateRequiredError extends AppError {
  readonly agentVersion: string;
  readonly requiredVersion: string;
  constructor(agentVersion: string, requiredVersion: string) {
    super(
      "AGENT_UPDATE_REQUIRED",
      `This agent (${agentVersion}) is too old; version ${requiredVersion} or newer is required`,
      { agentVersion, requiredVersion },
    );
    this.agentVersion = agentVersion;
    this.requiredVersion = requiredVersion;
  }
}

/** Remembers used `jti`s until their token could no longer verify. Memory is bounded by the
 * token rate × {@link MAX_TOKEN_AGE_SECONDS}. */
export class JtiCache {
  #seen = new Map<string, number>();
  #lastSweep = 0;
  /**
   * Record a jti; false when it was already used.
   * @param jti the token id
   * @param forgetAtMs epoch ms after which the token cannot verify anyway
   * @param nowMs current epoch ms
   */
  use(jti: string, forgetAtMs: number, nowMs: number): boolean {
    if (nowMs - this.#lastSweep > 1000) {
      for (const [k, t] of this.#seen) if (t < nowMs) this.#seen.delete(k);
      this.#lastSweep = nowMs;
    }
    if (this.#seen.has(jti)) return false;
    this.#seen.set(jti, forgetAtMs);
    return true;
  }
  /** Entries currently held. */
  get size(): number {
    return this.#seen.size;
  }
}

/** Dependencies of {@link verifyOperationToken}. */
export interface TokenVerifier {
  readonly getKey: JWTVerifyGetKey;
  readonly issuer: string;
  readonly audience: string;
  readonly clock: Clock;
  readonly jtis: JtiCache;
  readonly agentVersion: string;
}

function mapJoseError(e: unknown): AppError {
  if (e instanceof joseErrors.JWTExpired) {
    return new AppError("TOKEN_EXPIRED", "The token has expired; request a new one per operation");
  }
  if (e instanceof joseErrors.JWKSTimeout || (e instanceof TypeError && /fetch/i.test(e.message))) {
    return new AppError(
      "TOKEN_KEYS_UNAVAILABLE",
      "The token service's keys could not be fetched",
      undefined,
      e,
    );
  }
  if (e instanceof joseErrors.JOSEError && e.code === "ERR_JWKS_INVALID") {
    return new AppError(
      "TOKEN_KEYS_UNAVAILABLE",
      "The token service's JWKS is invalid",
      undefined,
      e,
    );
  }
  return new AppError("TOKEN_INVALID", "The token is not valid", undefined, e);
}

/**
 * Verify the bearer token of an operation call.
 * @param v verifier settings and state
 * @param authorization the `Authorization` header
 * @param typeId the operation called (path)
 * @returns the verified claims (jti now consumed)
 * @throws AppError TOKEN_MISSING | TOKEN_INVALID | TOKEN_EXPIRED | TOKEN_REPLAYED |
 *   TOKEN_TYPE_MISMATCH | TOKEN_KEYS_UNAVAILABLE (401); AgentUpdateRequiredError (426)
 */
export async function verifyOperationToken(
  v: TokenVerifier,
  authorization: string | undefined,
  typeId: string,
): Promise<OperationClaims> {
  const m = /^Bearer\s+([A-Za-z0-9_.-]+)$/i.exec(authorization ?? "");
  if (!m) {
    throw new AppError("TOKEN_MISSING", "Send the operation token as Authorization: Bearer <JWT>");
  }
  const now = v.clock.now();
  let payload: JWTPayload;
  try {
    // non-null: group 1 of the Bearer pattern is not optional, so a match has it
    ({ payload } = await jwtVerify(m[1]!, v.getKey, {
      algorithms: ["EdDSA"],
      issuer: v.issuer,
      audience: v.audience,
      currentDate: new Date(now),
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
      requiredClaims: ["jti", "exp", "iat", "typeId"],
    }));
  } catch (e) {
    throw mapJoseError(e);
  }
  const c = payload as OperationClaims;
  if (
    typeof c.typeId !== "string" || typeof c.jti !== "string" ||
    (c.mode !== "test" && c.mode !== "live")
  ) {
    throw new AppError("TOKEN_INVALID", "The token lacks typeId, jti or mode");
  }
  // non-null: jwtVerify was given requiredClaims including exp, so a verified payload has it
  if (!v.jtis.use(c.jti, (c.exp! + CLOCK_LEEWAY_SECONDS) * 1000 + 1000, now)) {
    throw new AppError(
      "TOKEN_REPLAYED",
      "The token was already used; request a new one per operation",
    );
  }
  if (
    c.minAgentVersion && valid(c.minAgentVersion) &&
    lt(v.agentVersion, c.minAgentVersion)
  ) {
    throw new AgentUpdateRequiredError(v.agentVersion, c.minAgentVersion);
  }
  if (c.typeId !== typeId) {
    throw new AppError(
      "TOKEN_TYPE_MISMATCH",
      `The token was issued for "${c.typeId}", not for "${typeId}"`,
    );
  }
  return c;
}

/**
 * Check that the body's EIK(s) are covered by the token.
 * @param claims verified claims
 * @param eiks EIKs the request acts on (body eik, files' EIKs)
 * @throws AppError TOKEN_EIK_MISMATCH (401)
 */
export function assertEiksCovered(claims: OperationClaims, eiks: readonly string[]): void {
  const allowed = new Set([...(claims.eik ? [claims.eik] : []), ...(claims.eiks ?? [])]);
  const outside = eiks.filter((e) => !allowed.has(e));
  if (outside.length > 0) {
    throw new AppError("TOKEN_EIK_MISMATCH", `The token does not cover EIK ${outside.join(", ")}`, {
      eiks: outside,
    });
  }
}
