/**
 * `token-service`: run the integrator-facing token service (docs/token-service.md) until
 * SIGINT/SIGTERM.
 * @module
 */
import { Command, Option } from "commander";
import type { TokenServiceConfig } from "../config.ts";
import type { SigningKeyView } from "../token/mod.ts";
import type { Cli } from "./context.ts";
import { dataDirOf, dataDirOption, jsonOption, portArg, textArg } from "./options.ts";
import { note, printJson, say } from "./output.ts";
import { UserError } from "../user_error.ts";

interface TokenFlags {
  port?: number;
  minAgentVersion?: string;
}

/** `token-service`: the start's four steps (token_run.ts), loaded when it starts. */
async function runTokenService(cli: Cli, cmd: Command): Promise<void> {
  const o = cmd.opts<TokenFlags>();
  const { runTokenService: run } = await import("./token_run.ts");
  await run(cli, {
    port: o.port,
    dataDir: dataDirOf(cli, cmd),
    minAgentVersion: o.minAgentVersion,
  });
}

async function encryptKeys(cli: Cli, cmd: Command): Promise<void> {
  const { loadConfig, TokenServiceConfig } = await import("../config.ts");
  const cfg = loadConfig(TokenServiceConfig, cli.env, { dataDir: dataDirOf(cli, cmd) });
  const out = await encryptStoredSigningKeys(cfg);
  if (cmd.opts<{ json?: boolean }>().json) return printJson(cli, out);
  for (const k of out.items) {
    say(
      cli,
      `${k.kid}  ${k.atRest}  ${k.retiredAt === null ? "current" : `retired ${k.retiredAt}`}`,
    );
  }
  note(cli, `Signing keys encrypted with the secret of fingerprint ${out.secretFingerprint}.`);
}

/**
 * `token-service encrypt-keys`: re-encrypt every stored signing key with SVC_SIGNING_KEY_SECRET
 * (plain-text keys, and keys of SVC_SIGNING_KEY_SECRET_PREVIOUS).
 * @param cfg the parsed TokenServiceConfig (data directory or SVC_DATABASE_URL, the secrets)
 * @returns how each key is stored afterwards, and the secret's fingerprint
 * @throws Error when SVC_SIGNING_KEY_SECRET is not set, or a key is encrypted with a secret that
 *   is not configured
 */
async function encryptStoredSigningKeys(
  cfg: TokenServiceConfig,
): Promise<{ items: SigningKeyView[]; secretFingerprint: string }> {
  const [{ signingKeyCipher }, { encryptSigningKeys, openTokenStore }] = await Promise.all([
    import("./token_settings.ts"),
    import("../token/mod.ts"),
  ]);
  const cipher = cfg.signingKeySecret ? await signingKeyCipher(cfg) : null;
  if (!cipher) {
    throw new UserError("SVC_SIGNING_KEY_SECRET is not set: there is no secret to encrypt with");
  }
  const store = await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  try {
    return {
      items: await encryptSigningKeys(store, cipher),
      secretFingerprint: cipher.fingerprint,
    };
  } finally {
    await store.close();
  }
}

/** `token-service admin-invite`: a one-time link for an administrator of the desk. */
async function adminInvite(cli: Cli, cmd: Command): Promise<void> {
  const [{ loadConfig, TokenServiceConfig }, { openTokenStore, createAdminInvite }] = await Promise
    .all([import("../config.ts"), import("../token/mod.ts")]);
  const o = cmd.opts<{ email: string; url?: string }>();
  const cfg = loadConfig(TokenServiceConfig, cli.env, { dataDir: dataDirOf(cli, cmd) });
  const url = o.url ?? cfg.issuer ?? `http://${cfg.host}:${cfg.port}`;
  const store = await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  try {
    say(cli, await createAdminInvite(store, cli.clock, url, o.email));
  } finally {
    await store.close();
  }
  note(
    cli,
    "Open the link within 30 minutes (it works once), then create your passkey on the desk.",
  );
}

/**
 * The `token-service` command.
 * @param cli the run's context
 * @returns the command
 */
export function tokenServiceCommand(cli: Cli): Command {
  const service = new Command("token-service")
    .summary("run the token service (integrator keys → 5-second JWTs, admin API)")
    .description(
      "Run the token service: SQLite in the data directory, or PostgreSQL with " +
        "SVC_DATABASE_URL. Listens on SVC_TOKEN_HOST (default 127.0.0.1).",
    )
    .addOption(
      new Option("--port <n>", "port, 0 = any free one (default: SVC_TOKEN_PORT, else 17480)")
        .argParser(portArg),
    )
    .addOption(dataDirOption())
    .addOption(
      new Option(
        "--min-agent-version <x.y.z>",
        "agents below it answer 426 (default: SVC_MIN_AGENT_VERSION)",
      ).argParser(textArg),
    )
    .action((_o, cmd: Command) => runTokenService(cli, cmd));
  service.command("encrypt-keys")
    .summary("encrypt the stored signing keys with SVC_SIGNING_KEY_SECRET")
    .description(
      "Re-encrypt every signing key in the database (SVC_DATABASE_URL, else the data " +
        "directory) with SVC_SIGNING_KEY_SECRET: keys stored in plain text and keys of " +
        "SVC_SIGNING_KEY_SECRET_PREVIOUS. Set the secret on every running instance first.",
    )
    .addOption(dataDirOption())
    .addOption(jsonOption("print {items, secretFingerprint} as JSON"))
    .action((_o, cmd: Command) => encryptKeys(cli, cmd));
  service.command("admin-invite")
    .summary("print a one-time link that makes an administrator of the desk ({url}/admin)")
    .description(
      "Print a one-time link (30 minutes) that signs a new administrator in to the desk at " +
        "{url}/admin, where they create their passkey. The first administrator comes this " +
        "way; an administrator invites the next ones from the desk.",
    )
    .requiredOption("--email <address>", "the administrator's e-mail")
    .addOption(
      new Option("--url <url>", "the service's public URL (default: SVC_TOKEN_ISSUER)")
        .argParser(textArg),
    )
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => adminInvite(cli, cmd));
  return service;
}
