/**
 * The composition of the agent (`agent` phase 2, and `demo`): the test and live portals, the
 * JWKS of the token service, agent.json's senders and origins, the journal (reconciled first),
 * the browser opener and native pickers, and optional HTTPS on loopback. The modules load one
 * mod.ts at a time with a macrotask turn before each, so a phase-1 server keeps answering
 * `/health` while they load (src/agent/start/, BENCHMARKS.md § Agent cold start).
 * @module
 */
import type { JWTVerifyGetKey } from "jose";
import type { ConfirmationManager } from "../agent/confirm/mod.ts";
import type { AutostartControl } from "../agent/console/mod.ts";
import type { HoldPoint, Journal } from "../agent/filing/mod.ts";
import {
  agentPortRange,
  type PortHolder,
  removeRunningRecordSync,
  whoHoldsPort,
  writeRunningRecord,
} from "../agent/start/mod.ts";
import type { Clock } from "../clock.ts";
import type { AgentConfig } from "../config.ts";
import { joinPath } from "../defaults.ts";
import { type Logger, LogRing, ringLogger } from "../log.ts";
import {
  ensurePrivateDirSync,
  preparePrivateDbFileSync,
  tightenFilesSync,
} from "../private_files.ts";
import { VERSION } from "../version.ts";
import type { EarlyServer } from "./agent_early.ts";
import { serveLoopback, serveLoopbackTls } from "./process.ts";

/** The file in the data folder holding the secret `agent open` shows the running agent. */
export const CONSOLE_SECRET_FILE = "console.secret";

/** Write an owner-only file atomically (temp file + rename). */
async function writePrivateFile(path: string, text: string): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(tmp, text, { mode: 0o600 });
  await Deno.rename(tmp, path);
}

/** What the agent's composition needs besides its config. */
export interface AgentStartOptions {
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
}

/** Load one module group after a macrotask turn (phase 1 answers /health in between). */
const step = <T>(load: () => Promise<T>) => new Promise<void>((r) => setTimeout(r, 0)).then(load);

/**
 * Start the agent; it serves until the process ends.
 * @param cfg the parsed AgentConfig
 * @param log the logger
 * @param o phase 1's server (or none: listen on cfg.port with the fallback range), the hold
 *   point, the OS, the clock
 * @returns the server, its URLs, the journal (close it on shutdown) and the confirmations
 * @throws Error for an invalid agent.json, an unreadable journal, or no free port
 */
export async function startAgent(
  cfg: AgentConfig,
  processLog: Logger,
  o: AgentStartOptions,
): Promise<RunningAgent> {
  const { early, clock } = o;
  // The console's log page shows the last 1,000 lines (redacted like the process log).
  const logs = new LogRing(1000);
  const log = ringLogger(processLog, logs);
  // The heavy shared modules first, then the agent's concept folders, one mod.ts per turn.
  await step(() => import("zod"));
  await step(() => import("hono"));
  await step(() => import("../contract/mod.ts"));
  const { createTestPortal } = await step(() => import("../portal/test/mod.ts"));
  const { createRemoteJWKSet } = await step(() => import("jose"));
  const { allowListPolicy, CallerBook } = await step(() => import("../agent/http/mod.ts"));
  await step(() => import("../agent/confirm/mod.ts"));
  await step(() => import("../agent/operations/mod.ts"));
  const { createAgentApp } = await step(() => import("../agent/mod.ts"));
  const { createLocalOps } = await step(() => import("../agent/local/mod.ts"));
  const { Journal, reconcileJournal } = await step(() => import("../agent/filing/mod.ts"));
  const { readAgentFile } = await step(() => import("../agent/senders/mod.ts"));
  const { createNativePickers, systemBrowserOpener } = await step(() =>
    import("../agent/host/mod.ts")
  );
  // Owner-only data (running.md): the folder 0700; agent.json, the journal and the TLS key 0600
  // (files of an earlier install are tightened; the journal is created 0600 before SQLite opens
  // it, and SQLite gives its -wal/-shm files the same mode).
  const inData = (...p: string[]) => joinPath(o.os, cfg.dataDir, ...p);
  ensurePrivateDirSync(cfg.dataDir, o.os);
  tightenFilesSync([inData("agent.json"), inData("tls", "server.key")], o.os);
  const file = await readAgentFile(cfg.dataDir);
  const getKey: JWTVerifyGetKey = createRemoteJWKSet(
    new URL("/.well-known/jwks.json", cfg.tokenServiceUrl),
    { cooldownDuration: 5_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 3_000 },
  );
  let port = early?.server.addr.port ?? cfg.port;
  let tlsPort: number | null = null;
  let portHolder: PortHolder | null = null;
  const published = async () => {
    const res = await fetch(new URL("/api/v1/allowed-origins", cfg.tokenServiceUrl), {
      signal: AbortSignal.timeout(3000),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return [];
    }
    const j = await res.json();
    return Array.isArray(j.origins) ? j.origins.filter((o: unknown) => typeof o === "string") : [];
  };
  preparePrivateDbFileSync(inData("journal.sqlite"), o.os);
  const journal = new Journal(inData("journal.sqlite"));
  const now = () => new Date(clock.now());
  const testPortal = createTestPortal({ now, submitDelayMs: cfg.testPortalDelayMs });
  // The live adapter (and its certificate parsing) loads only when agent.json configures it.
  const livePortal = file.portal
    ? (await import("../portal/live/mod.ts")).createLivePortal(file.portal, { clock, log })
    : undefined;
  const portals = { test: testPortal, ...(livePortal ? { live: livePortal } : {}) };
  await reconcileJournal(journal, portals, log, now);
  const holdAt = o.holdAt as HoldPoint | undefined;
  const hold = holdAt
    ? (point: HoldPoint, filingId: string) => {
      if (point !== holdAt) return Promise.resolve();
      log("info", "journal hold", { point, filingId });
      return new Promise<void>(() => {}); // held until the process is killed
    }
    : undefined;
  // What the token service says about agent versions, for /health (refreshed every 10 minutes).
  let latestVersion: string | null = null;
  const refreshVersion = async () => {
    try {
      const r = await fetch(new URL("/api/v1/agent-version", cfg.tokenServiceUrl), {
        signal: AbortSignal.timeout(3000),
      });
      if (r.ok) latestVersion = (await r.json()).latest ?? null;
      else await r.body?.cancel();
    } catch { /* the token service may be unreachable; /health then reports null */ }
  };
  refreshVersion();
  Deno.unrefTimer(setInterval(refreshVersion, 10 * 60_000));
  const originPolicy = allowListPolicy(file.allowedOrigins, published, () => clock.now());
  const callersPath = inData("callers.json");
  const callers = new CallerBook(() => clock.now(), {
    read: () => Deno.readTextFile(callersPath),
    write: (text) => writePrivateFile(callersPath, text),
  });
  await callers.load();
  // `agent open` (this user: it can read the data folder) trades this secret for a link.
  const linkSecret = crypto.getRandomValues(new Uint8Array(32)).toBase64({ alphabet: "base64url" });
  await writePrivateFile(inData(CONSOLE_SECRET_FILE), linkSecret);
  const { app, confirmations, consoleSessions } = createAgentApp({
    clock,
    log,
    verifier: {
      getKey,
      issuer: cfg.issuer ?? cfg.tokenServiceUrl.replace(/\/$/, ""),
      audience: cfg.audience,
    },
    senders: file.senders,
    portals,
    openBrowser: cfg.openBrowser === "never" ? () => {} : systemBrowserOpener(log),
    port: () => port,
    tlsPort: () => tlsPort,
    latestVersion: () => latestVersion,
    confirmTimeoutMs: cfg.confirmTimeoutSeconds * 1000,
    rateLimits: { operationsPer10s: cfg.operationsPer10s },
    batchConcurrency: cfg.batchConcurrency,
    localOps: createLocalOps(),
    pickers: createNativePickers({ env: Deno.env.toObject() }),
    journal,
    ...(hold ? { hold } : {}),
    ...(o.docsAssetsDir ? { docsAssetsDir: o.docsAssetsDir } : {}),
    callers,
    console: {
      dataDir: cfg.dataDir,
      tokenServiceUrl: cfg.tokenServiceUrl,
      linkSecret,
      logs,
      ...(o.autostart ? { autostart: o.autostart } : {}),
      // In-process: the agent's own port is its own (not "taken"), its token service is checked.
      // Loaded when the console asks (it brings the PKCS#11 discovery): not on the start path.
      doctor: async () =>
        (await import("../agent/doctor/mod.ts")).runDoctor({
          dataDir: cfg.dataDir,
          tokenServiceUrl: cfg.tokenServiceUrl,
          selfPort: port,
          ports: agentPortRange(cfg.port),
        }),
      osUser: () => o.osUser || "console",
      livePortalUrl: file.portal?.baseUrl ?? null,
      portHolder: () => portHolder,
    },
    originPolicy: async (origin) =>
      [`http://127.0.0.1:${port}`, `http://localhost:${port}`].includes(origin) ||
      await originPolicy(origin),
  });
  const server = early?.server ?? serveLoopback(app.fetch, cfg.port);
  port = server.addr.port;
  // Not the usual port: is it another agent that holds it (integrators' pages talk to it)?
  if (cfg.port !== 0 && port !== cfg.port) {
    portHolder = await whoHoldsPort(cfg.port);
    if (portHolder) {
      log("warn", "another agent holds the usual port", {
        port: cfg.port,
        version: portHolder.version,
        ownPort: port,
      });
    }
  }
  let tlsUrl: string | null = null;
  if (cfg.tlsPort !== undefined) {
    const { ensureLoopbackTls } = await import("../agent/tls/mod.ts");
    const tls = await ensureLoopbackTls(cfg.dataDir, now());
    tlsPort = serveLoopbackTls(app.fetch, cfg.tlsPort, tls).addr.port;
    tlsUrl = `https://127.0.0.1:${tlsPort}`;
  }
  early?.handler.ready(app.fetch);
  // Which agent is this data folder's, and the token service it uses (agent doctor, the demo).
  await writeRunningRecord(cfg.dataDir, {
    pid: Deno.pid,
    port,
    tlsPort,
    startedAt: now().toISOString(),
    version: VERSION,
    tokenServiceUrl: cfg.tokenServiceUrl,
  }, o.os).catch((e) => log("warn", "running record not written", { error: String(e) }));
  globalThis.addEventListener("unload", () => removeRunningRecordSync(cfg.dataDir, Deno.pid, o.os));
  const url = `http://127.0.0.1:${port}`;
  return {
    server,
    url,
    tlsUrl,
    journal,
    confirmations,
    consoleLink: () => url + consoleSessions.newLink(),
    stop: () => callers.flush(),
    portHolder,
  };
}
