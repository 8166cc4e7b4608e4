/**
 * The agent's HTTP app (Hono; never listens — `main.ts` serves it on 127.0.0.1 only):
 * `POST /api/v1/operations/:typeId`, `GET /api/senders`, `POST /api/pick-file`,
 * `POST /api/pick-folder`, `GET /api/v1/openapi.json`, `GET /health`, `GET /docs` (offline Swagger
 * UI), and the confirmation page `GET /confirm/:id` + `POST /confirm/:id/decision`
 * (docs/confirmation.md § Sender confirmation); the pages' style sheets and scripts at `GET /assets/<name>.<hash>.<ext>` (web_assets.ts).
 * @module
 */
import { Hono } from "hono";
// Only the functions used (semver's index loads its ~50 CommonJS modules).
import valid from "semver/functions/valid.js";
import gt from "semver/functions/gt.js";
import { bodyLimit } from "hono/body-limit";
import { AppError, getOperation, requireJsonMediaType } from "../contract/mod.ts";
import { VERSION } from "../version.ts";
import {
  type AgentEnv,
  cors,
  docsRoutes,
  errorResponse,
  hostGuard,
  JtiCache,
  peerGuard,
  rateLimits,
  type TokenVerifier,
} from "./http/mod.ts";
import {
  CONFIRM_ASSETS,
  ConfirmationManager,
  confirmRoutes,
  RemoteApprovals,
} from "./confirm/mod.ts";
import {
  CONSOLE_ASSETS,
  consoleRoutes,
  ConsoleSessions,
  followedInWords,
  type SenderBook,
} from "./console/mod.ts";
import { assetResponse } from "../web_assets.ts";
import { runOperation } from "./operations/mod.ts";
import { BatchBoard, tokenHash } from "./filing/mod.ts";
import type { AgentDeps } from "./deps.ts";

export type { AgentDeps };
import { publicSenders, readAgentFile, type SenderConfig } from "./senders/mod.ts";

/** The app plus handles tests and `main.ts` use. */
export interface AgentApp {
  readonly app: Hono<AgentEnv>;
  readonly confirmations: ConfirmationManager;
  readonly jtis: JtiCache;
  /** The console's one-time links and sessions (`agent open`, the demo, the first start). */
  readonly consoleSessions: ConsoleSessions;
  /** The senders in force (the console replaces them when it changes agent.json). */
  readonly senders: SenderBook;
  /** The progress of folder-wide filings (GET /api/v1/batches/{batchId}, the console). */
  readonly batches: BatchBoard;
}

/**
 * Build the agent app.
 * @param deps injected side effects (clock, portal, browser opener, senders, JWKS)
 * @returns the app and its state holders
 */
export function createAgentApp(deps: AgentDeps): AgentApp {
  const app = new Hono<AgentEnv>();
  const jtis = new JtiCache();
  const agentVersion = deps.agentVersion ?? VERSION;
  const confirmations = confirmationManager(deps);
  const senders = senderBook(deps);
  const consoleSessions = new ConsoleSessions(deps.clock, deps.port);
  // Batches an earlier run was stopped in are listed as interrupted (docs/journal.md).
  const batches = new BatchBoard(deps.clock, deps.journal?.batches);
  const remoteApprovals = new RemoteApprovals(deps);
  // non-null: tlsPort() answered a port in the condition just before
  const ports = () => [deps.port(), ...(deps.tlsPort?.() ? [deps.tlsPort()!] : [])];

  app.onError((err, c) => errorResponse(c, err, deps.log));
  app.notFound((c) => errorResponse(c, new AppError("NOT_FOUND", "No such route"), deps.log));
  edge(app, deps, ports, confirmations);
  apiRoutes(app, deps, agentVersion, senders, batches);
  app.route(
    "/confirm",
    confirmRoutes(confirmations, {
      ...deps,
      ownOrigins: () => ownOrigins(ports()),
      followed: (ids) => followedInWords(deps.journal, ids),
    }),
  );
  app.route(
    "/",
    consoleRoutes({
      ...deps,
      sessions: consoleSessions,
      version: agentVersion,
      latestVersion: deps.latestVersion ?? (() => null),
      senders,
      batches,
    }),
  );
  // A cloud signature's approval at its provider (docs/signing.md § 11).
  app.route("/remote", remoteApprovals.routes());
  app.route("/docs", docsRoutes(deps.docsAssetsDir ? { assetsDir: deps.docsAssetsDir } : {}));
  const verifier: TokenVerifier = { ...deps.verifier, clock: deps.clock, jtis, agentVersion };
  app.post(
    "/api/v1/operations/:typeId",
    bodyLimit({ maxSize: deps.maxBodyBytes ?? 64 * 1024 * 1024, onError: tooLarge }),
    async (c) => {
      const op = getOperation(c.req.param("typeId"));
      if (!op) {
        throw new AppError("UNKNOWN_TYPE_ID", `No operation "${c.req.param("typeId")}"`, {
          typeId: c.req.param("typeId"),
        });
      }
      // JSON only, before the token is spent: a "simple" cross-site request (text/plain, a
      // form) is never read as an operation's body (docs/errors.md, UNSUPPORTED_MEDIA_TYPE).
      requireJsonMediaType(c.req.header("content-type"));
      const result = await runOperation(c, op, {
        ...deps,
        senders: senders.current(),
        verifier,
        confirmations,
        batches,
        remoteApprovals,
      });
      return c.json(result, 200, { "cache-control": "no-store" });
    },
  );
  return { app, confirmations, jtis, consoleSessions, senders, batches };
}

/** The sender confirmations, whose page opens in the default browser. */
function confirmationManager(deps: AgentDeps): ConfirmationManager {
  return new ConfirmationManager({
    clock: deps.clock,
    timeoutMs: deps.confirmTimeoutMs,
    maxPending: deps.maxPendingConfirmations,
    openPage: (path) => {
      const url = `http://127.0.0.1:${deps.port()}${path}`;
      deps.log("info", "confirmation page opened", { url });
      deps.openBrowser(url);
    },
  });
}

/** The senders in force: agent.json's, read again when the console changes it. */
function senderBook(deps: AgentDeps): SenderBook {
  let senderList: readonly SenderConfig[] = deps.senders;
  return {
    current: () => senderList,
    reload: async () => {
      if (deps.console) senderList = (await readAgentFile(deps.console.dataDir)).senders;
    },
  };
}

/** What every request passes first: its id and debug log line, the Host check, CORS, and the
 * rate limits. */
function edge(
  app: Hono<AgentEnv>,
  deps: AgentDeps,
  ports: () => number[],
  confirmations: ConfirmationManager,
): void {
  const randomId = deps.randomId ?? (() => crypto.randomUUID());
  app.use("*", async (c, next) => {
    const requestId = randomId();
    const t0 = performance.now();
    c.set("requestId", requestId);
    c.header("x-request-id", requestId);
    await next();
    deps.log("debug", "request", {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - t0) * 10) / 10,
      origin: c.req.header("origin") ?? null,
    });
  });
  // Another OS user's program gets nothing but /health (docs/running.md § Shared PCs).
  if (deps.sameUser) app.use("*", peerGuard(deps.sameUser, ports, deps.log));
  app.use("*", hostGuard(ports));
  app.use(
    "*",
    cors(deps.originPolicy ?? ((o) => Promise.resolve(ownOrigins(ports()).includes(o)))),
  );
  app.use(
    "*",
    rateLimits(deps.rateLimits, (id) => confirmations.get(id)?.state === "pending"),
  );
}

/** The small routes of the API: health, the OpenAPI document, senders, a folder-wide filing's
 * progress, the native pickers. */
function apiRoutes(
  app: Hono<AgentEnv>,
  deps: AgentDeps,
  agentVersion: string,
  senders: SenderBook,
  batches: BatchBoard,
): void {
  app.get("/health", (c) => {
    const latest = deps.latestVersion?.() ?? null;
    return c.json(
      {
        status: "ok",
        service: "svc-agent",
        version: agentVersion,
        port: deps.port(),
        latestVersion: latest,
        updateAvailable: latest !== null && valid(latest) !== null &&
          gt(latest, agentVersion),
      },
      200,
      { "cache-control": "no-store" },
    );
  });
  // The pages' style sheets and scripts, by their hashed names (web_assets.ts).
  const pageAssets = [...CONSOLE_ASSETS, ...CONFIRM_ASSETS];
  app.get("/assets/:file", (c) => assetResponse(pageAssets, c.req.param("file")) ?? c.notFound());
  // Built on first request: the OpenAPI generator is not loaded at start.
  let openapi: Record<string, unknown> | null = null;
  app.get("/api/v1/openapi.json", async (c) =>
    c.json(
      openapi ??= (await import("../contract/openapi/mod.ts")).buildAgentOpenApi(agentVersion),
    ));
  app.get("/api/senders", (c) => c.json(publicSenders(senders.current())));
  // The progress of a folder-wide filing, for the integrator and page origin that started it:
  // the token of one of its requests (kept as a hash; its 5 s may have passed) and the Origin.
  app.get("/api/v1/batches/:batchId", (c) =>
    c.json(
      batches.read(
        c.req.param("batchId"),
        tokenHash(c.req.header("authorization")),
        c.req.header("origin") ?? null,
      ),
      200,
      { "cache-control": "no-store" },
    ));
  for (const kind of ["file", "folder"] as const) {
    app.post(
      `/api/pick-${kind}`,
      bodyLimit({ maxSize: 16 * 1024, onError: tooLarge }),
      async (c) => {
        if (!deps.pickers) {
          throw new AppError("PICKER_UNAVAILABLE", "No native dialog is available");
        }
        return c.json(await deps.pickers.pick(kind));
      },
    );
  }
}

/** The agent's own origins on its ports (http and https, 127.0.0.1 and localhost). */
export function ownOrigins(ports: number[]): string[] {
  return ports.flatMap((p) =>
    ["http", "https"].flatMap((s) => [`${s}://127.0.0.1:${p}`, `${s}://localhost:${p}`])
  );
}

function tooLarge(): never {
  throw new AppError("BODY_TOO_LARGE", "The request body is too large");
}
