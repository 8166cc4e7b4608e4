/**
 * The token service's HTTP app (Hono; never listens — `main.ts` serves it): `POST
 * /api/v1/tokens/issue` exactly per docs/tokens.md § Issuing,
 * `GET /.well-known/jwks.json`, `GET /health`, `GET /ready`, `GET /api/v1/openapi.json`; the
 * integrator's contract application `POST|GET /api/v1/applications` (authenticated with the
 * integrator's own key); and the admin API under `/admin/v1/*` (admin credential only;
 * docs/token-service.md § Access phases). Errors: `{error, errorCode, errorKind, requestId}` (+
 * `rejectedEiks` for 403) with the error catalog's status for the token service — 400/401/402/403,
 * 429 over a key's or integrator's budget (`edge/rate_limit.ts`), 503 while the database is
 * unreachable — written by `edge/errors_wire.ts`. Every request passes the edge
 * (`edge/request_edge.ts`: request id, access log, draining); the hot route is
 * `issuance/issue_route.ts`.
 * @module
 */
import { Hono } from "hono";
import { AppError } from "../contract/mod.ts";
import { buildTokenOpenApi } from "../contract/openapi/mod.ts";
import type { Clock } from "../clock.ts";
import { VERSION } from "../version.ts";
import {
  authenticateKey,
  httpOriginList,
  type IssueConfig,
  issueRoute,
  type IssueTimings,
  type KeyRing,
  MAX_ISSUE_BODY_BYTES,
  type SigningKeyCipher,
} from "./issuance/mod.ts";
import type { TokenStore } from "./store/mod.ts";
import {
  type AccessLogEntry,
  type DrainState,
  errorAnswer,
  limitBody,
  limitRequest,
  type RateLimiter,
  readyRoute,
  withEdge,
} from "./edge/mod.ts";
import {
  adminAuth,
  adminContractRoutes,
  adminKeyRoutes,
  adminOpenApiRoutes,
  adminSigningKeyRoutes,
  ApplicationSubmit,
  MAX_ADMIN_BODY_BYTES,
  parseInput,
  readJson,
} from "./admin/mod.ts";
import { applicationView, type BillingCounter, submitApplication } from "./contracts/mod.ts";
import {
  MAX_ORIGINS_PER_INTEGRATOR,
  MAX_PUBLISHED_ORIGINS,
  type RandomBytes,
  registrableOrigin,
} from "./access/mod.ts";
import type { RequestLogRecorder } from "./request_log/mod.ts";
import type { Mailer } from "./notices/mod.ts";
import type { AppLog } from "./deps.ts";
import { profileRoutes } from "./profile/mod.ts";
import { auditAdminApi } from "./audit/mod.ts";
import { deskRoutes } from "./desk/mod.ts";
import { DemoOutbox, OUTBOX_PATH, outboxRoutes } from "./outbox/mod.ts";

/** The limits, bytes, by group of routes. */
export const BODY_LIMITS = {
  /** `POST /api/v1/tokens/issue` (a folder-wide request lists many EIKs). */
  issue: MAX_ISSUE_BODY_BYTES,
  /** `/api/v1/applications` (an integrator's contract application). */
  applications: 64 * 1024,
  /** The admin API `/admin/v1/*` (a key's allowed list holds up to 10,000 EIKs). */
  adminApi: MAX_ADMIN_BODY_BYTES,
  /** The profile `/profile/*`: forms, one-time links, passkey ceremonies. */
  profile: 64 * 1024,
  /** The desk `/admin/*` (not `/admin/v1/*`): forms (an allowed list of up to 10,000 EIKs),
   * links, passkey ceremonies. */
  desk: 256 * 1024,
} as const;

/**
 * Put the limits in front of every route group of the token app except issuance (call before
 * the routes are added).
 * @param app the token app
 */
function bodyLimits(app: Hono): void {
  app.use("/api/v1/applications", limitBody(BODY_LIMITS.applications));
  app.use("/profile", limitBody(BODY_LIMITS.profile));
  app.use("/profile/*", limitBody(BODY_LIMITS.profile));
  app.use("/admin/v1/*", limitBody(BODY_LIMITS.adminApi));
  const api = (p: string) => p.startsWith("/admin/v1/");
  app.use("/admin", limitBody(BODY_LIMITS.desk));
  app.use("/admin/*", limitBody(BODY_LIMITS.desk, api));
}

/** Dependencies of {@link createTokenApp}. */
export interface TokenAppDeps {
  readonly store: TokenStore;
  /** Returns the current key ring (reloaded after a rotation). */
  readonly keyRing: () => KeyRing;
  readonly clock: Clock;
  readonly config: IssueConfig;
  /** Optional accumulator of the issuance time split (benchmarks). */
  readonly timings?: IssueTimings | undefined;
  /** Log sink for unexpected errors (never given secrets). */
  readonly log?: ((msg: string, fields?: Record<string, unknown>) => void) | undefined;
  /** Usage counters for billing (absent = not counted). */
  readonly usage?: BillingCounter | undefined;
  /** The admin credential (config SVC_ADMIN_TOKEN); absent/null = admin API disabled. */
  readonly adminToken?: string | null | undefined;
  /** Random source of ids and secrets created through the admin API and of tokens' `jti`. */
  readonly random?: RandomBytes | undefined;
  /** Reload the key ring after a signing-key rotation through the admin API. */
  readonly reloadKeyRing?: (() => Promise<void>) | undefined;
  /** Encrypts signing keys at rest (SVC_SIGNING_KEY_SECRET); absent/null = plain text. */
  readonly keyCipher?: SigningKeyCipher | null | undefined;
  /** Source of request ids (`X-Request-Id`, `requestId` of error bodies); default random UUIDs. */
  readonly randomId?: (() => string) | undefined;
  /** Budgets per API key and integrator (absent = no limits). */
  readonly rateLimiter?: RateLimiter | undefined;
  /** Sink of the access log, one entry per request (absent = no access log). */
  readonly accessLog?: ((entry: AccessLogEntry) => void) | undefined;
  /** Set while the instance shuts down: `/ready` answers 503, answers close their connection. */
  readonly drain?: DrainState | undefined;
  /** The request log of token requests (absent = none; request_log/recorder.ts). */
  readonly requestLog?: RequestLogRecorder | undefined;
  /** Sends the profile's one-time links (absent/null = no SMTP; the pages say so). */
  readonly mailer?: Mailer | null | undefined;
  /** The service's log at every level (the profile's sign-ins, failed link mails). */
  readonly serviceLog?: AppLog | undefined;
  /** The public URL of the pages for people (links in mails, the passkeys' relying party);
   * default the issuer. The demo's is `http://localhost:<port>` (docs/token-service.md § The
   * demo outbox). */
  readonly webUrl?: (() => string) | undefined;
}

/**
 * Build the token service app.
 * @param deps store, key ring, clock, issuance config
 * @returns a Hono app
 */
export function createTokenApp(deps: TokenAppDeps): Hono {
  const app = new Hono();
  // The one mapping of errors to the wire (edge/errors_wire.ts): statuses from the catalog.
  app.onError((err, c) => errorAnswer(c, err, deps.log));
  app.notFound((c) => errorAnswer(c, new AppError("NOT_FOUND", "No such route")));
  // Bodies over their route's limit are refused before anything reads them (bodyLimits, with
  // edge/body_limits.ts).
  bodyLimits(app);
  app.post("/api/v1/tokens/issue", issueRoute(deps));
  applicationRoutes(app, deps);
  // The pages for people: the integrators' profile and the administrators' desk (after the
  // admin API, whose /admin/v1/* it must not take).
  const web = webDeps(deps);
  const log = deps.requestLog;
  app.route("/profile", profileRoutes({ ...web, flushLog: log ? () => log.flush() : undefined }));
  adminApiRoutes(app, deps);
  app.route("/admin", deskRoutes(web));
  // The demo's outbox page exists only where the demo wired its outbox as the mailer.
  if (deps.mailer instanceof DemoOutbox) app.route(OUTBOX_PATH, outboxRoutes(deps.mailer));
  publicRoutes(app, deps);
  return withEdge(app, {
    randomId: deps.randomId,
    accessLog: deps.accessLog,
    drain: deps.drain,
    ...(log ? { onAnswer: (req, status, id, code) => log.finish(req, status, id, code) } : {}),
  });
}

/** What the admin API's operations (and the integrators' applications) need. */
function adminDeps(deps: TokenAppDeps) {
  return {
    store: deps.store,
    clock: deps.clock,
    random: deps.random,
    flushUsage: flushUsageOf(deps),
    reloadKeyRing: deps.reloadKeyRing,
    keyCipher: deps.keyCipher ?? null,
  };
}

/** What the pages for people (profile, desk) need. */
function webDeps(deps: TokenAppDeps) {
  const webLog: AppLog = deps.serviceLog ??
    ((level, msg, fields) => level === "error" ? deps.log?.(msg, fields) : undefined);
  return {
    store: deps.store,
    clock: deps.clock,
    random: deps.random,
    mailer: deps.mailer ?? null,
    publicUrl: deps.webUrl ?? (() => deps.config.issuer),
    log: webLog,
    flushUsage: flushUsageOf(deps),
  };
}

/** Write the buffered usage counters before a page or the admin API reads them (undefined: no
 * buffer). */
function flushUsageOf(deps: TokenAppDeps): (() => Promise<void>) | undefined {
  const usage = deps.usage;
  return usage ? () => usage.flush() : undefined;
}

/** Phase 2 of access: the integrator applies for a contract with its own (test or live) key. */
function applicationRoutes(app: Hono, deps: TokenAppDeps): void {
  const admin = adminDeps(deps);
  app.post("/api/v1/applications", async (c) => {
    const now = deps.clock.now();
    const { key } = await authenticateKey(deps.store, c.req.header("authorization"), now);
    await limitRequest(c, deps.rateLimiter, key, now);
    const input = parseInput(ApplicationSubmit, await readJson(c));
    return c.json(applicationView(await submitApplication(admin, key.integratorId, input)), 201);
  });
  app.get("/api/v1/applications", async (c) => {
    const now = deps.clock.now();
    const { key } = await authenticateKey(deps.store, c.req.header("authorization"), now);
    await limitRequest(c, deps.rateLimiter, key, now);
    const items = await deps.store.listApplications({ integratorId: key.integratorId });
    return c.json({ items: items.map(applicationView) });
  });
}

/** The admin API (automation, SVC_ADMIN_TOKEN; audited); the desk at /admin is for people. */
function adminApiRoutes(app: Hono, deps: TokenAppDeps): void {
  const admin = adminDeps(deps);
  app.use("/admin/v1/*", adminAuth(deps.adminToken), auditAdminApi(deps.store, deps.clock));
  app.route("/admin/v1", adminKeyRoutes(admin));
  app.route("/admin/v1", adminContractRoutes(admin));
  app.route("/admin/v1", adminSigningKeyRoutes(admin));
  app.route("/admin/v1", adminOpenApiRoutes(VERSION));
}

/** The open routes: JWKS, health, readiness, the OpenAPI document, and for agents the page
 * origins integrators registered (their CORS allow-list) and the agent versions. */
function publicRoutes(app: Hono, deps: TokenAppDeps): void {
  const openapi = buildTokenOpenApi(VERSION);
  const allowedOrigins = originList(deps.store);
  app.get(
    "/.well-known/jwks.json",
    (c) => c.json(deps.keyRing().jwks(), 200, { "cache-control": "public, max-age=60" }),
  );
  app.get(
    "/health",
    (c) => c.json({ status: "ok", service: "svc-token-service", version: VERSION }),
  );
  readyRoute(app, { store: deps.store, drain: deps.drain });
  app.get("/api/v1/openapi.json", (c) => c.json(openapi));
  app.get("/api/v1/allowed-origins", async (c) => {
    const { body, etag } = await allowedOrigins(deps.clock.now());
    const headers = { "cache-control": "public, max-age=30", etag };
    // An agent that has this list already gets 304 without it.
    if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
    return c.body(body, 200, { ...headers, "content-type": "application/json" });
  });
  app.get("/api/v1/agent-version", (c) =>
    c.json(
      {
        minimum: deps.config.minAgentVersion,
        latest: deps.config.latestAgentVersion ?? deps.config.minAgentVersion ?? null,
      },
      200,
      { "cache-control": "public, max-age=60" },
    ));
}

/** Where the signed agent update manifest comes from: its compact JWS, or null (none). */
export type UpdateManifestSource = () => Promise<string | null>;

/**
 * Add `GET /api/v1/agent-update` to a token app (docs/token-service.md § Agent
 * updates): the signed update manifest as published (a compact JWS, `application/jose`), which
 * agents verify with their built-in keys — the service only passes it on.
 * @param app the token app (its error handler answers the 404)
 * @param source the manifest's source (src/cli/token_settings.ts reads SVC_UPDATE_MANIFEST)
 * @returns the app
 * @throws AppError UPDATE_NOT_PUBLISHED (404) from the route when none is published
 */
export function agentUpdateRoute(app: Hono, source: UpdateManifestSource | null): Hono {
  app.get("/api/v1/agent-update", async (c) => {
    const jws = source ? await source() : null;
    if (jws === null) {
      throw new AppError("UPDATE_NOT_PUBLISHED", "No agent update is published here");
    }
    return c.body(jws, 200, {
      "content-type": "application/jose",
      "cache-control": "public, max-age=60",
    });
  });
  return app;
}

/**
 * The agents' CORS allow-list (`GET /api/v1/allowed-origins`; docs/token-service.md § Page
 * origins): per integrator its own origins and those of its keys in use, https or http on
 * loopback only, at most {@link MAX_ORIGINS_PER_INTEGRATOR} (the first registered), and at most
 * {@link MAX_PUBLISHED_ORIGINS} in all; reloaded from the store at most every 30 s, with an
 * ETag of the body's SHA-256 so that agents holding it get 304. Issuance reads a key's origins
 * with the key instead.
 * @param store the store
 * @returns the body and its ETag at an instant (epoch ms)
 */
function originList(
  store: TokenStore,
): (now: number) => Promise<{ body: string; etag: string }> {
  let at = -Infinity;
  let out = { body: "", etag: "" };
  return async (now) => {
    if (now - at > 30_000) {
      const keysOf = Map.groupBy(await store.listKeys(), (k) => k.integratorId);
      const all = new Set<string>();
      for (const i of await store.listIntegrators()) {
        const own = new Set<string>();
        const add = (list: readonly string[] | null | undefined) => {
          for (const o of (list ?? []).flatMap(httpOriginList)) {
            if (own.size < MAX_ORIGINS_PER_INTEGRATOR && registrableOrigin(o)) own.add(o);
          }
        };
        add(i.allowedOrigins);
        for (const k of keysOf.get(i.id) ?? []) if (k.revokedAt === null) add(k.allowedOrigins);
        for (const o of own) if (all.size < MAX_PUBLISHED_ORIGINS) all.add(o);
      }
      const body = JSON.stringify({ origins: [...all] });
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
      out = {
        body,
        etag: `"${new Uint8Array(digest).toBase64({ alphabet: "base64url", omitPadding: true })}"`,
      };
      at = now;
    }
    return out;
  };
}
