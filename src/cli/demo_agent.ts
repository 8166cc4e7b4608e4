/**
 * `demo --agent-data-dir` (docs/running.md § The demo with your own agent): the demo's token
 * service trusted by the accountant's own agent — the data folder with their senders and
 * journal — and an example that files a test-mode VAT return in a sender's name.
 *
 * An agent trusts one token service: the one it was started with (`--token-service`,
 * `SVC_TOKEN_SERVICE_URL`), whose JWKS (`/.well-known/jwks.json`) verifies every token and whose
 * URL is the tokens' issuer; nothing about it is kept in the data folder. So:
 *
 * - **the folder's agent runs** (its `agent.running.json` names its token service): the demo's
 *   token service listens on that very URL when it is a free loopback port (an agent installed
 *   without a token service of its own has `http://127.0.0.1:17480`); any other URL is refused
 *   with what to do (stop the agent; the demo then starts it);
 * - **no agent runs for the folder**: the demo starts it in this process with the folder's
 *   lock, trusting the demo's token service, until Ctrl+C.
 *
 * The demo's token service keeps its data in a temporary folder (removed on stop).
 * @module
 */
import { consoleLinkOf } from "./agent_open.ts";
import { packagedAssets } from "./agent_settings.ts";
import type { Cli } from "./context.ts";
import type { OwnAgent } from "../agent/start/mod.ts";
import type { RunningTokenService } from "./token_servers.ts";
import { silentLogger } from "../log.ts";
import { cliLogger, say } from "./output.ts";
import { shutdownOnSignal } from "./process.ts";
import { demoFilingExample } from "./texts.ts";
import { sayDemoPages } from "./demo_sandbox.ts";
import { UserError } from "../user_error.ts";

/** What `demo --agent-data-dir` is given. */
export interface OwnAgentDemoFlags {
  /** The agent's port when the demo starts it (default: SVC_AGENT_PORT, else 17470). */
  readonly port?: number;
  /** The accountant's agent's data folder (resolved: flag, SVC_DATA_DIR or the OS default). */
  readonly agentDataDir: string;
  /** The company of the example (default 121212121, a company of the test portal). */
  readonly eik?: string;
}

/** The example's VAT period: the month before the clock's, as `{year, month}`. */
export function previousMonth(nowMs: number): { year: number; month: number } {
  const d = new Date(nowMs);
  const m = d.getUTCMonth(); // 0-based: this month's index is the previous month's number
  return m === 0
    ? { year: d.getUTCFullYear() - 1, month: 12 }
    : { year: d.getUTCFullYear(), month: m };
}

/**
 * Whether a running agent's token service URL is one the demo can serve itself: plain HTTP on
 * a loopback name with an explicit or default port.
 * @param url the agent's `tokenServiceUrl`
 * @returns host and port to listen on, or null
 */
export function loopbackTokenUrl(url: string): { host: string; port: number } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" || (u.pathname !== "/" && u.pathname !== "")) return null;
  if (u.hostname !== "127.0.0.1" && u.hostname !== "localhost") return null;
  return { host: "127.0.0.1", port: Number(u.port || 80) };
}

/**
 * Run the demo against the accountant's agent; it serves until Ctrl+C.
 * @param cli the run's context
 * @param o the agent's data folder, port, the example's company
 * @throws UserError in sentences: the folder's agent trusts a token service the demo cannot stand in
 *   for, it is still starting, or the demo's token service cannot take the agent's URL
 */
export async function runOwnAgentDemo(cli: Cli, o: OwnAgentDemoFlags): Promise<void> {
  const [keys, start, senders] = await Promise.all([
    import("../token/mod.ts"),
    import("../agent/start/mod.ts"),
    import("../agent/senders/mod.ts"),
  ]);
  const dir = o.agentDataDir;
  const own = await start.findOwnAgent(dir, { os: cli.os });
  const ts = await startDemoTokenService(cli, dir, own);
  const agent = own ? joinRunningAgent(cli, dir, own, ts) : await startFolderAgent(
    cli,
    dir,
    o.port ?? cli.env.SVC_AGENT_PORT ?? start.AGENT_PORTS[0],
    ts,
  );
  const { secret } = await keys.createApiKey(ts.running.store, {
    mode: "test",
    now: cli.clock.now(),
    label: "demo",
  });
  const file = await senders.readAgentFile(dir);
  const sender = file.senders.filter((s) => s.active)[0] ?? null;
  const link = await printDemo(cli, o, dir, ts, agent, secret, sender);
  if (link && cli.env.SVC_OPEN_BROWSER !== "never") {
    const { systemBrowserOpener } = await import("../agent/host/mod.ts");
    systemBrowserOpener(cliLogger(cli, "warn"), cli.os)(link);
  }
  cli.serving = true;
}

/** The demo's token service, running, and how to stop it (and remove its folder). */
interface DemoTokenService {
  readonly running: RunningTokenService;
  /** Its data folder (temporary). */
  readonly dataDir: string;
  readonly stop: () => Promise<void>;
}

/** The agent the demo files through: its URL, its console link, started by the demo or not. */
interface DemoAgent {
  readonly url: string;
  readonly consoleLink: () => Promise<string>;
  readonly started: boolean;
}

/**
 * Where the demo's token service listens: the running agent's own token service URL (a
 * loopback one the demo can stand in for), or any free port for an agent the demo starts.
 */
function demoTokenServiceAt(
  dir: string,
  own: OwnAgent | null,
  envIssuer: string | undefined,
): { listen: { host: string; port: number }; issuer?: string } {
  if (own?.state === "starting") {
    throw new UserError(
      `The agent of ${dir} is still starting; run the demo again in a few seconds.`,
    );
  }
  if (!own) {
    // SVC_TOKEN_ISSUER, when set, is the public URL (and its port, when a loopback one).
    const issuer = envIssuer?.replace(/\/$/, "") || undefined;
    const port = (issuer && loopbackTokenUrl(issuer)?.port) || 0;
    return { listen: { host: "127.0.0.1", port }, ...(issuer ? { issuer } : {}) };
  }
  const trusted = own.tokenServiceUrl;
  const at = trusted ? loopbackTokenUrl(trusted) : null;
  if (!trusted || !at) {
    throw new UserError(
      `The agent of ${dir} runs (port ${own.port}) and trusts the token service ` +
        `${trusted ?? "(not recorded)"}, which the demo cannot stand in for. Stop that agent ` +
        "(Ctrl+C, or close it from the tray/console), then run the demo again: it starts " +
        "the agent of this folder itself, trusting the demo's token service until you stop it.",
    );
  }
  return { listen: at, issuer: trusted.replace(/\/$/, "") };
}

/** Start the demo's token service in a temporary folder (docs/architecture.md § The start). */
async function startDemoTokenService(
  cli: Cli,
  dir: string,
  own: OwnAgent | null,
): Promise<DemoTokenService> {
  const { serveDemoTokenService } = await import("./token_run.ts");
  const { listen, issuer } = demoTokenServiceAt(dir, own, cli.env.SVC_TOKEN_ISSUER);
  const tsDir = await Deno.makeTempDir({ prefix: "svc-demo-ts-" });
  let ts: RunningTokenService;
  try {
    ts = await serveDemoTokenService(cli, {
      port: listen.port,
      host: listen.host,
      dataDir: tsDir,
      ...(issuer ? { issuer } : {}),
    });
  } catch (e) {
    await Deno.remove(tsDir, { recursive: true }).catch(() => {});
    if (e instanceof Deno.errors.AddrInUse) {
      throw new UserError(
        `The agent of ${dir} trusts the token service ${issuer}, and something already listens ` +
          "there (your own token service?). Stop the agent and run the demo again: it then " +
          "starts the agent itself, trusting the demo's token service.",
      );
    }
    throw e;
  }
  const stop = async () => {
    await ts.server.shutdown();
    await ts.service.stop();
    await ts.store.close();
    await Deno.remove(tsDir, { recursive: true }).catch(() => {});
  };
  return { running: ts, dataDir: tsDir, stop };
}

/** The folder's agent already runs: the demo files through it and stops only its own service. */
function joinRunningAgent(cli: Cli, dir: string, own: OwnAgent, ts: DemoTokenService): DemoAgent {
  shutdownOnSignal(ts.running.server, silentLogger, ts.stop);
  return {
    url: `http://127.0.0.1:${own.port}`,
    consoleLink: () => consoleLinkOf(dir, cli.os),
    started: false,
  };
}

/** Start the folder's agent, trusting the demo's token service, until Ctrl+C stops both. */
async function startFolderAgent(
  cli: Cli,
  dir: string,
  port: string | number | undefined,
  ts: DemoTokenService,
): Promise<DemoAgent> {
  const { AgentConfig } = await import("../config.ts");
  const { lockAgent } = await import("./agent_lock.ts");
  const lock = await lockAgent(dir, { clock: cli.clock, print: (l) => say(cli, l) });
  if (!lock) {
    await ts.stop();
    throw new UserError(`Another agent of ${dir} has just started; run the demo again.`);
  }
  const [{ openAgentStores }, { serveAgent }] = await Promise.all([
    import("./agent_stores.ts"),
    import("./agent_servers.ts"),
  ]);
  let agent;
  try {
    // The agent's stores and servers steps (docs/architecture.md § The start).
    const cfg = AgentConfig.parse({
      port,
      dataDir: dir,
      tokenServiceUrl: ts.running.url,
      openBrowser: cli.env.SVC_OPEN_BROWSER === "never" ? "never" : "auto",
      peerCheck: cli.env.SVC_PEER_CHECK === "off" ? "off" : "on",
    });
    agent = await serveAgent(cfg, await openAgentStores(cfg, cliLogger(cli, "info"), cli), {
      os: cli.os,
      clock: cli.clock,
      ...(await packagedAssets(cli.mainModule)),
    });
  } catch (e) {
    await lock.release();
    await ts.stop();
    throw e;
  }
  await lock.update(agent.server.addr.port);
  const a = agent;
  const stopAgent = async () => {
    await a.stop();
    await a.server.shutdown();
    a.journal.close();
    await lock.release();
  };
  shutdownOnSignal(a.server, silentLogger, async () => {
    await stopAgent();
    await ts.stop();
  }, () => a.confirmations.declineAllPending());
  return { url: a.url, consoleLink: () => Promise.resolve(a.consoleLink()), started: true };
}

/** Print what the demo runs and the filing example; returns the console link (null: none). */
async function printDemo(
  cli: Cli,
  o: OwnAgentDemoFlags,
  dir: string,
  ts: DemoTokenService,
  agent: DemoAgent,
  secret: string,
  sender: { id: string; displayName: string } | null,
): Promise<string | null> {
  const tsUrl = ts.running.listenUrl;
  say(cli, `Agent data folder: ${dir}`);
  const at = tsUrl === ts.running.url ? "" : ` (listening on ${tsUrl})`;
  say(cli, `Token service: ${ts.running.url}${at}`);
  sayDemoPages(cli, ts.running, ts.dataDir);
  say(
    cli,
    `Agent: ${agent.url} (${
      agent.started ? "started by the demo for this folder until you stop it" : "already running"
    })`,
  );
  const link = await agent.consoleLink().catch(() => null);
  if (link) say(cli, `Console (one-time link, 10 minutes): ${link}`);
  say(cli, `Test key: ${secret}`);
  if (sender) {
    say(cli, `Sender: ${sender.displayName} (${sender.id})`);
  } else {
    say(
      cli,
      "! No certificate in this data folder yet: add yours in the console (Senders), then " +
        "run the example; until then the test portal's test sender files it.",
    );
  }
  const eik = o.eik ?? "121212121";
  say(
    cli,
    demoFilingExample(tsUrl, agent.url, secret, cli.os, {
      eik,
      ...previousMonth(cli.clock.now()),
      senderId: sender?.id ?? null,
    }),
  );
  say(
    cli,
    "\nWhat stays in the data folder: the filing, marked test mode, in the journal (Filings, " +
      "exports); the demo's caller in callers.json. The agent trusts this token service only " +
      "while the demo runs (docs/running.md § The demo with your own agent). Stop with Ctrl+C.",
  );
  return link;
}
