/**
 * Running the token service: its start as four steps, one function and file each
 * (docs/architecture.md § The start): settings (token_settings.ts) → store
 * (token_service_store.ts) → server (token_servers.ts) → serve (token_serving.ts). The
 * `token-service` command runs all four ({@link runTokenService}); both demos run the first three
 * with the demo's settings ({@link serveDemoTokenService}). Loaded when one of them starts.
 * @module
 */
import { TokenServiceConfig } from "../config.ts";
import type { Cli } from "./context.ts";
import { demoServing } from "./demo_sandbox.ts";
import { cliLogger } from "./output.ts";
import { readTokenSettings, type TokenRunFlags, tokenSettings } from "./token_settings.ts";
import { openTokenServiceStore } from "./token_service_store.ts";
import { type RunningTokenService, serveTokenService } from "./token_servers.ts";
import { serveTokenUntilSignal } from "./token_serving.ts";

/**
 * `token-service`: settings → store → server → serve; it serves until SIGINT/SIGTERM.
 * @param cli the run's context
 * @param flags port, data directory (resolved), minimum agent version
 * @returns once it serves
 * @throws Error as each step (invalid settings, a store that does not open, listen errors)
 */
export async function runTokenService(cli: Cli, flags: TokenRunFlags): Promise<void> {
  const settings = await readTokenSettings(cli.env, flags, (level) => cliLogger(cli, level));
  const store = await openTokenServiceStore(settings);
  const running = await serveTokenService(settings, store, cli.clock);
  serveTokenUntilSignal(cli, running, settings.log);
}

/** Where the demo's token service listens and keeps its data. */
export interface DemoTokenServiceAt {
  /** The port, 0 = any free one. */
  readonly port: number;
  /** The address (default: the configuration's, 127.0.0.1). */
  readonly host?: string;
  /** Its own data folder (the demo's temporary one). */
  readonly dataDir: string;
  /** Its public URL (SVC_TOKEN_ISSUER), if set. */
  readonly issuer?: string;
}

/**
 * The demo's token service: settings → store → server with the demo's configuration (warnings
 * only in the log; the environment's operations settings — SVC_SMTP_*, SVC_ADMIN_TOKEN, … —
 * apply) and the demo's outbox and pages' URL (demo_sandbox.ts). The caller stops it.
 * @param cli the run's context
 * @param at port, address, data folder, issuer
 * @returns the running service
 * @throws Error as each step; `Deno.errors.AddrInUse` when the port is taken
 */
export async function serveDemoTokenService(
  cli: Cli,
  at: DemoTokenServiceAt,
): Promise<RunningTokenService> {
  const settings = await tokenSettings(
    TokenServiceConfig.parse(at),
    cliLogger(cli, "warn"),
    cli.env,
  );
  return await serveTokenService(
    settings,
    await openTokenServiceStore(settings),
    cli.clock,
    demoServing(cli),
  );
}
