/**
 * The one program: `agent`, `token-service`, `demo`, `keys create`, `openapi`, `--version`.
 * Only this file reads the environment and calls `Deno.serve`; everything else is injected.
 * Run `deno run -A main.ts help` for usage.
 * @module
 */
import { parseArgs } from "node:util";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { JWTVerifyGetKey } from "jose";
import type { HoldPoint } from "./src/agent/filing.ts";
import {
  AGENT_ENV,
  AgentConfig,
  DEFAULT_AGENT_PORT,
  defaultDataDir,
  loadConfig,
  TOKEN_ENV,
  TokenServiceConfig,
} from "./src/config.ts";
import { systemClock } from "./src/clock.ts";
import { jsonLogger, type Logger } from "./src/log.ts";
import { VERSION } from "./src/version.ts";
import { demoExample, USAGE } from "./src/cli/texts.ts";

const env = (): Record<string, string | undefined> => Deno.env.toObject();
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
      import("./src/token/open_store.ts"),
      import("./src/token/service.ts"),
      import("./src/token/mailer.ts"),
      import("./src/token/service_config.ts"),
    ]);
  const { smtpSettings, TOKEN_OPS_ENV, TokenOpsConfig } = cfgMod;
  const ops = loadConfig(TokenOpsConfig, TOKEN_OPS_ENV, envVars, {});
  await mkdir(cfg.dataDir, { recursive: true });
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

/** Start the agent; returns its server and URL. */
async function startAgent(cfg: AgentConfig, log: Logger) {
  const [
    { createRemoteJWKSet },
    { createAgentApp },
    { readAgentFile },
    { systemBrowserOpener },
    { createLocalOps },
    { createNativePickers },
    { allowListPolicy },
    { Journal },
    { reconcileJournal },
    { createTestPortal },
  ] = await Promise.all([
    import("jose"),
    import("./src/agent/app.ts"),
    import("./src/agent/agent_file.ts"),
    import("./src/agent/browser.ts"),
    import("./src/agent/local/ops.ts"),
    import("./src/agent/pickers_native.ts"),
    import("./src/agent/cors.ts"),
    import("./src/agent/journal.ts"),
    import("./src/agent/filing.ts"),
    import("./src/portal/test/adapter.ts"),
  ]);
  await mkdir(cfg.dataDir, { recursive: true });
  const file = await readAgentFile(cfg.dataDir);
  const getKey: JWTVerifyGetKey = createRemoteJWKSet(
    new URL("/.well-known/jwks.json", cfg.tokenServiceUrl),
    { cooldownDuration: 5_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 3_000 },
  );
  let port = cfg.port;
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
  const server = serveLoopback(app.fetch, cfg.port);
  port = server.addr.port;
  let tlsUrl: string | null = null;
  if (cfg.tlsPort !== undefined) {
    const { ensureLoopbackTls } = await import("./src/agent/tls.ts");
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
  return { server, url: `http://127.0.0.1:${port}`, tlsUrl, journal, confirmations };
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
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    try {
      Deno.addSignalListener(sig, stop);
    } catch { /* SIGTERM is not available on Windows */ }
  }
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

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  if (cmd === "admin") {
    const e = env();
    const i = rest.indexOf("--data-dir");
    const dataDir = i >= 0 && rest[i + 1] ? rest[i + 1]! : e.SVC_DATA_DIR ?? dataDirDefault();
    const [{ openTokenStore }, { runAdminCli }] = await Promise.all([
      import("./src/token/open_store.ts"),
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
    const { runSendersCli } = await import("./src/agent/senders_cli.ts");
    const code = await runSendersCli(rest, {
      dataDir: env().SVC_DATA_DIR ?? dataDirDefault(),
      readPin: readLine,
      out: (l: string) => console.log(l),
      now: () => new Date(systemClock.now()),
    });
    Deno.exit(code);
  }
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
      const cfg = loadConfig(AgentConfig, AGENT_ENV, { SVC_DATA_DIR: dataDirDefault(), ...e }, {
        port: values.port,
        dataDir: values["data-dir"],
        tokenServiceUrl: values["token-service"],
      });
      if (positionals[0] === "trust-certificate") {
        const { ensureLoopbackTls, trustCommands } = await import("./src/agent/tls.ts");
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
          await Promise.all([import("./src/agent/autostart.ts"), import("./src/signing/mod.ts")]);
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
          "./src/agent/doctor.ts"
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
      // One agent per user: a second start reports the running one and exits.
      const { acquireInstanceLock } = await import("./src/agent/instance.ts");
      const lock = await acquireInstanceLock(cfg.dataDir, {
        pid: Deno.pid,
        port: 0,
        startedAt: new Date(systemClock.now()).toISOString(),
        version: VERSION,
      });
      if ("running" in lock) {
        const r = lock.running;
        console.log(
          `Agent already running at ${r.url} (pid ${r.pid ?? "?"}, version ${r.version})`,
        );
        Deno.exit(0);
      }
      let started;
      try {
        started = await startAgent(cfg, log);
      } catch (err) {
        await lock.release();
        throw err;
      }
      const { url, tlsUrl, server, journal, confirmations } = started;
      await lock.update(server.addr.port);
      globalThis.addEventListener("unload", () => lock.releaseSync());
      shutdownOnSignal(server, log, async () => {
        journal.close();
        await lock.release();
      }, () => confirmations.declineAllPending());
      console.log(`Agent: ${url}`);
      if (tlsUrl) console.log(`Agent (HTTPS): ${tlsUrl}`);
      return;
    }
    case "journal": {
      const dataDir = values["data-dir"] ?? e.SVC_DATA_DIR ?? dataDirDefault();
      const { exportJournal, Journal } = await import("./src/agent/journal.ts");
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
        import("./src/token/open_store.ts"),
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
