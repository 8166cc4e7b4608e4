/**
 * The agent's start, step 1 of 6 (docs/architecture.md § The start): its settings — the
 * configuration (flags over SVC_* variables, src/config.ts) checked against what phase 1 read,
 * the process's logger, and what the environment says of this installation: the portable
 * package's launcher and Swagger UI files, how it registers itself at login, the OS user, the
 * crash tests' hold point. Nothing is opened or started here.
 * @module
 */
import type { AgentConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Cli } from "./context.ts";
import type { Phase1 } from "./agent_early.ts";
import { cliLogger } from "./output.ts";
import { afterTurn } from "./process.ts";

/** The agent's command-line flags (the data directory resolved by src/cli/data_dir.ts). */
export interface AgentRunFlags {
  readonly port?: number | undefined;
  readonly dataDir: string;
  readonly tokenService?: string | undefined;
}

/** How this program registers itself at login and for `svc-agent://start` links. */
export interface AutostartOptions {
  readonly os: "linux" | "darwin" | "windows";
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The command the OS runs: the package's launcher + `agent`, or the runtime + this program. */
  readonly command: string[];
  readonly run: typeof import("../command_runner.ts").denoCommandRunner;
}

/** Everything the later steps of the start read, decided once. */
export interface AgentSettings {
  readonly cfg: AgentConfig;
  /** The process's JSON-lines logger at the configured level. */
  readonly log: Logger;
  /** The package's launcher when this runs from the portable package, else null. */
  readonly launcher: string | null;
  /** Swagger UI's files beside the program in the portable package, else none. */
  readonly docsAssetsDir?: URL;
  readonly autostart: AutostartOptions;
  /** The OS user's name (who resolved an unknown filing in the console). */
  readonly osUser: string;
  /** SVC_TEST_HOLD_AT (crash tests): a filing stops for good at this point of the journal. */
  readonly holdAt?: string;
}

/**
 * The agent's configuration: flags over SVC_* variables (src/config.ts), one data directory.
 * zod and the config load one per macrotask turn, so phase 1 keeps answering `/health`.
 * @param cli the run's context (environment)
 * @param flags the command line's flags, the data directory already resolved
 * @returns the validated configuration
 * @throws Error naming every invalid setting
 */
export async function agentConfig(cli: Cli, flags: AgentRunFlags): Promise<AgentConfig> {
  await afterTurn(() => import("zod"));
  const { AgentConfig, loadConfig } = await afterTurn(() => import("../config.ts"));
  return loadConfig(AgentConfig, cli.env, {
    port: flags.port,
    dataDir: flags.dataDir,
    tokenServiceUrl: flags.tokenService,
  });
}

/**
 * Step 1: read the settings.
 * @param cli the run's context
 * @param flags port, data directory (resolved), token service
 * @param p1 what phase 1 left running, or null
 * @returns the settings
 * @throws Error naming every invalid setting
 */
export async function readAgentSettings(
  cli: Cli,
  flags: AgentRunFlags,
  p1: Phase1 | null,
): Promise<AgentSettings> {
  const cfg = await agentConfig(cli, flags);
  if (p1 && (cfg.port !== p1.settings.port || cfg.dataDir !== p1.settings.dataDir)) {
    // A programming error: phase 1 and phase 2 must read the same settings.
    throw new Error("The agent's port or data directory was read two ways (a bug).");
  }
  const launcher = await packageLauncher(cli);
  return {
    cfg,
    log: cliLogger(cli, cfg.logLevel),
    launcher,
    ...(await packagedAssets(cli.mainModule)),
    autostart: await autostartOptions(cli, launcher),
    osUser: cli.env.USER ?? cli.env.USERNAME ?? (await import("node:os")).userInfo().username,
    ...(cli.env.SVC_TEST_HOLD_AT ? { holdAt: cli.env.SVC_TEST_HOLD_AT } : {}),
  };
}

/**
 * The package's launcher when this program runs from the portable package.
 * @param cli the run's context (mainModule, OS)
 * @returns the launcher's absolute path, or null (running from source)
 */
export async function packageLauncher(cli: Pick<Cli, "mainModule" | "os">): Promise<string | null> {
  if (!cli.mainModule.endsWith("/app/svc-filing.js")) return null;
  const url = new URL(cli.os === "windows" ? "../svc-filing.cmd" : "../svc-filing", cli.mainModule);
  if (!(await Deno.stat(url).then((s) => s.isFile, () => false))) return null;
  const path = decodeURIComponent(url.pathname);
  return cli.os === "windows" ? path.replace(/^\/([A-Za-z]:)/, "$1").replaceAll("/", "\\") : path;
}

/**
 * The program the OS starts in the background (at login, for a `svc-agent://` link): on Windows
 * the package's `svc-filing.exe` when it is there (no console window; docs/install.md § Windows:
 * the installed program), else the package's launcher.
 * @param cli the run's context (mainModule, OS)
 * @param launcher the package's launcher (from {@link packageLauncher})
 * @returns the path, or null (running from source)
 */
export async function backgroundLauncher(
  cli: Pick<Cli, "mainModule" | "os">,
  launcher: string | null,
): Promise<string | null> {
  if (!launcher || cli.os !== "windows") return launcher;
  const exe = launcher.replace(/\.cmd$/i, ".exe");
  const url = new URL("../svc-filing.exe", cli.mainModule);
  return (await Deno.stat(url).then((s) => s.isFile, () => false)) ? exe : launcher;
}

/**
 * How this program registers itself at login: the package's background launcher
 * (`<svc-filing.exe | launcher> agent`, {@link backgroundLauncher}), or the command that started
 * it from source (`agentCommand`).
 * @param cli the run's context (OS, environment, paths)
 * @param launcher the package's launcher when already known (else looked up)
 * @returns the options of installAutostart / uninstallAutostart / autostartStatus
 */
export async function autostartOptions(
  cli: Cli,
  launcher?: string | null,
): Promise<AutostartOptions> {
  const [{ agentCommand }, { denoCommandRunner }] = await Promise.all([
    import("../agent/host/mod.ts"),
    import("../command_runner.ts"),
  ]);
  const l = await backgroundLauncher(
    cli,
    launcher === undefined ? await packageLauncher(cli) : launcher,
  );
  return {
    os: cli.os as "linux" | "darwin" | "windows",
    env: cli.env,
    command: l ? [l, "agent"] : agentCommand(cli.execPath, cli.mainModule),
    run: denoCommandRunner,
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
