/**
 * `agent`: run the agent on 127.0.0.1 (phase 2 of its start when phase 1 already listens, see
 * src/cli/agent_early.ts), and its tools: `open`, `stop`, `doctor`, `install-autostart`, `uninstall-autostart`,
 * `trust-certificate` (docs/running.md, docs/https.md).
 * @module
 */
import { Command, Option } from "commander";
import { runAgent } from "./agent_run.ts";
import {
  agentConfig,
  type AgentRunFlags,
  autostartOptions,
  backgroundLauncher,
  packageLauncher,
} from "./agent_settings.ts";
import type { Cli } from "./context.ts";
import {
  countArg,
  dataDirOf,
  dataDirOption,
  jsonOption,
  optsOf,
  portArg,
  textArg,
} from "./options.ts";
import { printJson, say } from "./output.ts";
import { addUpdateCommands } from "./update.ts";
import { UserError } from "../user_error.ts";

interface AgentFlags extends Record<string, unknown> {
  port?: number;
  dataDir?: string;
  tokenService?: string;
  json?: boolean;
}

/** The agent's flags as commander parsed them, with the data directory resolved. */
function runFlags(cli: Cli, cmd: Command): AgentRunFlags {
  const o = optsOf<AgentFlags>(cmd);
  return { port: o.port, dataDir: dataDirOf(cli, cmd), tokenService: o.tokenService };
}

const tokenServiceOption = () =>
  new Option(
    "--token-service <url>",
    "the token service (default: SVC_TOKEN_SERVICE_URL, else http://127.0.0.1:17480)",
  ).argParser(textArg);

/** `agent doctor`: the machine's checks; exit 1 when one failed. */
async function doctor(cli: Cli, cmd: Command): Promise<void> {
  const o = optsOf<AgentFlags & { lang?: "en" | "bg" }>(cmd);
  const cfg = await agentConfig(cli, runFlags(cli, cmd));
  const { doctorExitCode, formatDoctorReport, runDoctor } = await import("../agent/doctor/mod.ts");
  const { agentPortRange } = await import("../agent/start/mod.ts");
  const checks = await runDoctor({
    dataDir: cfg.dataDir,
    tokenServiceUrl: cfg.tokenServiceUrl,
    // Without --token-service, a running agent of this data folder names its own token service.
    tokenServiceSource: o.tokenService ? "flag" : "config",
    // SVC_AGENT_PORT moves the range the agent tries.
    ports: agentPortRange(cfg.port),
  });
  cli.exitCode = doctorExitCode(checks);
  if (o.json) printJson(cli, { ok: cli.exitCode === 0, checks });
  else say(cli, formatDoctorReport(checks, o.lang ?? "en"));
}

/**
 * The command the OS runs for a `svc-agent://start` link: the package's launcher when this runs
 * from the portable package, else the runtime with this program (the URL is appended; main.ts
 * turns it into `agent`).
 */
async function linkCommand(cli: Cli): Promise<string[]> {
  const launcher = await backgroundLauncher(cli, await packageLauncher(cli));
  if (launcher) return [launcher];
  const { agentCommand } = await import("../agent/host/mod.ts");
  return agentCommand(cli.execPath, cli.mainModule).slice(0, -1); // without "agent"
}

/** `agent install-url-scheme` / `uninstall-url-scheme`. */
async function urlScheme(cli: Cli, install: boolean): Promise<void> {
  const [{ installUrlScheme, uninstallUrlScheme }, { denoCommandRunner }] = await Promise.all([
    import("../agent/host/mod.ts"),
    import("../signing/mod.ts"),
  ]);
  const opts = {
    os: cli.os as "linux" | "darwin" | "windows",
    env: cli.env,
    command: await linkCommand(cli),
    run: denoCommandRunner,
  };
  const st = install ? await installUrlScheme(opts) : await uninstallUrlScheme(opts);
  say(
    cli,
    `${st.installed ? "Registered" : "Unregistered"} svc-agent:// (${st.method}): ${st.location}`,
  );
  say(cli, st.detail);
}

/** `agent install-autostart` / `uninstall-autostart`. */
async function autostart(cli: Cli, install: boolean): Promise<void> {
  const [{ installAutostart, uninstallAutostart }, opts] = await Promise.all([
    import("../agent/host/mod.ts"),
    autostartOptions(cli),
  ]);
  const st = install ? await installAutostart(opts) : await uninstallAutostart(opts);
  say(cli, `${st.installed ? "Installed" : "Not installed"} (${st.method}): ${st.location}`);
  say(cli, st.detail);
}

/** `agent trust-certificate`: add the loopback CA to this user's trust store. */
async function trustCertificate(cli: Cli, cmd: Command): Promise<void> {
  const cfg = await agentConfig(cli, runFlags(cli, cmd));
  const { ensureLoopbackTls, trustCommands } = await import("../agent/tls/mod.ts");
  const tls = await ensureLoopbackTls(cfg.dataDir, new Date(cli.clock.now()));
  if (cli.os === "windows") {
    // The Windows API, read back: certutil's exit code says nothing (a stub under Wine).
    const { trustInWindowsRoot } = await import("../signing/mod.ts");
    const body = tls.caPem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
    trustInWindowsRoot(Uint8Array.fromBase64(body));
    say(cli, "Added to the user's Root store (CertAddEncodedCertificateToStore) and read back.");
  }
  for (const [prog, args] of trustCommands(cli.os, tls.caFile, cli.env.HOME)) {
    say(cli, `$ ${prog} ${args.join(" ")}`);
    const out = await new Deno.Command(prog, { args }).output().catch((e: Error) => {
      throw new UserError(
        `Cannot run ${prog} (${e.message}); trust ${tls.caFile} by hand (see docs/https.md).`,
      );
    });
    if (!out.success) {
      throw new UserError(`${prog} failed; trust ${tls.caFile} by hand (see docs/https.md).`);
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
    .action((_o, cmd: Command) => runAgent(cli, runFlags(cli, cmd)));
  agent.command("open")
    .description(
      "open this user's agent console in the default browser (a one-time link, 10 minutes)",
    )
    .addOption(dataDirOption())
    .addOption(
      new Option("--lang <lang>", "open the console in this language (and keep it)")
        .choices(["bg", "en"]),
    )
    .action(async (_o, cmd: Command) => (await import("./agent_open.ts")).openConsole(cli, cmd));
  agent.command("stop")
    .description(
      "stop this user's running agent cleanly: filings under way finish, confirmations waiting " +
        'are declined (as on SIGTERM; the console\'s "Stop the agent" does the same)',
    )
    .addOption(dataDirOption())
    .addOption(
      new Option("--wait <seconds>", "how long to wait for the filings under way (default 120)")
        .argParser(countArg),
    )
    .action(async (_o, cmd: Command) =>
      (await import("./agent_stop.ts")).stopAgentCommand(cli, cmd)
    );
  agent.command("doctor")
    .summary("check this machine; exit 1 when a check failed")
    .description(
      "Check this machine: the agent's port (this data directory's agent and any other agents " +
        "on the machine), the token service and its JWKS (the one this data directory's running " +
        "agent uses, unless --token-service), the clock, the data directory, agent.json, the " +
        "live portal, the senders' key stores and PKCS#11 middleware. Exit 1 when a check " +
        "failed.",
    )
    .addOption(dataDirOption())
    .addOption(tokenServiceOption())
    .addOption(
      new Option("--lang <lang>", "language of the report (--json carries both)")
        .choices(["en", "bg"]).default("en"),
    )
    .addOption(jsonOption("print the checks as JSON (English and Bulgarian texts)"))
    .action((_o, cmd: Command) => doctor(cli, cmd));
  agent.command("install-autostart")
    .description("start the agent at login (LaunchAgent, Run key or XDG autostart)")
    .action(() => autostart(cli, true));
  agent.command("install-url-scheme")
    .description(
      "let pages start the agent with a svc-agent://start link (xdg-mime, HKCU\\Software\\Classes, " +
        "or the macOS app)",
    )
    .action(() => urlScheme(cli, true));
  agent.command("uninstall-url-scheme")
    .description("remove the svc-agent:// link handler")
    .action(() => urlScheme(cli, false));
  agent.command("uninstall-autostart")
    .description("stop starting the agent at login")
    .action(() => autostart(cli, false));
  agent.command("trust-certificate")
    .description("trust the agent's loopback HTTPS CA for this user (SVC_AGENT_TLS_PORT)")
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => trustCertificate(cli, cmd));
  addUpdateCommands(agent, cli);
  return agent;
}
