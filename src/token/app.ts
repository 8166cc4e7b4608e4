/**
 * The token service's HTTP app (Hono; never listens — `main.ts` serves it): `POST
 * /api/v1/tokens/issue` exactly per interface-spec.md § Endpoints / Token service,
 * `GET /.well-known/jwks.json`, `GET /health`, `GET /api/v1/openapi.json`.
 * Errors: `{error, errorCode, errorKind}` (+ `rejectedEiks` for 403) with 400/401/402/403.
 * @module
 */
import { Hono } from "hono";
import { TokenIssueRequest } from "../contract/api.ts";
import { AppError, isAppError } from "../contract/errors.ts";
import { buildTokenOpenApi } from "../contract/openapi.ts";
import type { Clock } from "../clock.ts";
import { VERSION } from "../version.ts";
import { authenticateKey, type IssueConfig, issueToken, type IssueTimings } from "./issue.ts";
import type { KeyRing } from "./signer.ts";
import type { TokenStore } from "./store.ts";

/** Dependencies of {@link createTokenApp}. */
export interface TokenAppDeps {
  readonly store: TokenStore;
  /** Returns the current key ring (reloaded after a rotation). */
  readonly keyRing: () => KeyRing;
  readonly clock: Clock;
  readonly config: IssueConfig;
  /** Optional accumulator of the issuance time split (benchmarks). */
  readonly timings?: IssueTimings;
  /** Log sink for unexpected errors (never given secrets). */
  readonly log?: (msg: string, fields?: Record<string, unknown>) => void;
}

const MAX_BODY_BYTES = 256 * 1024;

function errorBody(e: AppError) {
  return {
    error: e.message,
    errorCode: e.code,
    errorKind: e.kind,
    ...(e.code === "EIK_NOT_ALLOWED" ? { rejectedEiks: e.details?.rejectedEiks ?? [] } : {}),
    ...(e.details && e.code !== "EIK_NOT_ALLOWED" ? { details: e.details } : {}),
  };
}

function firstIssue(err: { issues: { path: PropertyKey[]; message: string }[] }) {
  const i = err.issues[0]!;
  const field = i.path.map(String).join(".") || "body";
  return new AppError("VALIDATION_FAILED", `Field "${field}" ${i.message}`, { field });
}

/**
 * Build the token service app.
 * @param deps store, key ring, clock, issuance config
 * @returns a Hono app
 */
export function createTokenApp(deps: TokenAppDeps): Hono {
  const app = new Hono();
  const openapi = buildTokenOpenApi(VERSION);

  app.onError((err, c) => {
    if (isAppError(err)) {
      // Token-service validation errors are 400s (the agent's are 502).
      const status = err.code === "VALIDATION_FAILED" || err.code === "INVALID_JSON"
        ? 400
        : err.status;
      return c.json(errorBody(err), status as 400);
    }
    deps.log?.("unexpected error", { error: String(err) });
    return c.json({
      error: "Unexpected error in the token service",
      errorCode: "SERVICE_INTERNAL_ERROR",
      errorKind: "PORTAL",
    }, 500);
  });
  app.notFound((c) =>
    c.json({ error: "No such route", errorCode: "NOT_FOUND", errorKind: "PARAMETER" }, 404)
  );

  app.post("/api/v1/tokens/issue", async (c) => {
    const now = deps.clock.now();
    const t0 = performance.now();
    const key = await authenticateKey(deps.store, c.req.header("authorization"), now);
    if (deps.timings) deps.timings.keyLookupUs += (performance.now() - t0) * 1000;
    const len = Number(c.req.header("content-length") ?? "0");
    if (len > MAX_BODY_BYTES) throw new AppError("BODY_TOO_LARGE", "The body is too large");
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      throw new AppError("INVALID_JSON", "The body is not valid JSON");
    }
    const parsed = TokenIssueRequest.safeParse(raw);
    if (!parsed.success) throw firstIssue(parsed.error);
    const issued = await issueToken(
      deps.store,
      deps.keyRing(),
      deps.config,
      key,
      parsed.data,
      now,
      deps.timings,
    );
    return c.json(issued, 200, { "cache-control": "no-store" });
  });

  app.get("/.well-known/jwks.json", (c) =>
    c.json(deps.keyRing().jwks(), 200, { "cache-control": "public, max-age=60" }));
  app.get("/health", (c) => c.json({ status: "ok", service: "svc-token-service", version: VERSION }));
  app.get("/api/v1/openapi.json", (c) => c.json(openapi));
  return app;
}
