/**
 * The token service assembled from injected parts (docs/token-service.md § Access phases,
 * points 1 and 8): the HTTP app (issue, applications, admin), the notice scheduler, the usage
 * recorder and the periodic reload of the signing key ring (rotations made by other instances
 * or the admin CLI). Never listens and never reads the environment: `main.ts` does.
 * @module
 */
import type { Hono } from "hono";
import type { Clock } from "../clock.ts";
import type { RandomBytes } from "./access/mod.ts";
import { createTokenApp } from "./app.ts";
import type { AppLog } from "./deps.ts";
import {
  type IssueConfig,
  type IssueTimings,
  type KeyRing,
  loadKeyRing,
  type SigningKeyCipher,
} from "./issuance/mod.ts";
import { type Mailer, NoticeScheduler } from "./notices/mod.ts";
import type { TokenStore } from "./store/mod.ts";
import { BillingCounter } from "./contracts/mod.ts";
import { RequestLogRecorder } from "./request_log/mod.ts";
import {
  createRateLimiter,
  type DrainState,
  leasedRateCounter,
  memoryRateCounter,
  type RateLimiter,
  type RateLimitSettings,
} from "./edge/mod.ts";

export type { AppLog } from "./deps.ts";

/** Options of {@link createTokenService}. */
export interface TokenServiceOptions {
  readonly store: TokenStore;
  readonly clock: Clock;
  /** Read on every request (may be a getter: the issuer is known after listening). */
  readonly config: IssueConfig;
  readonly adminToken?: string | null;
  /** null = notices stay pending (no SMTP configured). */
  readonly mailer?: Mailer | null;
  readonly random?: RandomBytes;
  readonly log?: AppLog;
  /** Notice scheduler tick, ms (default 60 s). */
  readonly noticeIntervalMs?: number;
  /** Usage flush interval, ms (default 1 s; 0 = write through). */
  readonly usageFlushMs?: number;
  /** Signing key ring reload interval, ms (default 30 s). */
  readonly keyRingReloadMs?: number;
  /** Lease owner name of this instance's scheduler. */
  readonly instanceId?: string | undefined;
  /** Accumulator of the issuance time split (benchmarks). */
  readonly timings?: IssueTimings;
  /** The signing key secret's cipher (SVC_SIGNING_KEY_SECRET); absent/null = plain text. */
  readonly keyCipher?: SigningKeyCipher | null;
  /** Budgets per API key and integrator (absent = no limits; edge/rate_limit.ts). */
  readonly rateLimits?: RateLimitSettings;
  /** Count the budgets in the database, shared by the instances (PostgreSQL), instead of in
   * this process (SQLite). */
  readonly sharedRateCounters?: boolean;
  /** Log one `request` line per request (method, path, status, ms, requestId). */
  readonly accessLog?: boolean;
  /** Which token requests the request log keeps (SVC_REQUEST_LOG; default all). */
  readonly requestLog?: "all" | "errors";
  /** The public URL of the pages for people, when not the issuer (the demo: app.ts). */
  readonly webUrl?: () => string;
}

/** A running (or startable) token service. */
export interface TokenService {
  readonly app: Hono;
  readonly scheduler: NoticeScheduler;
  readonly usage: BillingCounter;
  /** The request log of token requests (request_log/recorder.ts). */
  readonly requestLog: RequestLogRecorder;
  keyRing(): KeyRing;
  reloadKeyRing(): Promise<void>;
  /** Set by a graceful shutdown: `/ready` answers 503 and answers close their connections. */
  readonly drain: DrainState;
  /** Start the scheduler, the usage flush and the key ring reload. */
  start(): void;
  /** Stop them, flush usage and close the mailer (the store stays open: the caller owns it). */
  stop(): Promise<void>;
}

/**
 * Build the token service.
 * @param o store, clock, issuance config, admin token, mailer, intervals
 * @returns the service (call `start()` after listening)
 * @throws Error from the store when the signing keys cannot be loaded, or when the current one is
 *   encrypted and `keyCipher` is missing or holds another secret (issuance/key_cipher.ts)
 */
export async function createTokenService(o: TokenServiceOptions): Promise<TokenService> {
  const log: AppLog = o.log ?? (() => {});
  const cipher = o.keyCipher ?? null;
  const keyPlace = { store: o.store, rnd: o.random, cipher };
  let ring = await loadKeyRing(keyPlace, o.clock.now());
  const reloadKeyRing = async () => {
    ring = await loadKeyRing(keyPlace, o.clock.now());
  };
  const { usage, requestLog, scheduler } = backgroundWork(o, log);
  const drain: DrainState = { draining: false };
  const rateLimiter = rateLimiterOf(o, log);
  const app = createTokenApp({
    store: o.store,
    keyRing: () => ring,
    clock: o.clock,
    get config() {
      return o.config;
    },
    timings: o.timings,
    log: (m, f) => log("error", m, f),
    usage,
    adminToken: o.adminToken ?? null,
    random: o.random,
    reloadKeyRing,
    keyCipher: cipher,
    rateLimiter,
    drain,
    requestLog,
    mailer: o.mailer ?? null,
    serviceLog: log,
    webUrl: o.webUrl,
    accessLog: o.accessLog ? (entry) => log("info", "request", { ...entry }) : undefined,
  });
  let reload: ReturnType<typeof setInterval> | undefined;
  return {
    app,
    scheduler,
    usage,
    requestLog,
    keyRing: () => ring,
    reloadKeyRing,
    drain,
    start() {
      scheduler.start();
      usage.start();
      requestLog.start();
      if (reload === undefined) {
        const t = setInterval(() => {
          reloadKeyRing().catch((e) =>
            log("warn", "could not reload signing keys", { error: String(e) })
          );
        }, o.keyRingReloadMs ?? 30_000);
        Deno.unrefTimer(t);
        reload = t;
      }
    },
    async stop() {
      if (reload !== undefined) clearInterval(reload);
      reload = undefined;
      await scheduler.stop();
      await usage.stop();
      await requestLog.stop();
      o.mailer?.close();
    },
  };
}

/** The work the service does besides answering: usage counting, the request log, e-mail
 * notices (each started and stopped with the service). */
function backgroundWork(o: TokenServiceOptions, log: AppLog) {
  const usage = new BillingCounter({
    store: o.store,
    flushMs: o.usageFlushMs,
    onError: (e) => log("warn", "usage flush failed; will retry", { error: String(e) }),
  });
  const requestLog = new RequestLogRecorder({
    store: o.store,
    now: () => o.clock.now(),
    flushMs: o.usageFlushMs,
    keep: o.requestLog,
    onError: (e) => log("warn", "request log flush failed; will retry", { error: String(e) }),
    onFallback: (e) => log("warn", "request log: writing in the main thread", { error: e.message }),
  });
  const scheduler = new NoticeScheduler({
    store: o.store,
    mailer: o.mailer ?? null,
    clock: o.clock,
    instanceId: o.instanceId,
    intervalMs: o.noticeIntervalMs,
    random: o.random,
    log,
  });
  return { usage, requestLog, scheduler };
}

/** The budgets per key and integrator, their counters in memory or leased from the database
 * (several instances on PostgreSQL), or none. */
function rateLimiterOf(o: TokenServiceOptions, log: AppLog): RateLimiter | undefined {
  if (!o.rateLimits) return undefined;
  return createRateLimiter(
    o.rateLimits,
    o.sharedRateCounters
      ? leasedRateCounter(
        o.store,
        (e) => log("warn", "could not delete old rate-limit windows", { error: String(e) }),
      )
      : memoryRateCounter(),
  );
}
