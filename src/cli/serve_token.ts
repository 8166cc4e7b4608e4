/**
 * The composition of the token service (`token-service` and `demo`): its store (SQLite in the
 * data directory, or PostgreSQL with SVC_DATABASE_URL), mailer, notice scheduler and usage
 * flush, served on loopback (or SVC_TOKEN_HOST); the signing key secret (SVC_SIGNING_KEY_SECRET)
 * and `token-service encrypt-keys`.
 * @module
 */
import type { Clock } from "../clock.ts";
import { loadConfig, type TokenServiceConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import { ensurePrivateDirSync } from "../private_files.ts";
import {
  agentUpdateRoute,
  createSigningKeyCipher,
  createSmtpMailer,
  createTokenService,
  encryptSigningKeys,
  isPostgresUrl,
  openTokenStore,
  rateLimitSettings,
  type SigningKeyCipher,
  type SigningKeyView,
  signingKeyViews,
  smtpSettings,
  TOKEN_OPS_ENV,
  TokenOpsConfig,
  type TokenService,
  type TokenStore,
  type UpdateManifestSource,
  waitUntilQuiet,
} from "../token/mod.ts";
import { serveLoopback } from "./process.ts";

/**
 * The signing key secret's cipher (SVC_SIGNING_KEY_SECRET, SVC_SIGNING_KEY_SECRET_PREVIOUS), or
 * null. The PostgreSQL deployment refuses to start without a secret unless
 * SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true (docs/token-service.md § Signing keys at rest).
 * @param cfg the parsed TokenServiceConfig
 * @returns the cipher, or null (keys stay in plain text)
 * @throws Error for PostgreSQL without a secret and without the explicit opt-out
 */
export async function signingKeyCipher(
  cfg: TokenServiceConfig,
): Promise<SigningKeyCipher | null> {
  if (cfg.signingKeySecret) {
    const previous = cfg.signingKeySecretPrevious ? [cfg.signingKeySecretPrevious] : [];
    return await createSigningKeyCipher(cfg.signingKeySecret, previous);
  }
  if (isPostgresUrl(cfg.databaseUrl) && !cfg.allowPlaintextSigningKeys) {
    throw new Error(
      "Refusing to start: on PostgreSQL the signing keys are stored encrypted. Set " +
        "SVC_SIGNING_KEY_SECRET (32+ random characters, e.g. openssl rand -base64 32), or " +
        "SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true to keep them in plain text (not for production).",
    );
  }
  return null;
}

/** Say how the signing keys are stored, once at start (never any key material). */
async function reportKeysAtRest(
  store: TokenStore,
  cipher: SigningKeyCipher | null,
  cfg: TokenServiceConfig,
  log: Logger,
): Promise<void> {
  const views = signingKeyViews(await store.listSigningKeys(), cipher);
  const plain = views.filter((v) => v.atRest !== "encrypted").map((v) => v.kid);
  if (cipher && plain.length) {
    log("warn", "signing keys not yet encrypted with SVC_SIGNING_KEY_SECRET", {
      kids: plain,
      fix: "run `token-service encrypt-keys` or POST /admin/v1/signing-keys/encrypt",
    });
  } else if (cipher) {
    log("info", "signing keys are encrypted at rest", { secretFingerprint: cipher.fingerprint });
  } else if (isPostgresUrl(cfg.databaseUrl)) {
    log(
      "warn",
      "SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true: the signing keys are stored in plain " +
        "text in PostgreSQL; set SVC_SIGNING_KEY_SECRET for production",
    );
  } else {
    log(
      "info",
      "SVC_SIGNING_KEY_SECRET is not set: the signing keys are stored in plain text " +
        "(token-service.sqlite is readable by its owner only)",
    );
  }
}

/**
 * The signed agent update manifest of SVC_UPDATE_MANIFEST (docs/token-service.md § Agent
 * updates): a file holding the compact JWS `scripts/sign_manifest.ts` wrote, read on every
 * request (a new release is published by replacing the file). The service does not verify the
 * signature (the agents do); it serves only a file that has the shape of a compact JWS.
 * @param file the file's path, or undefined (the route then answers 404 UPDATE_NOT_PUBLISHED)
 * @param log where "publishing version X" and an unusable file are reported (once each)
 * @returns the source, or null
 */
export async function manifestFileSource(
  file: string | undefined,
  log: Logger,
): Promise<UpdateManifestSource | null> {
  if (!file) return null;
  let reported = "";
  const read = async (): Promise<string | null> => {
    let jws: string;
    let version = "?";
    try {
      jws = (await Deno.readTextFile(file)).trim();
      if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(jws)) {
        throw new Error("it is not a compact JWS (scripts/sign_manifest.ts writes one)");
      }
      const payload = jws.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/");
      version = String(JSON.parse(atob(payload))?.version ?? "?");
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      if (reported !== error) log("warn", "SVC_UPDATE_MANIFEST cannot be served", { file, error });
      reported = error;
      return null;
    }
    if (reported !== version) log("info", "publishing an agent update", { file, version });
    reported = version;
    return jws;
  };
  await read();
  return read;
}

/**
 * postgres@3.4.9 sends a query's bytes from a `setImmediate` callback (`nextWrite` in its
 * `connection.js`). When the server closes the connection between the query and that callback,
 * the callback writes to a socket already set to null and throws
 * `TypeError: Cannot read properties of null (reading 'write')` outside any promise, which would
 * end the process. By then the connection is closed and its queries have failed
 * (DATABASE_UNAVAILABLE, docs/token-service.md § Operations); the driver opens a new one for the
 * next query. Only that error is kept from ending the process, and it is logged; every other
 * uncaught error still ends it.
 * @param log where the kept error is reported (warn)
 */
function keepAliveOnClosedPostgresWrite(log: Logger): void {
  globalThis.addEventListener("error", (event) => {
    const e = event.error;
    if (
      e instanceof TypeError && /reading 'write'/.test(e.message) &&
      /postgres\/src\/connection\.js/.test(e.stack ?? "")
    ) {
      event.preventDefault();
      log("warn", "database connection closed while a query was being sent", { error: e.message });
    }
  });
}

/** A running token service. */
export interface RunningTokenService {
  readonly server: Deno.HttpServer<Deno.NetAddr>;
  /** Its base URL, e.g. `http://127.0.0.1:17480`. */
  readonly url: string;
  readonly store: TokenStore;
  readonly service: TokenService;
  /** Start draining (`/ready` 503, answers close their connections) and resolve once no request
   * came for 0.5 s, or after SVC_SHUTDOWN_DELAY_SECONDS (default 10) at most. */
  drain(): Promise<void>;
}

/**
 * Start the token service; it serves until the process ends.
 * @param cfg the parsed TokenServiceConfig
 * @param log the logger
 * @param env the environment (SVC_ADMIN_TOKEN, SVC_SMTP_*, SVC_NOTICE_INTERVAL_SECONDS, …)
 * @param clock the clock
 * @returns the server, its URL, the store and the service (stop both on shutdown)
 * @throws Error "Invalid configuration: …" for bad variables; "Refusing to start: …" on PostgreSQL
 *   without SVC_SIGNING_KEY_SECRET (and without SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true); a
 *   signing key the configured secret does not open; listen and database errors as is
 */
export async function startTokenService(
  cfg: TokenServiceConfig,
  log: Logger,
  env: Readonly<Record<string, string | undefined>>,
  clock: Clock,
): Promise<RunningTokenService> {
  const ops = loadConfig(TokenOpsConfig, TOKEN_OPS_ENV, env, {});
  const keyCipher = await signingKeyCipher(cfg);
  ensurePrivateDirSync(cfg.dataDir);
  if (cfg.databaseUrl && isPostgresUrl(cfg.databaseUrl)) keepAliveOnClosedPostgresWrite(log);
  const store = await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  const smtp = smtpSettings(ops);
  let issuer = cfg.issuer ?? "";
  let service: TokenService;
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    // Loads the key ring: a secret that does not open the current key fails here.
    service = await createTokenService({
      store,
      clock,
      keyCipher,
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
      rateLimits: rateLimitSettings(ops),
      sharedRateCounters: isPostgresUrl(cfg.databaseUrl),
      accessLog: ops.accessLog,
      requestLog: ops.requestLog,
      log: (level, msg, fields) => log(level, msg, fields),
    });
    await reportKeysAtRest(store, keyCipher, cfg, log);
    agentUpdateRoute(service.app, await manifestFileSource(env.SVC_UPDATE_MANIFEST, log));
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
  const drain = () => {
    service.drain.draining = true;
    return waitUntilQuiet(service.drain, { maxMs: ops.shutdownDelaySeconds * 1000 });
  };
  return { server, url, store, service, drain };
}

/**
 * `token-service encrypt-keys`: re-encrypt every stored signing key with SVC_SIGNING_KEY_SECRET
 * (plain-text keys, and keys of SVC_SIGNING_KEY_SECRET_PREVIOUS).
 * @param cfg the parsed TokenServiceConfig (data directory or SVC_DATABASE_URL, the secrets)
 * @returns how each key is stored afterwards, and the secret's fingerprint
 * @throws Error when SVC_SIGNING_KEY_SECRET is not set, or a key is encrypted with a secret that
 *   is not configured
 */
export async function encryptStoredSigningKeys(
  cfg: TokenServiceConfig,
): Promise<{ items: SigningKeyView[]; secretFingerprint: string }> {
  const cipher = cfg.signingKeySecret ? await signingKeyCipher(cfg) : null;
  if (!cipher) {
    throw new Error("SVC_SIGNING_KEY_SECRET is not set: there is no secret to encrypt with");
  }
  const store = await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
  try {
    return {
      items: await encryptSigningKeys(store, cipher),
      secretFingerprint: cipher.fingerprint,
    };
  } finally {
    await store.close();
  }
}
