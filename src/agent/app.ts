/**
 * The agent's HTTP app (Hono; never listens — `main.ts` serves it on 127.0.0.1 only):
 * `POST /api/v1/operations/:typeId`, `GET /api/senders`, `POST /api/pick-file`,
 * `POST /api/pick-folder`, `GET /api/v1/openapi.json`, `GET /health`, `GET /docs` (offline Swagger UI), and the confirmation
 * page `GET /confirm/:id` + `POST /confirm/:id/decision` (interface-spec.md § Endpoints).
 * @module
 */
import { Hono } from "hono";
// Only the functions used (semver's index loads its ~50 CommonJS modules).
import valid from "semver/functions/valid.js";
import gt from "semver/functions/gt.js";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../contract/errors.ts";
import { getOperation } from "../contract/operations.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { PortalAdapter } from "../portal/adapter.ts";
import { VERSION } from "../version.ts";
import { JtiCache, type TokenVerifier } from "./auth.ts";
import { ConfirmationManager } from "./confirm/manager.ts";
import { confirmRoutes } from "./confirm/routes.ts";
import { docsRoutes } from "./docs_page.ts";
import { errorResponse } from "./errors_wire.ts";
import { hostGuard } from "./host_guard.ts";
import { cors, type OriginPolicy } from "./cors.ts";
import { rateLimits, type RateLimitSettings } from "./rate_limit.ts";
import { runOperation } from "./operation.ts";
import { publicSenders, type SenderConfig } from "./senders.ts";
import type { LocalOps } from "./local_ops.ts";
import type { Pickers } from "./pickers.ts";
import type { Journal } from "./journal.ts";
import type { HoldPoint } from "./filing.ts";

/** Dependencies of {@link createAgentApp}. */
export interface AgentDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** JWKS key lookup and expected issuer/audience. */
  readonly verifier: Omit<TokenVerifier, "clock" | "jtis" | "agentVersion">;
  readonly senders: readonly SenderConfig[];
  readonly portals: { readonly test: PortalAdapter; readonly live?: PortalAdapter };
  /** Opens a URL in the user's default browser. */
  readonly openBrowser: (url: string) => void;
  /** The port the agent listens on (for the Host check and the page URL). */
  readonly port: () => number;
  /** Newest agent version the token service knows (for /health), or null. */
  readonly latestVersion?: () => string | null;
  /** The HTTPS port when loopback TLS is on (see tls.ts), else null. */
  readonly tlsPort?: () => number | null;
  readonly confirmTimeoutMs?: number;
  readonly maxPendingConfirmations?: number;
  /** Local file operations (scans, parse, reading submission files). */
  readonly localOps?: LocalOps;
  readonly pickers?: Pickers;
  /** Body limit of operation requests, bytes (default 64 MiB). */
  readonly maxBodyBytes?: number;
  readonly agentVersion?: string;
  /** Which page origins may call (CORS); default: none but the agent's own. */
  readonly originPolicy?: OriginPolicy;
  readonly rateLimits?: Partial<RateLimitSettings>;
  /** The submission journal (absent: filings are not journaled). */
  readonly journal?: Journal;
  /** Crash-test instrumentation (SVC_TEST_HOLD_AT). */
  readonly hold?: (point: HoldPoint, filingId: string) => Promise<void>;
}

/** The app plus handles tests and `main.ts` use. */
export interface AgentApp {
  readonly app: Hono;
  readonly confirmations: ConfirmationManager;
  readonly jtis: JtiCache;
}

/**
 * Build the agent app.
 * @param deps injected side effects (clock, portal, browser opener, senders, JWKS)
 * @returns the app and its state holders
 */
export function createAgentApp(deps: AgentDeps): AgentApp {
  const app = new Hono();
  const jtis = new JtiCache();
  const agentVersion = deps.agentVersion ?? VERSION;
  const verifier: TokenVerifier = { ...deps.verifier, clock: deps.clock, jtis, agentVersion };
  const confirmations = new ConfirmationManager({
    clock: deps.clock,
    timeoutMs: deps.confirmTimeoutMs,
    maxPending: deps.maxPendingConfirmations,
    openPage: (path) => {
      const url = `http://127.0.0.1:${deps.port()}${path}`;
      deps.log("info", "confirmation page opened", { url });
      deps.openBrowser(url);
    },
  });
  let openapi: Record<string, unknown> | null = null;

  app.onError((err, c) => errorResponse(c, err, deps.log));
  app.notFound((c) => errorResponse(c, new AppError("NOT_FOUND", "No such route"), deps.log));

  app.use("*", async (c, next) => {
    const requestId = crypto.randomUUID();
    const t0 = performance.now();
    c.set("requestId" as never, requestId as never);
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
  const ports = () => [deps.port(), ...(deps.tlsPort?.() ? [deps.tlsPort()!] : [])];
  app.use("*", hostGuard(ports));
  app.use(
    "*",
    cors(deps.originPolicy ?? ((o) => Promise.resolve(ownOrigins(ports()).includes(o)))),
  );
  app.use("*", rateLimits(deps.rateLimits));

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
  // Built on first request: the OpenAPI generator is not loaded at start.
  app.get("/api/v1/openapi.json", async (c) =>
    c.json(
      openapi ??= (await import("../contract/openapi.ts")).buildAgentOpenApi(agentVersion),
    ));
  app.get("/api/senders", (c) => c.json(publicSenders(deps.senders)));

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

  app.route(
    "/confirm",
    confirmRoutes(confirmations, { ...deps, ownOrigins: () => ownOrigins(ports()) }),
  );
  app.route("/docs", docsRoutes());

  app.post(
    "/api/v1/operations/:typeId",
    bodyLimit({ maxSize: deps.maxBodyBytes ?? 64 * 1024 * 1024, onError: tooLarge }),
    async (c) => {
      const op = getOperation(c.req.param("typeId"));
      if (!op) {
        throw new AppError("UNKNOWN_OPERATION", `No operation "${c.req.param("typeId")}"`, {
          typeId: c.req.param("typeId"),
        });
      }
      const result = await runOperation(c, op, {
        ...deps,
        verifier,
        confirmations,
      });
      return c.json(result, 200, { "cache-control": "no-store" });
    },
  );
  return { app, confirmations, jtis };
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
