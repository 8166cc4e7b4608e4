/**
 * The one program: `agent`, `token-service`, `demo`, `keys create`, `openapi`, `--version`.
 * Only this file reads the environment and calls `Deno.serve`; everything else is injected.
 * Run `deno run -A main.ts help` for usage.
 * @module
 */
import type { JWTVerifyGetKey } from "jose";
import type { HoldPoint } from "./src/agent/filing/filing.ts";
import type { AgentConfig, TokenServiceConfig } from "./src/config.ts";
import { DEFAULT_AGENT_PORT, defaultDataDir, joinPath } from "./src/defaults.ts";
// Phase 1 of the agent's start: static imports (tiny, no npm, no Node compatibility), so the
// agent listens without a dynamic import round trip (BENCHMARKS.md § Agent cold start).
import {
  createEarlyHandler,
  earlyAgentFlags,
  type EarlyHandler,
  earlySettings,
  phase2Start,
} from "./src/agent/start/early.ts";
import { acquireInstanceLock, type InstanceLock } from "./src/agent/start/instance.ts";
import { systemClock } from "./src/clock.ts";
import { jsonLogger, type Logger } from "./src/log.ts";
import { VERSION } from "./src/version.ts";
import { demoExample, USAGE } from "./src/cli/texts.ts";

/** The zod config schemas, loaded when a command needs them (not before the agent listens). */
const configModule = () => import("./src/config.ts");
const env = (): Record<string, string | undefined> => Deno.env.toObject();
/** `node:path`'s join for the plain names joined here, without loading Node compatibility. */
const join = (...parts: string[]) => joinPath(Deno.build.os, ...parts);
const dataDirDefault = () => defaultDataDir(Deno.build.os, env());

function fail(msg: string, code = 2): never {
  console.error(msg);
  Deno.exit(code);
}

/** Serve on 127.0.0.1, trying `port`..`port+9` when the first is taken (0 = any free port). */
function serveLoopback(
  handler: Deno.ServeHandler,
  port: number,
  hostname = "127.0.0.1",
  fallback = 10,
): Deno.HttpServer<Deno.NetAddr> {
  let last: unknown;
  for (let p = port, i = 0; i < (port === 0 ? 1 : fallback); i++, p++) {
    try {
      return Deno.serve({ hostname, port: p, onListen: () => {} }, handler);
    } catch (e) {
      if (!(e instanceof Deno.errors.AddrInUse)) throw e;
      last = e;
    }
  }
  throw last;
}

/** Start the token service (SQLite, or PostgreSQL with SVC_DATABASE_URL); returns it. */
async function startTokenService(
  cfg: TokenServiceConfig,
  log: Logger,
  envVars: Record<string, string | undefined> = {},
) {
  const [{ openTokenStore }, { createTokenService }, { createSmtpMailer }, cfgMod] = await Promise
    .all([
      import("./src/token/mod.ts"),
      import("./src/token/service.ts"),
      import("./src/token/mod.ts"),
      import("./src/token/service_config.ts"),
    ]);
  const { smtpSettings, TOKEN_OPS_ENV, TokenOpsConfig } = cfgMod;
  const { loadConfig } = await configModule();
  const ops = loadConfig(TokenOpsConfig, TOKEN_OPS_ENV, envVars, {});
  await Deno.mkdir(cfg.dataDir, { recursive: true });
  const store = await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  const smtp = smtpSettings(ops);
  let issuer = cfg.issuer ?? "";
  const service = await createTokenService({
    store,
    clock: systemClock,
    get config() {
      return {
        issuer,
        audience: cfg.audience,
        minAgentVersion: cfg.minAgentVersion ?? null,
        latestAgentVersion: cfg.latestAgentVersion ?? null,
      };
    },
    adminToken: ops.adminToken ?? null,
    mailer: smtp ? createSmtpMailer(smtp) : null,
    noticeIntervalMs: ops.noticeIntervalSeconds * 1000,
    usageFlushMs: ops.usageFlushSeconds * 1000,
    instanceId: ops.instanceId,
    log: (level, msg, fields) => log(level, msg, fields),
  });
  const server = serveLoopback(service.app.fetch, cfg.port, cfg.host, 1);
  const url = `http://${cfg.host}:${server.addr.port}`;
  if (!issuer) issuer = url;
  service.start();
  if (!smtp) log("warn", "SVC_SMTP_HOST is not set: e-mail notices stay pending");
  if (!ops.adminToken) log("info", "SVC_ADMIN_TOKEN is not set: the admin API is disabled");
  return { server, url, store, service };
}

/** A server already listening (phase 1 of the agent's start, src/agent/early.ts). */
interface EarlyServer {
  readonly server: Deno.HttpServer<Deno.NetAddr>;
  readonly handler: EarlyHandler;
}

/**
 * Start the agent; returns its server and URL. With `early`, the app is handed to the server
 * phase 1 already listens on; without, it listens itself (the demo).
 */
async function startAgent(cfg: AgentConfig, log: Logger, early?: EarlyServer) {
  // One module group at a time, the heavy shared ones first, with a macrotask turn before each:
  // phase 1 keeps answering /health while the agent loads (src/agent/early.ts).
  const step = <T>(load: () => Promise<T>) => new Promise<void>((r) => setTimeout(r, 0)).then(load);
  await step(() => import("zod"));
  await step(() => import("hono"));
  await step(() => import("./src/contract/operations.ts"));
  const { createTestPortal } = await step(() => import("./src/portal/test/adapter.ts"));
  const { createRemoteJWKSet } = await step(() => import("jose"));
  await step(() => import("./src/agent/http/auth.ts"));
  await step(() => import("./src/agent/confirm/routes.ts"));
  const { createAgentApp } = await step(() => import("./src/agent/app.ts"));
  const { createLocalOps } = await step(() => import("./src/agent/local/ops.ts"));
  const { Journal } = await step(() => import("./src/agent/filing/journal.ts"));
  const { reconcileJournal } = await step(() => import("./src/agent/filing/filing.ts"));
  const { readAgentFile } = await step(() => import("./src/agent/senders/agent_file.ts"));
  const { systemBrowserOpener } = await step(() => import("./src/agent/host/browser.ts"));
  const { createNativePickers } = await step(() => import("./src/agent/host/pickers_native.ts"));
  const { allowListPolicy } = await step(() => import("./src/agent/http/cors.ts"));
  await Deno.mkdir(cfg.dataDir, { recursive: true });
  const file = await readAgentFile(cfg.dataDir);
  const getKey: JWTVerifyGetKey = createRemoteJWKSet(
    new URL("/.well-known/jwks.json", cfg.tokenServiceUrl),
    { cooldownDuration: 5_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 3_000 },
  );
  let port = early?.server.addr.port ?? cfg.port;
  let tlsPort: number | null = null;
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
  const journal = new Journal(join(cfg.dataDir, "journal.sqlite"));
  const testPortal = createTestPortal({ now: () => new Date(systemClock.now()) });
  // The live adapter (and its certificate parsing) loads only when agent.json configures it.
  const livePortal = file.portal
    ? (await import("./src/portal/live/mod.ts")).createLivePortal(file.portal, {
      clock: systemClock,
      log,
    })
    : undefined;
  await reconcileJournal(
    journal,
    { test: testPortal, ...(livePortal ? { live: livePortal } : {}) },
    log,
    () => new Date(systemClock.now()),
  );
  const holdAt = Deno.env.get("SVC_TEST_HOLD_AT") as HoldPoint | undefined;
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
  const originPolicy = allowListPolicy(file.allowedOrigins, published, () => systemClock.now());
  const { app, confirmations } = createAgentApp({
    clock: systemClock,
    log,
    verifier: {
      getKey,
      issuer: cfg.issuer ?? cfg.tokenServiceUrl.replace(/\/$/, ""),
      audience: cfg.audience,
    },
    senders: file.senders,
    portals: { test: testPortal, ...(livePortal ? { live: livePortal } : {}) },
    openBrowser: cfg.openBrowser === "never" ? () => {} : systemBrowserOpener(log),
    port: () => port,
    tlsPort: () => tlsPort,
    latestVersion: () => latestVersion,
    confirmTimeoutMs: cfg.confirmTimeoutSeconds * 1000,
    rateLimits: { operationsPer10s: cfg.operationsPer10s },
    localOps: createLocalOps(),
    pickers: createNativePickers(),
    journal,
    ...(hold ? { hold } : {}),
    originPolicy: async (origin) =>
      [`http://127.0.0.1:${port}`, `http://localhost:${port}`].includes(origin) ||
      await originPolicy(origin),
  });
  const server = early?.server ?? serveLoopback(app.fetch, cfg.port);
  port = server.addr.port;
  let tlsUrl: string | null = null;
  if (cfg.tlsPort !== undefined) {
    const { ensureLoopbackTls } = await import("./src/agent/tls/tls.ts");
    const tls = await ensureLoopbackTls(cfg.dataDir, new Date(systemClock.now()));
    const https = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: cfg.tlsPort,
        cert: tls.certPem,
        key: tls.keyPem,
        onListen: () => {},
      },
      app.fetch,
    );
    tlsPort = https.addr.port;
    tlsUrl = `https://127.0.0.1:${tlsPort}`;
  }
  early?.handler.ready(app.fetch);
  return { server, url: `http://127.0.0.1:${port}`, tlsUrl, journal, confirmations };
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;
/** Deno.addSignalListener, where the OS has the signal (SIGTERM is not available on Windows). */
function addSignal(sig: Deno.Signal, fn: () => void) {
  try {
    Deno.addSignalListener(sig, fn);
  } catch { /* not available on this OS */ }
}
function removeSignal(sig: Deno.Signal, fn: () => void) {
  try {
    Deno.removeSignalListener(sig, fn);
  } catch { /* not available on this OS */ }
}

/** Stop on SIGINT/SIGTERM after the running requests (filings) have finished. */
function shutdownOnSignal(
  server: Deno.HttpServer,
  log: Logger,
  close: () => void | Promise<void> = () => {},
  before: () => void = () => {},
) {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log("info", "shutting down: finishing running requests");
    before();
    await server.shutdown();
    await close();
    Deno.exit(0);
  };
  for (const sig of SIGNALS) addSignal(sig, stop);
}

/**
 * One agent per user: take the instance lock in `dataDir`, or report the running agent and
 * exit 0 (issue #7 § Running as a resident agent).
 */
async function lockAgent(dataDir: string): Promise<InstanceLock> {
  const lock = await acquireInstanceLock(dataDir, {
    pid: Deno.pid,
    port: 0,
    startedAt: new Date(systemClock.now()).toISOString(),
    version: VERSION,
  });
  if ("running" in lock) {
    const r = lock.running;
    console.log(`Agent already running at ${r.url} (pid ${r.pid ?? "?"}, version ${r.version})`);
    Deno.exit(0);
  }
  return lock;
}

async function readLine(): Promise<string> {
  const reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text.split(/\r?\n/)[0] ?? "";
}

/** What phase 1 of the agent's start left running (src/agent/early.ts). */
interface Phase1 {
  readonly t0: number;
  /** The port and data directory phase 1 used (cross-checked against the zod config). */
  readonly settings: { readonly port: number; readonly dataDir: string } | null;
  readonly lock: InstanceLock | null;
  readonly early: EarlyServer | undefined;
  /** The SIGINT/SIGTERM handler while phase 2 runs. */
  readonly stopEarly: (() => Promise<void>) | null;
}

/**
 * Phase 1 of `agent` (issue #7, cold start): before `node:util`, zod or any module of the app
 * loads, take the instance lock, listen and answer `/health`. Only for the plain command line
 * (`earlyAgentFlags`); anything else starts in one phase.
 */
async function agentPhase1(args: string[]): Promise<Phase1> {
  const t0 = performance.now();
  const flags = earlyAgentFlags(args);
  const settings = flags
    ? earlySettings(flags, env(), { port: DEFAULT_AGENT_PORT, dataDir: dataDirDefault() })
    : null;
  if (!settings) return { t0, settings: null, lock: null, early: undefined, stopEarly: null };
  const lock = await lockAgent(settings.dataDir);
  let port = 0;
  const handler = createEarlyHandler(VERSION, () => [port]);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = serveLoopback(handler.fetch, settings.port);
    port = server.addr.port;
  } catch (err) {
    await lock.release(); // every port of the range taken
    throw err;
  }
  console.log(`Agent: http://127.0.0.1:${port}`);
  // The port goes into the lock after the banner: a second start that reads the lock meanwhile
  // sees port 0 and waits for it (src/agent/instance.ts).
  try {
    await lock.update(port);
  } catch (err) {
    await server.shutdown();
    await lock.release(); // the lock file is not writable
    throw err;
  }
  // Ctrl+C / SIGTERM before phase 2 is done: nothing runs yet; free the lock and exit 0.
  const stopEarly = async () => {
    handler.failed();
    await lock.release();
    Deno.exit(0);
  };
  for (const sig of SIGNALS) addSignal(sig, stopEarly);
  await phase2Start(handler);
  return { t0, settings, lock, early: { server, handler }, stopEarly };
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  const phase1 = cmd === "agent" ? await agentPhase1(rest) : null;
  if (cmd === "admin") {
    const e = env();
    const i = rest.indexOf("--data-dir");
    const dataDir = i >= 0 && rest[i + 1] ? rest[i + 1]! : e.SVC_DATA_DIR ?? dataDirDefault();
    const [{ openTokenStore }, { runAdminCli }] = await Promise.all([
      import("./src/token/mod.ts"),
      import("./src/token/cli.ts"),
    ]);
    const store = await openTokenStore({ dataDir, databaseUrl: e.SVC_DATABASE_URL });
    let code = 1;
    try {
      code = await runAdminCli(rest, {
        store,
        clock: systemClock,
        out: (s: string) => console.log(s),
        err: (s: string) => console.error(s),
      });
    } finally {
      await store.close();
    }
    Deno.exit(code);
  }
  if (cmd === "senders") {
    const { runSendersCli } = await import("./src/cli/senders.ts");
    const code = await runSendersCli(rest, {
      dataDir: env().SVC_DATA_DIR ?? dataDirDefault(),
      readPin: readLine,
      out: (l: string) => console.log(l),
      now: () => new Date(systemClock.now()),
    });
    Deno.exit(code);
  }
  // Loaded only now: the agent's phase 1 above answers before Node compatibility loads.
  const { parseArgs } = await import("node:util");
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string" },
      "data-dir": { type: "string" },
      "token-service": { type: "string" },
      "min-agent-version": { type: "string" },
      mode: { type: "string" },
      eik: { type: "string", multiple: true },
      origin: { type: "string", multiple: true },
      integrator: { type: "string" },
      label: { type: "string" },
      service: { type: "string" },
      format: { type: "string" },
      out: { type: "string" },
      limit: { type: "string" },
      version: { type: "boolean" },
    },
  });
  const e = env();
  const logLevel = (e.SVC_LOG_LEVEL as "info" | undefined) ?? "info";
  const log = jsonLogger(undefined, logLevel);
  switch (cmd) {
    case "--version":
    case "version":
      console.log(VERSION);
      return;
    case undefined:
    case "help":
    case "--help":
      console.log(USAGE);
      return;
    case "openapi": {
      const { buildAgentOpenApi, buildTokenOpenApi } = await import("./src/contract/openapi.ts");
      const doc = values.service === "token"
        ? buildTokenOpenApi(VERSION)
        : buildAgentOpenApi(VERSION);
      console.log(JSON.stringify(doc, null, 2));
      return;
    }
    case "token-service": {
      const { loadConfig, TOKEN_ENV, TokenServiceConfig } = await configModule();
      const cfg = loadConfig(TokenServiceConfig, TOKEN_ENV, {
        SVC_DATA_DIR: dataDirDefault(),
        ...e,
      }, {
        port: values.port,
        dataDir: values["data-dir"],
        minAgentVersion: values["min-agent-version"],
      });
      const { url, server, service, store } = await startTokenService(cfg, log, e);
      shutdownOnSignal(server, log, async () => {
        await service.stop();
        await store.close();
      });
      console.log(`Token service: ${url}`);
      return;
    }
    case "agent": {
      const { t0, settings, lock, early, stopEarly } = phase1!;
      let cfg: AgentConfig;
      try {
        const { AGENT_ENV, AgentConfig, loadConfig } = await configModule();
        cfg = loadConfig(AgentConfig, AGENT_ENV, { SVC_DATA_DIR: dataDirDefault(), ...e }, {
          port: values.port,
          dataDir: values["data-dir"],
          tokenServiceUrl: values["token-service"],
        });
        if (settings && (cfg.port !== settings.port || cfg.dataDir !== settings.dataDir)) {
          throw new Error("The agent's port or data directory was read two ways (a bug)");
        }
      } catch (err) {
        early?.handler.failed();
        await lock?.release();
        throw err;
      }
      if (positionals[0] === "trust-certificate") {
        const { ensureLoopbackTls, trustCommands } = await import("./src/agent/tls/tls.ts");
        const tls = await ensureLoopbackTls(cfg.dataDir, new Date(systemClock.now()));
        for (const [prog, args] of trustCommands(Deno.build.os, tls.caFile)) {
          console.log(`$ ${prog} ${args.join(" ")}`);
          const out = await new Deno.Command(prog, { args }).output().catch((e) => {
            fail(
              `Cannot run ${prog}: ${e.message}. Trust ${tls.caFile} by hand (see docs/https.md).`,
              1,
            );
          });
          if (!out.success) {
            fail(`${prog} failed; trust ${tls.caFile} by hand (see docs/https.md).`, 1);
          }
        }
        console.log(
          `Trusted the agent's loopback CA (${tls.caFile}); it is valid only for localhost/127.0.0.1/::1.`,
        );
        return;
      }
      if (positionals[0] === "install-autostart" || positionals[0] === "uninstall-autostart") {
        const [{ agentCommand, installAutostart, uninstallAutostart }, { denoCommandRunner }] =
          await Promise.all([
            import("./src/agent/host/autostart.ts"),
            import("./src/signing/mod.ts"),
          ]);
        const opts = {
          os: Deno.build.os as "linux" | "darwin" | "windows",
          env: e,
          command: agentCommand(Deno.execPath(), Deno.mainModule),
          run: denoCommandRunner,
        };
        const st = positionals[0] === "install-autostart"
          ? await installAutostart(opts)
          : await uninstallAutostart(opts);
        console.log(
          `${
            st.installed ? "Installed" : "Not installed"
          } (${st.method}): ${st.location}\n${st.detail}`,
        );
        return;
      }
      if (positionals[0] === "doctor") {
        const { doctorExitCode, formatDoctorReport, runDoctor } = await import(
          "./src/agent/doctor/doctor.ts"
        );
        const checks = await runDoctor({
          dataDir: cfg.dataDir,
          tokenServiceUrl: cfg.tokenServiceUrl,
        });
        console.log(formatDoctorReport(checks));
        Deno.exit(doctorExitCode(checks));
      }
      if (positionals[0] !== undefined) {
        fail(`Unknown agent command "${positionals[0]}".\n\n${USAGE}`);
      }
      const held = lock ?? await lockAgent(cfg.dataDir);
      let started;
      try {
        started = await startAgent(cfg, log, early);
      } catch (err) {
        early?.handler.failed();
        await held.release();
        throw err;
      }
      if (stopEarly) { for (const sig of SIGNALS) removeSignal(sig, stopEarly); }
      const { url, tlsUrl, server, journal, confirmations } = started;
      if (!early) {
        await held.update(server.addr.port);
        console.log(`Agent: ${url}`);
      }
      globalThis.addEventListener("unload", () => held.releaseSync());
      shutdownOnSignal(server, log, async () => {
        journal.close();
        await held.release();
      }, () => confirmations.declineAllPending());
      if (tlsUrl) console.log(`Agent (HTTPS): ${tlsUrl}`);
      console.log(`Agent ready: ${url} (${Math.round(performance.now() - t0)} ms)`);
      return;
    }
    case "journal": {
      const dataDir = values["data-dir"] ?? e.SVC_DATA_DIR ?? dataDirDefault();
      const { exportJournal, Journal } = await import("./src/agent/filing/journal.ts");
      const journal = new Journal(join(dataDir, "journal.sqlite"));
      const rows = journal.list(Number(values.limit ?? 1000));
      journal.close();
      if (positionals[0] === "export") {
        const format = values.format === "csv" ? "csv" : "json";
        const text = exportJournal(rows, format);
        if (values.out) await Deno.writeTextFile(values.out, text);
        else await Deno.stdout.write(new TextEncoder().encode(text));
        return;
      }
      if (positionals[0] !== "list") {
        fail("Usage: journal list|export [--format csv|json] [--out FILE] [--limit N]");
      }
      if (values.format === "json") {
        console.log(exportJournal(rows, "json"));
        return;
      }
      for (const r of rows) {
        console.log(
          [
            r.createdAt,
            r.typeId,
            r.eik,
            r.period ?? "-",
            r.state,
            r.documentId ?? "-",
            r.errorCode ?? "",
          ].join("  "),
        );
      }
      if (rows.length === 0) console.log("The journal is empty.");
      return;
    }
    case "keys": {
      if (positionals[0] !== "create") fail("Usage: keys create --mode test|live [--eik EIK]...");
      const mode = values.mode;
      if (mode !== "test" && mode !== "live") fail("keys create: --mode must be test or live");
      const badOrigin = (values.origin ?? []).filter((o) => !URL.canParse(o));
      if (badOrigin.length) {
        fail(`keys create: --origin must be a URL origin: ${badOrigin.join(", ")}`);
      }
      const bad = (values.eik ?? []).filter((x) => !/^[0-9]{9,13}$/.test(x));
      if (bad.length) fail(`keys create: --eik must be 9 to 13 digits: ${bad.join(", ")}`);
      const dataDir = values["data-dir"] ?? e.SVC_DATA_DIR ?? dataDirDefault();
      const [{ openTokenStore }, { createApiKey }] = await Promise.all([
        import("./src/token/mod.ts"),
        import("./src/token/api_keys.ts"),
      ]);
      const store = await openTokenStore({ dataDir, databaseUrl: e.SVC_DATABASE_URL });
      const { secret, record } = await createApiKey(store, {
        mode,
        now: systemClock.now(),
        integratorId: values.integrator,
        label: values.label ?? null,
        allowedEiks: values.eik?.length ? values.eik : null,
        allowedOrigins: values.origin?.length ? values.origin.map((o) => new URL(o).origin) : null,
      });
      await store.close();
      console.log(secret);
      console.error(
        `Key ${record.id} (${mode}) created; expires ${
          record.expiresAt ? new Date(record.expiresAt).toISOString() : "never"
        }. The secret above is shown once.`,
      );
      return;
    }
    case "demo": {
      const { AgentConfig, TokenServiceConfig } = await configModule();
      const base = values["data-dir"] ?? await Deno.makeTempDir({ prefix: "svc-demo-" });
      const quiet = jsonLogger(undefined, "warn");
      const ts = await startTokenService(
        TokenServiceConfig.parse({ port: 0, dataDir: join(base, "token-service") }),
        quiet,
      );
      const agent = await startAgent(
        AgentConfig.parse({
          port: Number(values.port ?? e.SVC_AGENT_PORT ?? DEFAULT_AGENT_PORT),
          dataDir: join(base, "agent"),
          tokenServiceUrl: ts.url,
          openBrowser: e.SVC_OPEN_BROWSER === "never" ? "never" : "auto",
        }),
        log,
      );
      const { createApiKey } = await import("./src/token/api_keys.ts");
      const { secret } = await createApiKey(ts.store, {
        mode: "test",
        now: systemClock.now(),
        label: "demo",
      });
      console.log(`Token service: ${ts.url}`);
      console.log(`Agent: ${agent.url}`);
      console.log(`Test key: ${secret}`);
      console.log(demoExample(ts.url, agent.url, secret));
      return;
    }
    default:
      fail(`Unknown command "${cmd}".\n\n${USAGE}`);
  }
}

if (import.meta.main) {
  const args = Deno.args[0] === "--version" ? ["--version"] : Deno.args;
  main(args).catch((err) => fail(err instanceof Error ? err.message : String(err), 1));
}
