/**
 * Operations of the token service behind a load balancer (docs/token-service.md § Scale-out;
 * docs/token-service.md § Operations): `GET /ready` (database reachable and migrations current,
 * else 503 SERVICE_NOT_READY), and the draining state a graceful shutdown sets: `/ready` answers
 * 503 and every answer closes its connection, so clients and proxies open new connections
 * elsewhere while the running requests finish (the access log and the request count:
 * edge/request_edge.ts).
 * @module
 */
import type { Hono } from "hono";
import { AppError } from "../../contract/mod.ts";
import type { TokenStore } from "../store/mod.ts";

/** Whether the instance is shutting down, and its traffic (shared by the app and the process
 * edge). */
export interface DrainState {
  draining: boolean;
  /** Requests being answered now (kept by edge/request_edge.ts's `withEdge`). */
  inFlight?: number;
  /** When the last request arrived or was answered (`performance.now()`). */
  lastActivity?: number;
}

/**
 * Wait until the instance is quiet while it drains: no request in flight and none for
 * `quietMs`, or `maxMs` at most. Meanwhile `/ready` answers 503 and answers close their
 * connections, so the load balancer and keep-alive clients move to other instances before the
 * listener closes (a request already sent on a kept-alive connection is still answered).
 * @param drain the draining state
 * @param opts quiet period (default 500 ms) and the longest wait
 */
export async function waitUntilQuiet(
  drain: DrainState,
  opts: { readonly quietMs?: number; readonly maxMs: number },
): Promise<void> {
  const quietMs = opts.quietMs ?? 500;
  const deadline = performance.now() + opts.maxMs;
  drain.lastActivity = Math.max(drain.lastActivity ?? 0, performance.now());
  while (performance.now() < deadline) {
    const idleFor = performance.now() - (drain.lastActivity ?? 0);
    if ((drain.inFlight ?? 0) === 0 && idleFor >= quietMs) return;
    await new Promise((r) =>
      setTimeout(r, Math.min(50, Math.max(1, deadline - performance.now())))
    );
  }
}

/** Options of {@link readyRoute}. */
export interface ReadyOptions {
  readonly store: Pick<TokenStore, "schemaStatus">;
  readonly drain?: DrainState | undefined;
  /** How long the database may take to answer (default 2000 ms). */
  readonly timeoutMs?: number;
}

type NotReady = "shutting_down" | "database_unreachable" | "migrations_pending";

/**
 * Add `GET /ready`: 200 `{status: "ready", schemaVersion}` when the database answers within the
 * timeout and every migration of this build is applied (newer ones are fine: an instance of the
 * previous release stays in rotation while the next one rolls out); else 503 `SERVICE_NOT_READY` with
 * `details.reason`, `Cache-Control: no-store` and `Retry-After: 5` (thrown for the app's error
 * handler, errors_wire.ts).
 * @param app the token app (its error handler answers the 503)
 * @param o store, draining state, timeout
 */
export function readyRoute(app: Hono, o: ReadyOptions): void {
  const notReady = (reason: NotReady, extra: Record<string, unknown> = {}) =>
    new AppError(
      "SERVICE_NOT_READY",
      reason === "shutting_down"
        ? "The instance is shutting down"
        : reason === "database_unreachable"
        ? "The database cannot be reached"
        : "The database's migrations are not current",
      { reason, ...extra },
    );
  app.get("/ready", async (c) => {
    if (o.drain?.draining) throw notReady("shutting_down");
    let timer: ReturnType<typeof setTimeout> | undefined;
    let status;
    try {
      status = await Promise.race([
        o.store.schemaStatus(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("timeout")), o.timeoutMs ?? 2000);
        }),
      ]);
    } catch {
      throw notReady("database_unreachable");
    } finally {
      clearTimeout(timer);
    }
    if (status.pending.length > 0) {
      throw notReady("migrations_pending", { pending: status.pending });
    }
    return c.json({ status: "ready", schemaVersion: status.applied }, 200, {
      "cache-control": "no-store",
    });
  });
}
