/**
 * Running the agent: its start as six steps, one function and file each (docs/architecture.md §
 * The start): settings (agent_settings.ts) → lock (agent_lock.ts) → stores (agent_stores.ts) →
 * servers (agent_servers.ts) → serve (agent_serving.ts) → first start (first_start.ts). No
 * commander here: main.ts calls {@link runResidentAgent} directly when phase 1
 * (src/cli/agent_early.ts) read the command line, so the resident agent never loads the CLI
 * library.
 * @module
 */
import { errorMessage } from "../error_message.ts";
import type { AutostartControl } from "../agent/console/mod.ts";
import { type AgentRunFlags, type AutostartOptions, readAgentSettings } from "./agent_settings.ts";
import { holdAgentLock } from "./agent_lock.ts";
import type { Phase1 } from "./agent_early.ts";
import type { Cli, CliContext, CliOutcome } from "./context.ts";
import { failureText, note, say } from "./output.ts";
import { afterTurn } from "./process.ts";
import { serveUntilSignal } from "./agent_serving.ts";

/**
 * `agent`: phase 2 of the start (or the whole start when phase 1 did not run). Called by the
 * commander program, or by main.ts straight after phase 1 (the resident agent never loads
 * commander).
 * @param cli the run's context (`cli.serving` is set once the agent serves)
 * @param flags port, data directory (resolved), token service
 * @returns when the agent serves, or when another agent already runs (printed)
 * @throws Error when the settings are invalid or the agent cannot start (its lock released;
 *   phase 1's server and lock are released by {@link runResidentAgent})
 */
export async function runAgent(cli: Cli, flags: AgentRunFlags): Promise<void> {
  const p1 = cli.phase1 ?? null;
  const settings = await readAgentSettings(cli, flags, p1);
  const { cfg, log } = settings;
  const lock = await holdAgentLock(cfg.dataDir, p1?.lock ?? null, {
    clock: cli.clock,
    print: (l) => say(cli, l),
  });
  if (!lock) return; // another agent runs with this data directory: it was printed, exit 0
  const [{ openAgentStores }, { announceAgent, serveAgent }] = await Promise.all([
    afterTurn(() => import("./agent_stores.ts")),
    afterTurn(() => import("./agent_servers.ts")),
  ]);
  let agent;
  try {
    const stores = await openAgentStores(cfg, log, cli);
    agent = await serveAgent(cfg, stores, {
      ...(p1 ? { early: p1.early } : {}),
      ...(settings.holdAt ? { holdAt: settings.holdAt } : {}),
      os: cli.os,
      clock: cli.clock,
      ...(settings.docsAssetsDir ? { docsAssetsDir: settings.docsAssetsDir } : {}),
      autostart: await autostartControl(settings.autostart),
      osUser: settings.osUser,
      program: (await import("./program_name.ts")).programName(cli),
    });
  } catch (err) {
    await lock.release();
    throw err;
  }
  await announceAgent(cli, agent, lock, p1 !== null);
  serveUntilSignal(cli, agent, lock, p1, log);
  // Once it serves: the portable package's first start (it may wait for an answer).
  const { firstStart } = await import("./first_start.ts");
  const open = (u: string) =>
    import("../agent/host/mod.ts").then((h) => h.systemBrowserOpener(log, cli.os)(u));
  firstStart(cli, cfg.dataDir, settings, agent.url, open, agent.consoleLink).catch((e) =>
    log("warn", "first start", { error: errorMessage(e) })
  );
}

/**
 * The console's start-at-login toggle, registering the same command `agent install-autostart`
 * does.
 * @param opts how this program registers itself (step 1's settings)
 * @returns the control
 */
async function autostartControl(opts: AutostartOptions): Promise<AutostartControl> {
  const host = await import("../agent/host/mod.ts");
  return {
    status: () => host.autostartStatus(opts),
    set: (on) => on ? host.installAutostart(opts) : host.uninstallAutostart(opts),
  };
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
