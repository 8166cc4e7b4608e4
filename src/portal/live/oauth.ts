/**
 * The Bearer token of the live portal: OAuth2 client credentials (form-encoded grant at the
 * token endpoint, cached until `expires_in − 60 s`, renewable) or a pre-issued JWT used as is
 * (its `exp` is checked against the clock — also by `check()`, before the user is asked for a
 * PIN; not renewable). Secrets never reach a log line or an error. Implements
 * docs/nra-api.md §2 and docs/live-portal.md § Authentication.
 * @module
 */
import { decodeJwt } from "jose";
import type { Clock } from "../../clock.ts";
import { AppError } from "../../contract/mod.ts";
import type { Logger } from "../../log.ts";
import { postToPortal } from "./http.ts";
import {
  type AuthMode,
  authModeOf,
  type LiveEndpoints,
  type LivePortalSettings,
} from "./settings.ts";

/** Seconds taken off `expires_in` before a cached token is renewed (docs/nra-api.md §2). */
export const TOKEN_EXPIRY_MARGIN_SECONDS = 60;
/** `expires_in` assumed when the token answer has none (docs/nra-api.md §2). */
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;

/** A source of Bearer tokens. */
export interface TokenSource {
  /** How the tokens are obtained. */
  readonly mode: AuthMode;
  /** Whether a refused token can be replaced by a new one (client credentials only). */
  readonly renewable: boolean;
  /**
   * The current token (cached, or fetched now).
   * @param signal the caller's cancellation
   * @returns the Bearer token
   * @throws AppError PORTAL_NOT_CONFIGURED, PORTAL_AUTH_FAILED, PORTAL_UNREACHABLE,
   *   PORTAL_TIMEOUT, PORTAL_SERVER_ERROR, PORTAL_BAD_RESPONSE
   */
  bearer(signal?: AbortSignal): Promise<string>;
  /** Forget the cached token (after the API refused it). */
  invalidate(): void;
  /**
   * Refuse now, without a call, a credential already known to be refused: a pre-issued JWT
   * past its `exp` on the clock (client credentials can only be tried).
   * @returns nothing when the credential can be tried
   * @throws AppError PORTAL_AUTH_FAILED (details: endpoint "token", expiredAt)
   */
  check(): void;
}

/** What {@link createTokenSource} needs. */
export interface TokenSourceDeps {
  readonly getFetch: () => Promise<typeof fetch>;
  readonly clock: Clock;
  readonly log: Logger;
}

/**
 * Create the token source for the settings.
 *
 * Implements docs/nra-api.md §2 (client credentials: form body `grant_type`, `client_id`,
 * `client_secret`; answer `access_token`, `expires_in`; direct token: `exp` claim).
 * @param settings the portal settings (credentials, time-out)
 * @param endpoints the token URL and the scope the environment needs
 * @param deps fetch provider, clock and log
 * @returns the token source
 * @throws AppError PORTAL_NOT_CONFIGURED when the settings hold no credential
 */
export function createTokenSource(
  settings: LivePortalSettings,
  endpoints: LiveEndpoints,
  deps: TokenSourceDeps,
): TokenSource {
  const mode = authModeOf(settings);
  // non-null: authModeOf answers "access_token" only when accessToken is set
  if (mode === "access_token") return preIssued(settings.accessToken!, endpoints, deps);

  let cached: { token: string; until: number } | null = null;
  let pending: Promise<string> | null = null;

  const fetchToken = async (signal?: AbortSignal): Promise<string> => {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      // non-null: authModeOf answered "client_credentials": clientId and clientSecret are set
      client_id: settings.clientId!,
      // non-null: authModeOf answered "client_credentials": clientId and clientSecret are set
      client_secret: settings.clientSecret!,
    });
    const answer = await postToPortal(await deps.getFetch(), {
      endpoint: "token",
      url: endpoints.token,
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
      body: form.toString(),
      timeoutMs: settings.timeoutSeconds * 1000,
      signal,
    });
    if (answer.status >= 400) {
      const error = oauthErrorOf(answer.text);
      throw new AppError(
        "PORTAL_AUTH_FAILED",
        `The NRA token endpoint refused the agent's API client (HTTP ${answer.status}` +
          `${error ? `, ${error}` : ""}): check portal.clientId and portal.clientSecret`,
        { endpoint: "token", httpStatus: answer.status, ...(error ? { error } : {}) },
      );
    }
    let body: Record<string, unknown> | null = null;
    try {
      const v = JSON.parse(answer.text);
      if (v && typeof v === "object" && !Array.isArray(v)) body = v;
    } catch { /* handled below */ }
    const token = body?.access_token;
    if (answer.status >= 300 || typeof token !== "string" || token === "") {
      throw new AppError(
        "PORTAL_BAD_RESPONSE",
        "The NRA token endpoint answered without an access_token",
        { endpoint: "token", httpStatus: answer.status },
      );
    }
    const expiresIn = Number(body?.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS);
    const lifetime = Number.isFinite(expiresIn) ? expiresIn : DEFAULT_EXPIRES_IN_SECONDS;
    const now = deps.clock.now();
    cached = {
      token,
      until: now + Math.max(0, lifetime - TOKEN_EXPIRY_MARGIN_SECONDS) * 1000,
    };
    deps.log("info", "portal token obtained", {
      expiresInSeconds: lifetime,
      environmentScope: endpoints.scope,
    });
    return token;
  };

  return {
    mode,
    renewable: true,
    bearer(signal) {
      if (cached && deps.clock.now() < cached.until) return Promise.resolve(cached.token);
      pending ??= fetchToken(signal).finally(() => {
        pending = null;
      });
      return pending;
    },
    invalidate() {
      cached = null;
    },
    check() {},
  };
}

function preIssued(token: string, endpoints: LiveEndpoints, deps: TokenSourceDeps): TokenSource {
  let claims: { exp?: number; scope?: unknown } = {};
  try {
    claims = decodeJwt(token);
  } catch {
    deps.log("warn", "portal.accessToken is not a JWT; it is sent as is", {});
  }
  const scopes = Array.isArray(claims.scope)
    ? claims.scope.map(String)
    : typeof claims.scope === "string"
    ? claims.scope.split(" ")
    : null;
  if (scopes && !scopes.includes(endpoints.scope)) {
    deps.log("warn", "portal.accessToken lacks the scope of this environment", {
      expectedScope: endpoints.scope,
    });
  }
  const expired = (): AppError | null => {
    if (typeof claims.exp !== "number" || claims.exp * 1000 > deps.clock.now()) return null;
    const at = new Date(claims.exp * 1000).toISOString();
    return new AppError(
      "PORTAL_AUTH_FAILED",
      `The pre-issued portal access token (portal.accessToken) expired at ${at}: ask the NRA ` +
        "for a new one, or configure portal.clientId and portal.clientSecret",
      { endpoint: "token", expiredAt: at },
    );
  };
  return {
    mode: "access_token",
    renewable: false,
    bearer() {
      const refused = expired();
      return refused ? Promise.reject(refused) : Promise.resolve(token);
    },
    invalidate() {},
    check() {
      const refused = expired();
      if (refused) throw refused;
    },
  };
}

function oauthErrorOf(text: string): string | null {
  try {
    const v = JSON.parse(text);
    const e = v?.error ?? v?.errorCode;
    return typeof e === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(e) ? e : null;
  } catch {
    return null;
  }
}
