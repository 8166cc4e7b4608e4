/**
 * Running the agent: its configuration and phase 2 of its start (src/cli/agent_early.ts has
 * phase 1). No commander here: main.ts calls {@link runAgent} directly when phase 1 read the
 * command line, so the resident agent never loads the CLI library.
 * @module
 */
import type { AutostartControl } from "../agent/console/mod.ts";
import type { AgentConfig } from "../config.ts";
import { autostartOptions } from "./first_start.ts";
import { lockAgent, type Phase1 } from "./agent_early.ts";
import type { Cli, CliContext, CliOutcome } from "./context.ts";
import { cliLogger, failureText, note, say } from "./output.ts";
import { removeSignal, shutdownOnSignal, SIGNALS } from "./process.ts";

/** The agent's command-line flags (the data directory resolved by src/cli/data_dir.ts). */
export interface AgentRunFlags {
  readonly port?: number;
  readonly dataDir: string;
  readonly tokenService?: string;
}

/**
 * Load one module after a macrotask turn: while phase 1 serves `/health`, no load blocks the
 * event loop longer than one module group (BENCHMARKS.md § Agent cold start).
 */
const step = <T>(load: () => Promise<T>) => new Promise<void>((r) => setTimeout(r, 0)).then(load);

/**
 * The agent's settings: flags over SVC_* variables (src/config.ts), one data directory.
 * @param cli the run's context (environment)
 * @param flags the command line's flags, the data directory already resolved
 * @returns the validated configuration
 * @throws Error naming every invalid setting
 */
export async function agentConfig(cli: Cli, flags: AgentRunFlags): Promise<AgentConfig> {
  await step(() => import("zod"));
  const { AGENT_ENV, AgentConfig, loadConfig } = await step(() => import("../config.ts"));
  return loadConfig(AgentConfig, AGENT_ENV, cli.env, {
    port: flags.port,
    dataDir: flags.dataDir,
    tokenServiceUrl: flags.tokenService,
  });
}

/**
 * `agent`: phase 2 of the start (or the whole start when phase 1 did not run). Called by the
 * commander program, or by main.ts straight after phase 1 (the resident agent never loads
 * commander).
 * @param cli the run's context (`cli.serving` is set once the agent serves)
 * @param flags port, data directory (resolved), token service
 * @returns when the agent serves, or when another agent already runs (printed)
 * @throws Error when the settings are invalid or the agent cannot start (phase 1 released)
 */
export async function runAgent(cli: Cli, flags: AgentRunFlags): Promise<void> {
  const p1 = cli.phase1 ?? null;
  const failEarly = async () => {
    p1?.early.handler.failed();
    await p1?.lock.release();
  };
  let cfg: AgentConfig;
  try {
    cfg = await agentConfig(cli, flags);
    if (p1 && (cfg.port !== p1.settings.port || cfg.dataDir !== p1.settings.dataDir)) {
      // A programming error: phase 1 and phase 2 must read the same settings.
      throw new Error("The agent's port or data directory was read two ways (a bug).");
    }
  } catch (err) {
    await failEarly();
    throw err;
  }
  const log = cliLogger(cli, cfg.logLevel);
  const lock = p1?.lock ?? await lockAgent(cfg.dataDir, {
    clock: cli.clock,
    print: (l) => say(cli, l),
  });
  if (!lock) return; // another agent runs with this data directory: it was printed, exit 0
  const { startAgent } = await step(() => import("./serve_agent.ts"));
  let started;
  try {
    started = await startAgent(cfg, log, {
      ...(p1 ? { early: p1.early } : {}),
      ...(cli.env.SVC_TEST_HOLD_AT ? { holdAt: cli.env.SVC_TEST_HOLD_AT } : {}),
      os: cli.os,
      clock: cli.clock,
      ...(await packagedAssets(cli.mainModule)),
      autostart: await autostartControl(cli),
      osUser: cli.env.USER ?? cli.env.USERNAME ?? (await import("node:os")).userInfo().username,
    });
  } catch (err) {
    await failEarly();
    await lock.release();
    throw err;
  }
  if (p1) { for (const sig of SIGNALS) removeSignal(sig, p1.stopEarly); }
  const { url, tlsUrl, server, journal, confirmations, consoleLink, stop } = started;
  if (!p1) {
    await lock.update(server.addr.port);
    say(cli, `Agent: ${url}`);
  }
  globalThis.addEventListener("unload", () => lock.releaseSync());
  shutdownOnSignal(server, log, async () => {
    await stop();
    journal.close();
    await lock.release();
  }, () => confirmations.declineAllPending());
  if (tlsUrl) say(cli, `Agent (HTTPS): ${tlsUrl}`);
  say(cli, `Agent ready: ${url} (${Math.round(performance.now() - (p1?.t0 ?? 0))} ms)`);
  if (started.portHolder) {
    const { portHolderWords } = await import("../agent/start/mod.ts");
    const w = portHolderWords(started.portHolder, server.addr.port);
    say(cli, `! ${w.en}`);
    say(cli, `! ${w.bg}`);
  }
  cli.serving = true;
  // The portable package's first start (src/cli/first_start.ts): after the agent serves.
  const { firstStart } = await import("./first_start.ts");
  const open = (u: string) =>
    import("../agent/host/mod.ts").then((h) => h.systemBrowserOpener(log, cli.os)(u));
  firstStart(cli, cfg.dataDir, url, open, consoleLink).catch((e) =>
    log("warn", "first start", { error: e instanceof Error ? e.message : String(e) })
  );
}

/**
 * The console's start-at-login toggle, registering the same command `agent install-autostart`
 * does.
 * @param cli the run's context
 * @returns the control
 */
export async function autostartControl(cli: Cli): Promise<AutostartControl> {
  const [host, opts] = await Promise.all([import("../agent/host/mod.ts"), autostartOptions(cli)]);
  return {
    status: () => host.autostartStatus(opts),
    set: (on) => on ? host.installAutostart(opts) : host.uninstallAutostart(opts),
  };
}

/**
 * Swagger UI's files beside the program when it runs from the portable package
 * (`app/svc-filing.js` with `app/assets/swagger-ui-dist/`), else nothing (node_modules).
 * @param mainModule Deno.mainModule
 * @returns `{ docsAssetsDir }` or `{}`
 */
export async function packagedAssets(mainModule: string): Promise<{ docsAssetsDir?: URL }> {
  const dir = new URL("assets/swagger-ui-dist/", mainModule);
  const found = await Deno.stat(new URL("package.json", dir)).then(() => true, () => false);
  return found ? { docsAssetsDir: dir } : {};
}

/**
 * The resident agent's start after phase 1 read the plain command line: phase 2 without the
 * commander program (the CLI library and its Node built-ins never load in the agent).
 * @param ctx the process's context with what phase 1 left running
 * @returns exit 0 and serving, or 1 after one line on stderr (phase 1's port and lock freed)
 * @throws never
 */
export async function runResidentAgent(
  ctx: CliContext & { readonly phase1: Phase1 },
): Promise<CliOutcome> {
  const cli: Cli = { ...ctx, exitCode: 0, serving: false };
  const { flags, settings } = ctx.phase1;
  try {
    await runAgent(cli, {
      ...(flags.port !== undefined ? { port: Number(flags.port) } : {}),
      dataDir: settings.dataDir,
      ...(flags.tokenService !== undefined ? { tokenService: flags.tokenService } : {}),
    });
    return { code: cli.exitCode, serving: cli.serving };
  } catch (e) {
    note(cli, failureText(e));
    return { code: 1, serving: false };
  } finally {
    if (!cli.serving) {
      ctx.phase1.early.handler.failed();
      await ctx.phase1.lock.release();
    }
  }
}
