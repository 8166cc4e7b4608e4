/**
 * The token service's start, step 1 of 4 (docs/architecture.md § The start): its settings — the
 * configuration (flags over SVC_* variables, src/config.ts), the operations' settings
 * (SVC_ADMIN_TOKEN, SVC_SMTP_*, rate limits, logs; `TokenRunConfig`), the signing key secret's
 * cipher, the logger. Nothing is opened or started here.
 * @module
 */
import { loadConfig, TokenServiceConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import {
  createSigningKeyCipher,
  isPostgresUrl,
  type SigningKeyCipher,
  TokenRunConfig,
} from "../token/mod.ts";
import { UserError } from "../user_error.ts";

/** Everything the later steps of the token service's start read, decided once. */
export interface TokenSettings {
  readonly cfg: TokenServiceConfig;
  readonly run: TokenRunConfig;
  /** Encrypts the signing keys at rest, or null (plain text). */
  readonly keyCipher: SigningKeyCipher | null;
  readonly log: Logger;
  /** SVC_UPDATE_MANIFEST: the file of the signed agent update manifest, if published. */
  readonly updateManifest?: string;
}

/** The `token-service` command's flags (the data directory resolved by src/cli/data_dir.ts). */
export interface TokenRunFlags {
  readonly port?: number | undefined;
  readonly dataDir: string;
  readonly minAgentVersion?: string | undefined;
}

/**
 * Step 1: read the settings: flags over SVC_* variables.
 * @param env the environment
 * @param flags port, data directory (resolved), minimum agent version
 * @param logger the logger at the configured level
 * @returns the settings
 * @throws Error as {@link tokenSettings}
 */
export async function readTokenSettings(
  env: Readonly<Record<string, string | undefined>>,
  flags: TokenRunFlags,
  logger: (level: TokenServiceConfig["logLevel"]) => Logger,
): Promise<TokenSettings> {
  const cfg = loadConfig(TokenServiceConfig, env, {
    port: flags.port,
    dataDir: flags.dataDir,
    minAgentVersion: flags.minAgentVersion,
  });
  return await tokenSettings(cfg, logger(cfg.logLevel), env);
}

/**
 * Step 1, for a configuration already read (the demo builds its own) (the command reads it from its flags
 * and the environment; the demo builds it).
 * @param cfg the parsed TokenServiceConfig
 * @param log the logger
 * @param env the environment (SVC_ADMIN_TOKEN, SVC_SMTP_*, SVC_NOTICE_INTERVAL_SECONDS, …)
 * @returns the settings
 * @throws Error "Invalid configuration: …" for bad variables; "Refusing to start: …" on
 *   PostgreSQL without SVC_SIGNING_KEY_SECRET (and without SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true)
 */
export async function tokenSettings(
  cfg: TokenServiceConfig,
  log: Logger,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TokenSettings> {
  const run = loadConfig(TokenRunConfig, env, {});
  const keyCipher = await signingKeyCipher(cfg);
  return {
    cfg,
    run,
    keyCipher,
    log,
    ...(env.SVC_UPDATE_MANIFEST ? { updateManifest: env.SVC_UPDATE_MANIFEST } : {}),
  };
}

/**
 * The signing key secret's cipher (SVC_SIGNING_KEY_SECRET, SVC_SIGNING_KEY_SECRET_PREVIOUS), or
 * null. The PostgreSQL deployment refuses to start without a secret unless
 * SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true (docs/token-service.md § Signing keys at rest).
 * @param cfg the parsed TokenServiceConfig
 * @returns the cipher, or null (keys stay in plain text)
 * @throws Error for PostgreSQL without a secret and without the explicit opt-out
 */
export async function signingKeyCipher(
  cfg: TokenServiceConfig,
): Promise<SigningKeyCipher | null> {
  if (cfg.signingKeySecret) {
    const previous = cfg.signingKeySecretPrevious ? [cfg.signingKeySecretPrevious] : [];
    return await createSigningKeyCipher(cfg.signingKeySecret, previous);
  }
  if (isPostgresUrl(cfg.databaseUrl) && !cfg.allowPlaintextSigningKeys) {
    throw new UserError(
      "Refusing to start: on PostgreSQL the signing keys are stored encrypted. Set " +
        "SVC_SIGNING_KEY_SECRET (32+ random characters, e.g. openssl rand -base64 32), or " +
        "SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true to keep them in plain text (not for production).",
    );
  }
  return null;
}
