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
  port: port.default(DEFAULT_AGENT_PORT),
  /** Also serve HTTPS on this port with the loopback certificate (off when absent). */
  tlsPort: port.optional(),
  dataDir: z.string().min(1),
  tokenServiceUrl: z.string().url().default(`http://127.0.0.1:${DEFAULT_TOKEN_PORT}`),
  /** Expected `iss`; defaults to tokenServiceUrl. */
  issuer: z.string().min(1).optional(),
  audience: z.string().min(1).default(DEFAULT_AUDIENCE),
  confirmTimeoutSeconds: z.coerce.number().int().min(5).max(3600).default(300),
  /** Operation requests per origin per 10 s (rate limit). */
  operationsPer10s: z.coerce.number().int().min(1).default(2000),
  openBrowser: z.enum(["auto", "never"]).default("auto"),
  /** One OS user per agent (docs/running.md § Shared PCs): `off` only where the clients are not
   * the OS's own processes, as the Linux test programs that call an agent under Wine. */
  peerCheck: z.enum(["on", "off"]).default("on"),
  logLevel: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Filings of a folder-wide batch in flight to the portal at once (docs/local-input.md). */
  batchConcurrency: z.coerce.number().int().min(1).max(16).default(4),
  /** The test portal's time per filing, ms: a test-mode batch shows its progress as a live
   * one would (docs/test-portal.md). */
  testPortalDelayMs: z.coerce.number().int().min(0).max(60_000).default(50),
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
  port: port.default(DEFAULT_TOKEN_PORT),
  host: z.string().default("127.0.0.1"),
  dataDir: z.string().min(1),
  /** `postgres://…` selects PostgreSQL; absent = SQLite in dataDir. */
  databaseUrl: z.string().optional(),
  issuer: z.string().min(1).optional(),
  audience: z.string().min(1).default(DEFAULT_AUDIENCE),
  minAgentVersion: z.string().regex(/^\d+\.\d+\.\d+/).optional(),
  /** Newest agent release, shown by agents' /health as an available update. */
  latestAgentVersion: z.string().regex(/^\d+\.\d+\.\d+/).optional(),
  logLevel: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Encrypts the signing keys at rest (AES-256-GCM, key by HKDF-SHA256; docs/token-service.md). */
  signingKeySecret: signingSecret.optional(),
  /** The secret before a change of secret: still read, never used to encrypt. */
  signingKeySecretPrevious: signingSecret.optional(),
  /** PostgreSQL without signingKeySecret: start anyway, keys in plain text (not for production). */
  allowPlaintextSigningKeys: envFlag.default(false),
});
/** Parsed token service settings. */
export type TokenServiceConfig = z.infer<typeof TokenServiceConfig>;

/** Environment variable → config field, per program. */
export const AGENT_ENV = {
  SVC_AGENT_PORT: "port",
  SVC_AGENT_TLS_PORT: "tlsPort",
  SVC_DATA_DIR: "dataDir",
  SVC_TOKEN_SERVICE_URL: "tokenServiceUrl",
  SVC_TOKEN_ISSUER: "issuer",
  SVC_AUDIENCE: "audience",
  SVC_CONFIRM_TIMEOUT_SECONDS: "confirmTimeoutSeconds",
  SVC_RATE_LIMIT_OPERATIONS: "operationsPer10s",
  SVC_BATCH_CONCURRENCY: "batchConcurrency",
  SVC_TEST_PORTAL_DELAY_MS: "testPortalDelayMs",
  SVC_OPEN_BROWSER: "openBrowser",
  SVC_PEER_CHECK: "peerCheck",
  SVC_LOG_LEVEL: "logLevel",
} as const;

/** Environment variables of the token service. */
export const TOKEN_ENV = {
  SVC_TOKEN_PORT: "port",
  SVC_TOKEN_HOST: "host",
  SVC_DATA_DIR: "dataDir",
  SVC_DATABASE_URL: "databaseUrl",
  SVC_TOKEN_ISSUER: "issuer",
  SVC_AUDIENCE: "audience",
  SVC_MIN_AGENT_VERSION: "minAgentVersion",
  SVC_LATEST_AGENT_VERSION: "latestAgentVersion",
  SVC_LOG_LEVEL: "logLevel",
  SVC_SIGNING_KEY_SECRET: "signingKeySecret",
  SVC_SIGNING_KEY_SECRET_PREVIOUS: "signingKeySecretPrevious",
  SVC_ALLOW_PLAINTEXT_SIGNING_KEYS: "allowPlaintextSigningKeys",
} as const;

/**
 * Build a config from environment variables plus overrides.
 * @param schema AgentConfig or TokenServiceConfig
 * @param envMap variable → field mapping
 * @param env the environment
 * @param overrides CLI flags (win over the environment)
 * @returns the parsed config
 * @throws Error listing every invalid variable at once
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  envMap: Record<string, string>,
  env: Record<string, string | undefined>,
  overrides: Record<string, unknown>,
): z.infer<S> {
  const raw: Record<string, unknown> = {};
  const source: Record<string, string> = {};
  for (const [name, field] of Object.entries(envMap)) {
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
