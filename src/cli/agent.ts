/**
 * `agent`: run the agent on 127.0.0.1 (phase 2 of its start when phase 1 already listens, see
 * src/cli/agent_early.ts), and its tools: `doctor`, `install-autostart`, `uninstall-autostart`,
 * `trust-certificate` (docs/running.md, docs/https.md).
 * @module
 */
import { Command, Option } from "commander";
import type { AgentConfig } from "../config.ts";
import { lockAgent } from "./agent_early.ts";
import type { Cli } from "./context.ts";
import { dataDirOf, dataDirOption, jsonOption, optsOf, portArg, textArg } from "./options.ts";
import { cliLogger, printJson, say } from "./output.ts";
import { removeSignal, shutdownOnSignal, SIGNALS } from "./process.ts";

interface AgentFlags extends Record<string, unknown> {
  port?: number;
  dataDir?: string;
  tokenService?: string;
  json?: boolean;
}

const tokenServiceOption = () =>
  new Option(
    "--token-service <url>",
    "the token service (default: SVC_TOKEN_SERVICE_URL, else http://127.0.0.1:17480)",
  ).argParser(textArg);

/**
 * Load one module after a macrotask turn: while phase 1 serves `/health`, no load blocks the
 * event loop longer than one module group (BENCHMARKS.md § Agent cold start).
 */
const step = <T>(load: () => Promise<T>) => new Promise<void>((r) => setTimeout(r, 0)).then(load);

/** The agent's settings: flags over SVC_* variables (src/config.ts), one data directory. */
async function agentConfig(cli: Cli, cmd: Command): Promise<AgentConfig> {
  const o = optsOf<AgentFlags>(cmd);
  await step(() => import("zod"));
  const { AGENT_ENV, AgentConfig, loadConfig } = await step(() => import("../config.ts"));
  return loadConfig(AgentConfig, AGENT_ENV, cli.env, {
    port: o.port,
    dataDir: dataDirOf(cli, cmd),
    tokenServiceUrl: o.tokenService,
  });
}

/** `agent`: phase 2 of the start (or the whole start when phase 1 did not run). */
async function runAgent(cli: Cli, cmd: Command): Promise<void> {
  const p1 = cli.phase1 ?? null;
  const failEarly = async () => {
    p1?.early.handler.failed();
    await p1?.lock.release();
  };
  let cfg: AgentConfig;
  try {
    cfg = await agentConfig(cli, cmd);
    if (p1 && (cfg.port !== p1.settings.port || cfg.dataDir !== p1.settings.dataDir)) {
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
    });
  } catch (err) {
    await failEarly();
    await lock.release();
    throw err;
  }
  if (p1) { for (const sig of SIGNALS) removeSignal(sig, p1.stopEarly); }
  const { url, tlsUrl, server, journal, confirmations } = started;
  if (!p1) {
    await lock.update(server.addr.port);
    say(cli, `Agent: ${url}`);
  }
  globalThis.addEventListener("unload", () => lock.releaseSync());
  shutdownOnSignal(server, log, async () => {
    journal.close();
    await lock.release();
  }, () => confirmations.declineAllPending());
  if (tlsUrl) say(cli, `Agent (HTTPS): ${tlsUrl}`);
  say(cli, `Agent ready: ${url} (${Math.round(performance.now() - (p1?.t0 ?? 0))} ms)`);
  cli.serving = true;
}

/** `agent doctor`: the machine's checks; exit 1 when one failed. */
async function doctor(cli: Cli, cmd: Command): Promise<void> {
  const cfg = await agentConfig(cli, cmd);
  const { doctorExitCode, formatDoctorReport, runDoctor } = await import(
    "../agent/doctor/mod.ts"
  );
  const checks = await runDoctor({ dataDir: cfg.dataDir, tokenServiceUrl: cfg.tokenServiceUrl });
  cli.exitCode = doctorExitCode(checks);
  if (optsOf<AgentFlags>(cmd).json) printJson(cli, { ok: cli.exitCode === 0, checks });
  else say(cli, formatDoctorReport(checks));
}

/** `agent install-autostart` / `uninstall-autostart`. */
async function autostart(cli: Cli, install: boolean): Promise<void> {
  const [{ agentCommand, installAutostart, uninstallAutostart }, { denoCommandRunner }] =
    await Promise.all([import("../agent/host/mod.ts"), import("../signing/mod.ts")]);
  const opts = {
    os: cli.os as "linux" | "darwin" | "windows",
    env: cli.env,
    command: agentCommand(cli.execPath, cli.mainModule),
    run: denoCommandRunner,
  };
  const st = install ? await installAutostart(opts) : await uninstallAutostart(opts);
  say(cli, `${st.installed ? "Installed" : "Not installed"} (${st.method}): ${st.location}`);
  say(cli, st.detail);
}

/** `agent trust-certificate`: add the loopback CA to this user's trust store. */
async function trustCertificate(cli: Cli, cmd: Command): Promise<void> {
  const cfg = await agentConfig(cli, cmd);
  const { ensureLoopbackTls, trustCommands } = await import("../agent/tls/mod.ts");
  const tls = await ensureLoopbackTls(cfg.dataDir, new Date(cli.clock.now()));
  for (const [prog, args] of trustCommands(cli.os, tls.caFile, cli.env.HOME)) {
    say(cli, `$ ${prog} ${args.join(" ")}`);
    const out = await new Deno.Command(prog, { args }).output().catch((e: Error) => {
      throw new Error(
        `Cannot run ${prog} (${e.message}); trust ${tls.caFile} by hand (see docs/https.md).`,
      );
    });
    if (!out.success) {
      throw new Error(`${prog} failed; trust ${tls.caFile} by hand (see docs/https.md).`);
    }
  }
  say(
    cli,
    `Trusted the agent's loopback CA (${tls.caFile}); it is valid only for localhost/127.0.0.1/::1.`,
  );
}

/**
 * The `agent` command with its subcommands.
 * @param cli the run's context
 * @returns the command
 */
export function agentCommand(cli: Cli): Command {
  const agent = new Command("agent")
    .summary("run the agent on 127.0.0.1 (and its tools: doctor, autostart, HTTPS trust)")
    .description(
      "Run the agent on 127.0.0.1 (port 17470, else 17471–17479). One agent per user and data " +
        "directory: a second start prints the running one and exits 0.",
    )
    .addOption(
      new Option("--port <n>", "port, 0 = any free one (default: SVC_AGENT_PORT, else 17470)")
        .argParser(portArg),
    )
    .addOption(dataDirOption())
    .addOption(tokenServiceOption())
    .action((_o, cmd: Command) => runAgent(cli, cmd));
  agent.command("doctor")
    .summary("check this machine; exit 1 when a check failed")
    .description(
      "Check this machine: the agent's port, the token service and its JWKS, the clock, the " +
        "data directory, the senders' key stores and PKCS#11 middleware. Exit 1 when a check " +
        "failed.",
    )
    .addOption(dataDirOption())
    .addOption(tokenServiceOption())
    .addOption(jsonOption("print the checks as JSON"))
    .action((_o, cmd: Command) => doctor(cli, cmd));
  agent.command("install-autostart")
    .description("start the agent at login (LaunchAgent, Run key or XDG autostart)")
    .action(() => autostart(cli, true));
  agent.command("uninstall-autostart")
    .description("stop starting the agent at login")
    .action(() => autostart(cli, false));
  agent.command("trust-certificate")
    .description("trust the agent's loopback HTTPS CA for this user (SVC_AGENT_TLS_PORT)")
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => trustCertificate(cli, cmd));
  return agent;
}
