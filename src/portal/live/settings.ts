/**
 * Settings, injected dependencies and endpoints of the live portal (the NRA public API client).
 * The settings mirror agent.json `portal` (src/agent/senders/agent_file.ts `PortalSettings`,
 * the zod schema that validates them and reports every invalid field at start) without
 * importing the agent layer. Implements docs/nra-api.md §1 (base URL, production and test
 * paths, token endpoint) and §2 (which credential is used).
 * @module
 */
import type { Clock } from "../../clock.ts";
import { AppError } from "../../contract/mod.ts";
import type { Logger } from "../../log.ts";

/** Live portal settings: agent.json `portal` after zod defaults. */
export interface LivePortalSettings {
  /** API host, e.g. `https://public-api.nra.bg` (a path prefix is kept). */
  readonly baseUrl: string;
  /** `production` → `/declaration/api-declarations/`, `test` → `…/api-declarations-test/`. */
  readonly environment: "production" | "test";
  /** OAuth2 token endpoint; default `${baseUrl}/oauth/token`. */
  readonly tokenUrl?: string | undefined;
  /** OAuth2 client id (client_credentials grant). */
  readonly clientId?: string | undefined;
  /** OAuth2 client secret (never logged, never in an error). */
  readonly clientSecret?: string | undefined;
  /** A pre-issued JWT used directly as the Bearer token (docs/nra-api.md §2, form 2). */
  readonly accessToken?: string | undefined;
  /** Time-out of one HTTP call, in seconds (fractions allowed). */
  readonly timeoutSeconds: number;
  /** PEM file of extra CA certificates to trust (the simulator's CA in tests). */
  readonly caFile?: string | undefined;
  /**
   * File `vat` / `vat_batch` as the assumed, unverified `DEC_VAT` service with `DEC_VAT_*` file
   * types (docs/nra-api.md §9 lists no VAT service). Default false: they are refused with
   * PORTAL_OPERATION_UNSUPPORTED before any confirmation or PIN (capabilities.ts).
   */
  readonly experimentalVatService?: boolean | undefined;
}

/** Side effects of the live portal. */
export interface LivePortalDeps {
  /** The fetch to use (default: global fetch, or one bound to `settings.caFile`). */
  readonly fetch?: typeof fetch | undefined;
  /** Clock for the OAuth token cache and the pre-issued token's `exp`. */
  readonly clock: Clock;
  /** Structured log; never receives secrets, tokens or personal ids. */
  readonly log?: Logger;
}

/** The URLs the live portal calls. */
export interface LiveEndpoints {
  /** `POST` a declaration (with trailing slash, as the NRA clients send it). */
  readonly submit: string;
  /** `POST` a result query. */
  readonly result: string;
  /** OAuth2 token endpoint. */
  readonly token: string;
  /** The Bearer scope the environment needs (docs/nra-api.md §2, inferred). */
  readonly scope: string;
}

/** How the live portal authenticates. */
export type AuthMode = "client_credentials" | "access_token";

/**
 * The endpoints for the settings.
 *
 * Implements docs/nra-api.md §1.
 * @param settings baseUrl, environment and optional tokenUrl
 * @returns submit, result and token URLs and the expected scope
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const e = liveEndpoints({
 *   baseUrl: "https://public-api.nra.bg",
 *   environment: "test",
 *   timeoutSeconds: 30,
 * });
 * deepStrictEqual(e.submit, "https://public-api.nra.bg/declaration/api-declarations-test/");
 * ```
 */
export function liveEndpoints(settings: LivePortalSettings): LiveEndpoints {
  const base = settings.baseUrl.replace(/\/+$/, "");
  const test = settings.environment === "test";
  const root = `${base}/declaration/api-declarations${test ? "-test" : ""}`;
  return {
    submit: `${root}/`,
    result: `${root}/result`,
    token: settings.tokenUrl ?? `${base}/oauth/token`,
    scope: `es-api-external:submit-declaration${test ? "-test" : ""}`,
  };
}

/**
 * Which credential the settings provide: client credentials win when both clientId and
 * clientSecret are set (they can be renewed); otherwise the pre-issued accessToken.
 *
 * Implements docs/nra-api.md §2.
 * @param settings the portal settings
 * @returns the auth mode
 * @throws AppError PORTAL_NOT_CONFIGURED when neither credential is configured
 */
export function authModeOf(settings: LivePortalSettings): AuthMode {
  if (settings.clientId && settings.clientSecret) return "client_credentials";
  if (settings.accessToken) return "access_token";
  throw new AppError(
    "PORTAL_NOT_CONFIGURED",
    "Live filing needs portal.clientId and portal.clientSecret, or portal.accessToken, " +
      "in the agent's agent.json",
    { missing: ["clientId", "clientSecret", "accessToken"] },
  );
}
