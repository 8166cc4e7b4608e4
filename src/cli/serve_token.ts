/**
 * The composition of the token service (`token-service` and `demo`): its store (SQLite in the
 * data directory, or PostgreSQL with SVC_DATABASE_URL), mailer, notice scheduler and usage
 * flush, served on loopback (or SVC_TOKEN_HOST).
 * @module
 */
import type { Clock } from "../clock.ts";
import { loadConfig, type TokenServiceConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import {
  createSmtpMailer,
  createTokenService,
  openTokenStore,
  smtpSettings,
  TOKEN_OPS_ENV,
  TokenOpsConfig,
  type TokenService,
  type TokenStore,
} from "../token/mod.ts";
import { serveLoopback } from "./process.ts";

/** A running token service. */
export interface RunningTokenService {
  readonly server: Deno.HttpServer<Deno.NetAddr>;
  /** Its base URL, e.g. `http://127.0.0.1:17480`. */
  readonly url: string;
  readonly store: TokenStore;
  readonly service: TokenService;
}

/**
 * Start the token service; it serves until the process ends.
 * @param cfg the parsed TokenServiceConfig
 * @param log the logger
 * @param env the environment (SVC_ADMIN_TOKEN, SVC_SMTP_*, SVC_NOTICE_INTERVAL_SECONDS, …)
 * @param clock the clock
 * @returns the server, its URL, the store and the service (stop both on shutdown)
 * @throws Error "Invalid configuration: …" for bad variables; listen and database errors as is
 */
export async function startTokenService(
  cfg: TokenServiceConfig,
  log: Logger,
  env: Readonly<Record<string, string | undefined>>,
  clock: Clock,
): Promise<RunningTokenService> {
  const ops = loadConfig(TokenOpsConfig, TOKEN_OPS_ENV, env, {});
  await Deno.mkdir(cfg.dataDir, { recursive: true });
  const store = await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  const smtp = smtpSettings(ops);
  let issuer = cfg.issuer ?? "";
  const service = await createTokenService({
    store,
    clock,
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
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = serveLoopback(service.app.fetch, cfg.port, cfg.host, 1);
  } catch (err) {
    await store.close();
    throw err;
  }
  const url = `http://${cfg.host}:${server.addr.port}`;
  if (!issuer) issuer = url;
  service.start();
  if (!smtp) log("warn", "SVC_SMTP_HOST is not set: e-mail notices stay pending");
  if (!ops.adminToken) log("info", "SVC_ADMIN_TOKEN is not set: the admin API is disabled");
  return { server, url, store, service };
}
