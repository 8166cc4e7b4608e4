/**
 * The agent's start, step 4 of 6 (docs/architecture.md § The start): its servers — the app
 * composed over the stores (the token service's JWKS and agent versions, the origins it
 * publishes, the browser opener and native pickers, the console), handed to phase 1's server or
 * served on loopback, optional HTTPS on loopback, the running record; then the lines that say
 * where it listens. Modules load one mod.ts per macrotask turn, as in step 3.
 * @module
 */
import type { ConfirmationManager } from "../agent/confirm/mod.ts";
import type { AutostartControl } from "../agent/console/mod.ts";
import type { AgentDeps } from "../agent/mod.ts";
import type { HoldPoint, Journal } from "../agent/filing/mod.ts";
import {
  agentPortRange,
  type InstanceLock,
  otherAgentsOnRange,
  type PortHolder,
  removeRunningRecordSync,
  whoHoldsPort,
  writeRunningRecord,
} from "../agent/start/mod.ts";
import type { Clock } from "../clock.ts";
import type { AgentConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import { VERSION } from "../version.ts";
import type { EarlyServer } from "./agent_early.ts";
import type { AgentStores } from "./agent_stores.ts";
import type { Cli } from "./context.ts";
import { say } from "./output.ts";
import { afterTurn, serveLoopback, serveLoopbackTls } from "./process.ts";

/** What the agent's servers need besides its configuration and stores. */
export interface AgentServeOptions {
  /** Phase 1's server: the app is handed to it instead of listening again. */
  readonly early?: EarlyServer;
  /** SVC_TEST_HOLD_AT (crash tests): a filing stops for good at this point of the journal. */
  readonly holdAt?: string;
  /** Deno.build.os (paths). */
  readonly os: string;
  readonly clock: Clock;
  /** Swagger UI's files when the portable package ships them (app/assets/), else node_modules. */
  readonly docsAssetsDir?: URL;
  /** The console's start-at-login toggle (absent: the console says it cannot manage it). */
  readonly autostart?: AutostartControl;
  /** The OS user's name (who resolved an unknown filing in the console). */
  readonly osUser?: string;
  /** The program's name as the person has it (`svc-filing`, `main.ts`): the console's
   * sentences name `<program> agent open` and `<program> agent`. */
  readonly program?: string;
}

/** A running agent. */
export interface RunningAgent {
  readonly server: Deno.HttpServer<Deno.NetAddr>;
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** `https://127.0.0.1:PORT` when SVC_AGENT_TLS_PORT is set, else null. */
  readonly tlsUrl: string | null;
  readonly journal: Journal;
  readonly confirmations: ConfirmationManager;
  /** A new one-time link that opens the console (`http://127.0.0.1:PORT/console/open?code=…`). */
  consoleLink(): string;
  /** Save what must outlive the process (the callers book); call before exit. */
  stop(): Promise<void>;
  /** Another agent on the usual port, when this one had to take another port; else null. */
  readonly portHolder: PortHolder | null;
  /** Give the console and `agent stop` the shutdown step 5 installs (the one of SIGTERM). */
  stopWith(stop: () => void): void;
}

/** Where the agent listens, known once it does (the app reads it per request). */
interface Listening {
  port: number;
  tlsPort: number | null;
  portHolder: PortHolder | null;
  /** The shutdown of SIGTERM, once step 5 installed it. */
  stop: (() => void) | null;
}

/** What the token service says of agent versions, for /health (refreshed every 10 minutes). */
function latestVersionOf(tokenServiceUrl: string): () => string | null {
  let latest: string | null = null;
  const refresh = async () => {
    try {
      const r = await fetch(new URL("/api/v1/agent-version", tokenServiceUrl), {
        signal: AbortSignal.timeout(3000),
      });
      if (r.ok) latest = (await r.json()).latest ?? null;
      else await r.body?.cancel();
    } catch { /* the token service may be unreachable; /health then reports null */ }
  };
  refresh();
  Deno.unrefTimer(setInterval(refresh, 10 * 60_000));
  return () => latest;
}

/** The other agents on the range, looked for at most every 5 s (none while this agent is the
 * one that had to take another port: the banner then names the usual port's holder). */
function otherAgentsLookup(at: Listening, range: readonly number[]) {
  let last = { at: -Infinity, found: Promise.resolve([] as PortHolder[]) };
  return (): Promise<PortHolder[]> => {
    if (at.portHolder) return Promise.resolve([]);
    const now = performance.now();
    if (now - last.at > 5_000) {
      last = { at: now, found: otherAgentsOnRange(at.port, range) };
    }
    return last.found;
  };
}

/** A filing that stops for good at the crash tests' hold point, or none. */
function holdOf(holdAt: string | undefined, log: Logger): AgentDeps["hold"] {
  if (!holdAt) return undefined;
  return (point: HoldPoint, filingId: string) => {
    if (point !== holdAt) return Promise.resolve();
    log("info", "journal hold", { point, filingId });
    return new Promise<void>(() => {}); // held until the process is killed
  };
}

/** Compose the agent's app over its stores. */
async function composeApp(
  cfg: AgentConfig,
  stores: AgentStores,
  o: AgentServeOptions,
  at: Listening,
) {
  const { createRemoteJWKSet } = await afterTurn(() => import("jose"));
  const { allowListPolicy, publishedOrigins } = await afterTurn(() =>
    import("../agent/http/mod.ts")
  );
  await afterTurn(() => import("../agent/confirm/mod.ts"));
  await afterTurn(() => import("../agent/operations/mod.ts"));
  const { createAgentApp } = await afterTurn(() => import("../agent/mod.ts"));
  const { createLocalOps } = await afterTurn(() => import("../agent/local/mod.ts"));
  const { createNativePickers, sameUserCheck, systemBrowserOpener } = await afterTurn(() =>
    import("../agent/host/mod.ts")
  );
  // One OS user per agent (docs/running.md § Shared PCs): Linux and Windows; not macOS.
  const sameUser = cfg.peerCheck === "off" ? null : sameUserCheck(o.os);
  const { file, log } = stores;
  const getKey = createRemoteJWKSet(
    new URL("/.well-known/jwks.json", cfg.tokenServiceUrl),
    { cooldownDuration: 5_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 3_000 },
  );
  const hold = holdOf(o.holdAt, log);
  const latestVersion = latestVersionOf(cfg.tokenServiceUrl);
  const originPolicy = allowListPolicy(
    file.allowedOrigins,
    publishedOrigins(cfg.tokenServiceUrl),
    () => o.clock.now(),
  );
  return createAgentApp({
    clock: o.clock,
    log,
    verifier: {
      getKey,
      issuer: cfg.issuer ?? cfg.tokenServiceUrl.replace(/\/$/, ""),
      audience: cfg.audience,
    },
    senders: file.senders,
    portals: stores.portals,
    openBrowser: cfg.openBrowser === "never" ? () => {} : systemBrowserOpener(log),
    port: () => at.port,
    tlsPort: () => at.tlsPort,
    latestVersion,
    confirmTimeoutMs: cfg.confirmTimeoutSeconds * 1000,
    rateLimits: { operationsPer10s: cfg.operationsPer10s },
    batchConcurrency: cfg.batchConcurrency,
    localOps: createLocalOps(),
    pickers: createNativePickers({ env: Deno.env.toObject() }),
    journal: stores.journal,
    ...(hold ? { hold } : {}),
    ...(o.docsAssetsDir ? { docsAssetsDir: o.docsAssetsDir } : {}),
    callers: stores.callers,
    ...(sameUser ? { sameUser } : {}),
    console: {
      dataDir: cfg.dataDir,
      tokenServiceUrl: cfg.tokenServiceUrl,
      linkSecret: stores.linkSecret,
      logs: stores.logs,
      ...(o.autostart ? { autostart: o.autostart } : {}),
      // In-process: the agent's own port is its own (not "taken"), its token service is checked.
      // Loaded when the console asks (it brings the PKCS#11 discovery): not on the start path.
      doctor: async () =>
        (await import("../agent/doctor/mod.ts")).runDoctor({
          dataDir: cfg.dataDir,
          tokenServiceUrl: cfg.tokenServiceUrl,
          selfPort: at.port,
          ports: agentPortRange(cfg.port),
        }),
      osUser: () => o.osUser || "console",
      livePortalUrl: file.portal?.baseUrl ?? null,
      portHolder: () => at.portHolder,
      // This agent on the usual port: another on the range is one too many (looked for at
      // most every 5 s, when a console page is drawn).
      otherAgents: otherAgentsLookup(at, agentPortRange(cfg.port)),
      program: o.program ?? "svc-filing",
      os: o.os,
      openCommand: `${o.program ?? "svc-filing"} agent open`,
      startCommand: `${o.program ?? "svc-filing"} agent`,
      ...(cfg.openBrowser === "never" ? {} : { openBrowser: systemBrowserOpener(log, o.os) }),
      stop: () => at.stop?.(),
    },
    originPolicy: async (origin) =>
      [`http://127.0.0.1:${at.port}`, `http://localhost:${at.port}`].includes(origin) ||
      await originPolicy(origin),
  });
}

/**
 * Step 4: compose the app and serve it; it serves until the process ends.
 * @param cfg the parsed AgentConfig
 * @param stores the open stores (step 3)
 * @param o phase 1's server (or none: listen on cfg.port with the fallback range), the hold
 *   point, the OS, the clock, the console's extras
 * @returns the server, its URLs, the journal (close it on shutdown) and the confirmations
 * @throws Error when no port of the range can be bound
 */
export async function serveAgent(
  cfg: AgentConfig,
  stores: AgentStores,
  o: AgentServeOptions,
): Promise<RunningAgent> {
  const { early, clock } = o;
  const { log } = stores;
  const at: Listening = {
    port: early?.server.addr.port ?? cfg.port,
    tlsPort: null,
    portHolder: null,
    stop: null,
  };
  const { app, confirmations, consoleSessions } = await composeApp(cfg, stores, o, at);
  const server = early?.server ?? serveLoopback(app.fetch, cfg.port);
  at.port = server.addr.port;
  // Not the usual port: is it another agent that holds it (integrators' pages talk to it)?
  if (cfg.port !== 0 && at.port !== cfg.port) {
    at.portHolder = await whoHoldsPort(cfg.port);
    if (at.portHolder) {
      log("warn", "another agent holds the usual port", {
        port: cfg.port,
        version: at.portHolder.version,
        ownPort: at.port,
      });
    }
  }
  let tlsUrl: string | null = null;
  if (cfg.tlsPort !== undefined) {
    const { ensureLoopbackTls } = await import("../agent/tls/mod.ts");
    const tls = await ensureLoopbackTls(cfg.dataDir, new Date(clock.now()));
    at.tlsPort = serveLoopbackTls(app.fetch, cfg.tlsPort, tls).addr.port;
    tlsUrl = `https://127.0.0.1:${at.tlsPort}`;
  }
  early?.handler.ready(app.fetch);
  // Which agent is this data folder's, and the token service it uses (agent doctor, the demo).
  await writeRunningRecord(cfg.dataDir, {
    pid: Deno.pid,
    port: at.port,
    tlsPort: at.tlsPort,
    startedAt: new Date(clock.now()).toISOString(),
    version: VERSION,
    tokenServiceUrl: cfg.tokenServiceUrl,
  }, o.os).catch((e) => log("warn", "running record not written", { error: String(e) }));
  globalThis.addEventListener("unload", () => removeRunningRecordSync(cfg.dataDir, Deno.pid, o.os));
  const url = `http://127.0.0.1:${at.port}`;
  return {
    server,
    url,
    tlsUrl,
    journal: stores.journal,
    confirmations,
    consoleLink: () => url + consoleSessions.newLink(),
    stop: () => stores.callers.flush(),
    portHolder: at.portHolder,
    stopWith: (stop) => {
      at.stop = stop;
    },
  };
}

/**
 * Step 4, said: record the port in the instance lock (phase 1 did when it listened, and said so)
 * and print where the agent listens.
 * @param cli the run's context (output)
 * @param agent the running agent
 * @param lock the instance lock
 * @param phase1Ran whether phase 1 listened first
 */
export async function announceAgent(
  cli: Cli,
  agent: RunningAgent,
  lock: InstanceLock,
  phase1Ran: boolean,
): Promise<void> {
  if (!phase1Ran) {
    await lock.update(agent.server.addr.port);
    say(cli, `Agent: ${agent.url}`);
  }
  if (agent.tlsUrl) say(cli, `Agent (HTTPS): ${agent.tlsUrl}`);
}
