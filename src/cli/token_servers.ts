/**
 * The token service's start, step 3 of 4 (docs/architecture.md § The start): its server — the
 * service composed over the store (key ring, mailer, notice scheduler, usage flush, rate limits,
 * access and request logs), the signed agent update manifest (SVC_UPDATE_MANIFEST), served on
 * loopback (or SVC_TOKEN_HOST), and its background work started.
 * @module
 */
import { errorMessage } from "../error_message.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import {
  agentUpdateRoute,
  createSmtpMailer,
  createTokenService,
  isPostgresUrl,
  type Mailer,
  rateLimitSettings,
  type SigningKeyCipher,
  signingKeyViews,
  smtpSettings,
  type TokenService,
  type TokenStore,
  type UpdateManifestSource,
  waitUntilQuiet,
} from "../token/mod.ts";
import type { TokenServiceConfig } from "../config.ts";
import type { TokenSettings } from "./token_settings.ts";
import { serveLoopback } from "./process.ts";
import { UserError } from "../user_error.ts";

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
        throw new UserError("it is not a compact JWS (scripts/sign_manifest.ts writes one)");
      }
      // non-null: a compact JWS has three parts (checked just above)
      const payload = jws.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/");
      version = String(JSON.parse(atob(payload))?.version ?? "?");
    } catch (e) {
      const error = errorMessage(e);
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

/** A running token service. */
export interface RunningTokenService {
  readonly server: Deno.HttpServer<Deno.NetAddr>;
  /** Its public URL: the issuer (SVC_TOKEN_ISSUER), else where it listens, e.g.
   * `http://127.0.0.1:17480`. */
  readonly url: string;
  /** Where it listens, e.g. `http://127.0.0.1:17480` (the same as `url` without an issuer). */
  readonly listenUrl: string;
  /** The public URL of its pages for people (the profile, the desk): `url` unless the demo's. */
  readonly webUrl: string;
  readonly store: TokenStore;
  readonly service: TokenService;
  /** Start draining (`/ready` 503, answers close their connections) and resolve once no request
   * came for 0.5 s, or after SVC_SHUTDOWN_DELAY_SECONDS (default 10) at most. */
  drain(): Promise<void>;
}

/** What the demo changes in step 3 (docs/token-service.md § The demo outbox). */
export interface DemoServing {
  /** The mailer, given the SMTP one (null: none configured): the demo's outbox. */
  readonly mailer: (smtp: Mailer | null) => Mailer;
  /** The public URL of the pages, from the port listened on: `http://localhost:<port>`
   * (WebAuthn refuses an IP address as the relying party); also the issuer when none is set. */
  readonly webUrl: (port: number) => string;
}

/**
 * Step 3: compose the service over its store and serve it; it serves until the process ends.
 * @param s the settings (step 1)
 * @param store the open store (step 2; closed here when this step fails)
 * @param clock the clock
 * @param demo the demo's outbox and public URL (absent: SMTP, and the issuer for the pages)
 * @returns the server, its URLs, the store and the service (stop both on shutdown)
 * @throws Error for a signing key the configured secret does not open; listen errors as is
 */
export async function serveTokenService(
  s: TokenSettings,
  store: TokenStore,
  clock: Clock,
  demo?: DemoServing,
): Promise<RunningTokenService> {
  const { cfg, run, keyCipher, log } = s;
  const smtp = smtpSettings(run);
  const smtpMailer = smtp ? createSmtpMailer(smtp) : null;
  const mailer = demo ? demo.mailer(smtpMailer) : smtpMailer;
  let issuer = cfg.issuer ?? "";
  let webUrl = "";
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
      adminToken: run.adminToken ?? null,
      mailer,
      webUrl: () => webUrl,
      noticeIntervalMs: run.noticeIntervalSeconds * 1000,
      usageFlushMs: run.usageFlushSeconds * 1000,
      instanceId: run.instanceId,
      rateLimits: rateLimitSettings(run),
      sharedRateCounters: isPostgresUrl(cfg.databaseUrl),
      accessLog: run.accessLog,
      requestLog: run.requestLog,
      log: (level, msg, fields) => log(level, msg, fields),
    });
    await reportKeysAtRest(store, keyCipher, cfg, log);
    agentUpdateRoute(service.app, await manifestFileSource(s.updateManifest, log));
    server = serveLoopback(service.app.fetch, cfg.port, cfg.host, 1);
  } catch (err) {
    await store.close();
    throw err;
  }
  const listenUrl = `http://${cfg.host}:${server.addr.port}`;
  webUrl = demo?.webUrl(server.addr.port) ?? "";
  if (!issuer) issuer = webUrl || listenUrl;
  if (!webUrl) webUrl = issuer;
  service.start();
  if (!mailer) log("warn", "SVC_SMTP_HOST is not set: e-mail notices stay pending");
  if (!run.adminToken) log("info", "SVC_ADMIN_TOKEN is not set: the admin API is disabled");
  const drain = () => {
    service.drain.draining = true;
    return waitUntilQuiet(service.drain, { maxMs: run.shutdownDelaySeconds * 1000 });
  };
  return { server, url: issuer, listenUrl, webUrl, store, service, drain };
}
