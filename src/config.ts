/**
 * Configuration of both programs: one zod schema each, read from environment variables (and
 * CLI flags, which win), every invalid variable reported at once. Only `main.ts` reads the
 * environment and passes it here. Defaults: agent on 127.0.0.1:17470, token service on
 * 127.0.0.1:17480, data directory per OS (src/defaults.ts, re-exported here).
 * @module
 */
import { z } from "zod";
import { DEFAULT_AGENT_PORT, DEFAULT_AUDIENCE, DEFAULT_TOKEN_PORT } from "./defaults.ts";
import { UserError } from "./user_error.ts";

export * from "./defaults.ts";

const port = z.coerce.number().int().min(0).max(65535);

/** Agent settings. */
export const AgentConfig = z.object({
  port: port.default(DEFAULT_AGENT_PORT).meta({ env: "SVC_AGENT_PORT" }),
  /** Also serve HTTPS on this port with the loopback certificate (off when absent). */
  tlsPort: port.optional().meta({ env: "SVC_AGENT_TLS_PORT" }),
  dataDir: z.string().min(1).meta({ env: "SVC_DATA_DIR" }),
  tokenServiceUrl: z.string().url().default(`http://127.0.0.1:${DEFAULT_TOKEN_PORT}`).meta({
    env: "SVC_TOKEN_SERVICE_URL",
  }),
  /** Expected `iss`; defaults to tokenServiceUrl. */
  issuer: z.string().min(1).optional().meta({ env: "SVC_TOKEN_ISSUER" }),
  audience: z.string().min(1).default(DEFAULT_AUDIENCE).meta({ env: "SVC_AUDIENCE" }),
  confirmTimeoutSeconds: z.coerce.number().int().min(5).max(3600).default(300).meta({
    env: "SVC_CONFIRM_TIMEOUT_SECONDS",
  }),
  /** Operation requests per origin per 10 s (rate limit). */
  operationsPer10s: z.coerce.number().int().min(1).default(2000).meta({
    env: "SVC_RATE_LIMIT_OPERATIONS",
  }),
  openBrowser: z.enum(["auto", "never"]).default("auto").meta({ env: "SVC_OPEN_BROWSER" }),
  /** One OS user per agent (docs/running.md § Shared PCs): `off` only where the clients are not
   * the OS's own processes, as the Linux test programs that call an agent under Wine. */
  peerCheck: z.enum(["on", "off"]).default("on").meta({ env: "SVC_PEER_CHECK" }),
  logLevel: z.enum(["debug", "info", "warn", "error"]).default("info").meta({
    env: "SVC_LOG_LEVEL",
  }),
  /** Filings of a folder-wide batch in flight to the portal at once (docs/local-input.md). */
  batchConcurrency: z.coerce.number().int().min(1).max(16).default(4).meta({
    env: "SVC_BATCH_CONCURRENCY",
  }),
  /** The test portal's time per filing, ms: a test-mode batch shows its progress as a live
   * one would (docs/test-portal.md). */
  testPortalDelayMs: z.coerce.number().int().min(0).max(60_000).default(50).meta({
    env: "SVC_TEST_PORTAL_DELAY_MS",
  }),
});
/** Parsed agent settings. */
export type AgentConfig = z.infer<typeof AgentConfig>;

/** A yes/no setting: a boolean, or its variable's `true`/`1`/`yes` (`false`/`0`/`no`: false). */
export const envFlag = z.union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no"])])
  .transform((v) => v === true || v === "true" || v === "1" || v === "yes");
const signingSecret = z.string().min(
  32,
  "must be at least 32 characters (e.g. the output of: openssl rand -base64 32)",
);

/** Token service settings. */
export const TokenServiceConfig = z.object({
  port: port.default(DEFAULT_TOKEN_PORT).meta({ env: "SVC_TOKEN_PORT" }),
  host: z.string().default("127.0.0.1").meta({ env: "SVC_TOKEN_HOST" }),
  dataDir: z.string().min(1).meta({ env: "SVC_DATA_DIR" }),
  /** `postgres://…` selects PostgreSQL; absent = SQLite in dataDir. */
  databaseUrl: z.string().optional().meta({ env: "SVC_DATABASE_URL" }),
  issuer: z.string().min(1).optional().meta({ env: "SVC_TOKEN_ISSUER" }),
  audience: z.string().min(1).default(DEFAULT_AUDIENCE).meta({ env: "SVC_AUDIENCE" }),
  minAgentVersion: z.string().regex(/^\d+\.\d+\.\d+/).optional().meta({
    env: "SVC_MIN_AGENT_VERSION",
  }),
  /** Newest agent release, shown by agents' /health as an available update. */
  latestAgentVersion: z.string().regex(/^\d+\.\d+\.\d+/).optional().meta({
    env: "SVC_LATEST_AGENT_VERSION",
  }),
  logLevel: z.enum(["debug", "info", "warn", "error"]).default("info").meta({
    env: "SVC_LOG_LEVEL",
  }),
  /** Encrypts the signing keys at rest (AES-256-GCM, key by HKDF-SHA256; docs/token-service.md). */
  signingKeySecret: signingSecret.optional().meta({ env: "SVC_SIGNING_KEY_SECRET" }),
  /** The secret before a change of secret: still read, never used to encrypt. */
  signingKeySecretPrevious: signingSecret.optional().meta({
    env: "SVC_SIGNING_KEY_SECRET_PREVIOUS",
  }),
  /** PostgreSQL without signingKeySecret: start anyway, keys in plain text (not for production). */
  allowPlaintextSigningKeys: envFlag.default(false).meta({
    env: "SVC_ALLOW_PLAINTEXT_SIGNING_KEYS",
  }),
});
/** Parsed token service settings. */
export type TokenServiceConfig = z.infer<typeof TokenServiceConfig>;

/**
 * The environment variables of a settings schema: each field names its variable in its metadata,
 * `.meta({ env: "SVC_…" })`, next to its type and default, so a setting is declared in one place.
 * @param schema AgentConfig, TokenServiceConfig or TokenRunConfig
 * @returns variable → field, in the schema's order (fields without a variable are left out)
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { AgentConfig, envVariables } from "./config.ts";
 * equal(envVariables(AgentConfig).SVC_AGENT_PORT, "port");
 * ```
 */
export function envVariables(schema: z.ZodObject): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [field, type] of Object.entries(schema.shape)) {
    const env = type.meta()?.env;
    if (typeof env === "string") names[env] = field;
  }
  return names;
}

/**
 * Build a config from environment variables plus overrides.
 * @param schema AgentConfig, TokenServiceConfig or TokenRunConfig (fields name their variables,
 *   {@link envVariables})
 * @param env the environment
 * @param overrides CLI flags (win over the environment)
 * @returns the parsed config
 * @throws UserError "Invalid configuration:" listing every invalid variable (or flag) at once
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined>,
  overrides: Record<string, unknown>,
): z.infer<S> {
  const raw: Record<string, unknown> = {};
  const source: Record<string, string> = {};
  for (const [name, field] of Object.entries(envVariables(schema))) {
    if (env[name] !== undefined && env[name] !== "") {
      raw[field] = env[name];
      source[field] = name;
    }
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) {
      raw[k] = v;
      source[k] = `--${k.replace(/[A-Z]/g, (m) => "-" + m.toLowerCase())}`;
    }
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.map((i) => {
      const f = String(i.path[0] ?? "");
      return `  ${source[f] ?? f}: ${i.message}`;
    });
    throw new UserError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return r.data;
}
