/**
 * `demo` (`deno task start`, README § Two commands): a token service and an agent on loopback
 * in a fresh temporary folder (removed on Ctrl+C), a new test key, the console opened with a
 * one-time link, and two copy-paste examples. With `--agent-data-dir`, the accountant's own agent
 * instead (src/cli/demo_agent.ts).
 * @module
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_AGENT_PORT, joinPath } from "../defaults.ts";
import { packagedAssets } from "./agent_settings.ts";
import { loopbackTokenUrl } from "./demo_agent.ts";
import type { Cli } from "./context.ts";
import { portArg, textArg } from "./options.ts";
import { silentLogger } from "../log.ts";
import { cliLogger, say } from "./output.ts";
import { shutdownOnSignal } from "./process.ts";
import { demoExample } from "./texts.ts";
import { sayDemoPages } from "./demo_sandbox.ts";
import { UserError } from "../user_error.ts";

interface DemoFlags {
  port?: number;
  dataDir?: string;
  /** `--agent-data-dir` alone: true (the agent's usual data folder); with a folder: it. */
  agentDataDir?: string | true;
  eik?: string;
}

/** Start both programs and print the key and examples; they serve until Ctrl+C. */
async function runDemo(cli: Cli, o: DemoFlags): Promise<void> {
  if (o.agentDataDir !== undefined) {
    if (o.dataDir) throw new UserError("--data-dir and --agent-data-dir cannot be used together.");
    const { runOwnAgentDemo } = await import("./demo_agent.ts");
    const { resolveDataDir } = await import("./data_dir.ts");
    const agentDataDir = o.agentDataDir === true
      ? resolveDataDir(undefined, cli.env, cli.os)
      : o.agentDataDir;
    return runOwnAgentDemo(cli, {
      agentDataDir,
      ...(o.port !== undefined ? { port: o.port } : {}),
      ...(o.eik ? { eik: o.eik } : {}),
    });
  }
  // A fresh directory unless --data-dir: the demo never touches the user's SVC_DATA_DIR.
  const base = o.dataDir ?? await Deno.makeTempDir({ prefix: "svc-demo-" });
  const { ts, agent } = await startBoth(cli, o, base);
  const { secret } = await (await import("../token/mod.ts")).createApiKey(ts.store, {
    mode: "test",
    now: cli.clock.now(),
    label: "demo",
  });
  // Ctrl+C: both servers stop after their running requests, and a temporary folder goes.
  const stopBoth = async () => {
    await agent.stop();
    await Promise.all([agent.server.shutdown(), ts.server.shutdown()]);
    await ts.service.stop();
    await ts.store.close();
    agent.journal.close();
    if (!o.dataDir) await Deno.remove(base, { recursive: true }).catch(() => {});
  };
  shutdownOnSignal(
    agent.server,
    silentLogger,
    stopBoth,
    () => agent.confirmations.declineAllPending(),
  );
  const link = agent.consoleLink();
  say(cli, `Data folder: ${base}${o.dataDir ? "" : " (removed when you stop the demo)"}`);
  const at = ts.listenUrl === ts.url ? "" : ` (listening on ${ts.listenUrl})`;
  say(cli, `Token service: ${ts.url}${at}`);
  sayDemoPages(cli, ts, joinPath(cli.os, base, "token-service"));
  say(cli, `Agent: ${agent.url}`);
  if (agent.portHolder) {
    const { portHolderWords } = await import("../agent/start/mod.ts");
    const w = portHolderWords(agent.portHolder, agent.server.addr.port);
    say(cli, `! ${w.en}`);
    say(cli, `! ${w.bg}`);
  }
  say(cli, `Console (one-time link, 10 minutes): ${link}`);
  say(cli, `Test key: ${secret}`);
  // The examples call where it listens (a loopback address; `localhost` may try ::1 first).
  say(cli, demoExample(ts.listenUrl, agent.url, secret, cli.os));
  if (cli.env.SVC_OPEN_BROWSER !== "never") {
    const { systemBrowserOpener } = await import("../agent/host/mod.ts");
    systemBrowserOpener(cliLogger(cli, "warn"), cli.os)(link);
  }
  cli.serving = true;
}

/** An EIK or Bulstat: 9 or 13 digits (the example's company). */
function eikArg(v: string): string {
  if (!/^\d{9}(\d{4})?$/.test(v)) throw new InvalidArgumentError("Not an EIK (9 or 13 digits).");
  return v;
}

/** The token service (any free port, or the port of a loopback SVC_TOKEN_ISSUER) and the agent over it, in `base`: the stores and servers steps of each start
 * (docs/architecture.md § The start), with the demo's settings; the environment's operations
 * settings (SVC_SMTP_*, SVC_ADMIN_TOKEN, …) and SVC_TOKEN_ISSUER apply, the demo's outbox keeps
 * the mails (demo_sandbox.ts). */
async function startBoth(cli: Cli, o: DemoFlags, base: string) {
  const [{ AgentConfig }, { serveDemoTokenService }, { openAgentStores }, { serveAgent }] =
    await Promise.all([
      import("../config.ts"),
      import("./token_run.ts"),
      import("./agent_stores.ts"),
      import("./agent_servers.ts"),
    ]);
  const join = (...p: string[]) => joinPath(cli.os, ...p);
  const issuer = cli.env.SVC_TOKEN_ISSUER?.replace(/\/$/, "") || undefined;
  const ts = await serveDemoTokenService(cli, {
    port: (issuer && loopbackTokenUrl(issuer)?.port) || 0,
    dataDir: join(base, "token-service"),
    ...(issuer ? { issuer } : {}),
  });
  // The agent trusts the service's public URL (its tokens' issuer; `localhost` reaches it too).
  const agentCfg = AgentConfig.parse({
    port: o.port ?? cli.env.SVC_AGENT_PORT ?? DEFAULT_AGENT_PORT,
    dataDir: join(base, "agent"),
    tokenServiceUrl: ts.url,
    openBrowser: cli.env.SVC_OPEN_BROWSER === "never" ? "never" : "auto",
    peerCheck: cli.env.SVC_PEER_CHECK === "off" ? "off" : "on",
  });
  const stores = await openAgentStores(agentCfg, cliLogger(cli, "info"), cli);
  const agent = await serveAgent(agentCfg, stores, {
    os: cli.os,
    clock: cli.clock,
    ...(await packagedAssets(cli.mainModule)),
  });
  return { ts, agent };
}

/**
 * The `demo` command.
 * @param cli the run's context
 * @returns the command
 */
export function demoCommand(cli: Cli): Command {
  return new Command("demo")
    .summary("token service + agent on loopback, a fresh test key, copy-paste examples")
    .description(
      "Start a token service (any free port) and an agent on loopback in a fresh temporary " +
        "directory, create a test key, open the agent's console, and print two copy-paste " +
        "examples. Stop with Ctrl+C (the temporary directory is removed).",
    )
    .addOption(
      new Option("--port <n>", "the agent's port (default: SVC_AGENT_PORT, else 17470)")
        .argParser(portArg),
    )
    .addOption(
      new Option("--data-dir <dir>", "keep the demo's data here (default: a new temporary one)")
        .argParser(textArg),
    )
    .addOption(
      new Option(
        "--agent-data-dir [dir]",
        "use your own agent (this data folder, or without one its usual folder: SVC_DATA_DIR " +
          "or the OS default) with the demo's token service, and print an example that files " +
          "a test-mode VAT return in your sender's name (docs/running.md)",
      ),
    )
    .addOption(
      new Option("--eik <eik>", "with --agent-data-dir: the example's company (default 121212121)")
        .argParser(eikArg),
    )
    .action((o: DemoFlags) => runDemo(cli, o));
}
