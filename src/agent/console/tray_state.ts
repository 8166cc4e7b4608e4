/**
 * `GET /console/state`: the agent's state at a glance for the Windows tray icon
 * (docs/install.md § The tray icon). Asked, like `POST /console/links`, with the console secret
 * of the data folder (`x-svc-console-secret`), so only programs of this agent's user read it.
 *
 * ```json
 * { "state": "filing", "batchId": "…", "done": 3, "total": 10 }
 * ```
 *
 * `state`: `filing` while a folder-wide filing runs (`done` of `total` companies settled, the
 * newest running batch), `attention` when a batch of the last minutes ended with companies
 * failed or of unknown outcome, else `running`. Refused with 403 `CONSOLE_LINK_INVALID` without
 * the secret.
 * @module
 */
import { Hono } from "hono";
import { AppError } from "../../contract/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import type { ConsoleEnv } from "./respond.ts";
import { sameToken } from "./session.ts";

/** The tray's view of the agent. */
export interface TrayState {
  readonly state: "running" | "filing" | "attention";
  readonly batchId?: string;
  /** Companies settled of the running batch. */
  readonly done?: number;
  readonly total?: number;
}

/**
 * The tray's state from the batches the console keeps.
 * @param list the batches, running first (BatchBoard.list())
 * @returns the state
 */
export function trayState(
  list: readonly {
    progress: {
      batchId: string;
      state: string;
      total: number;
      filed: number;
      skipped: number;
      failed: number;
      unknown: number;
    };
  }[],
): TrayState {
  const running = list.find((b) => b.progress.state === "running");
  if (running) {
    const p = running.progress;
    return {
      state: "filing",
      batchId: p.batchId,
      done: p.filed + p.skipped + p.failed + p.unknown,
      total: p.total,
    };
  }
  // An interrupted batch (the agent was stopped while it ran) also asks for attention.
  const bad = list.some((b) =>
    b.progress.failed + b.progress.unknown > 0 || b.progress.state === "interrupted"
  );
  return { state: bad ? "attention" : "running" };
}

/**
 * The route (an open path of the console guard: the secret is its check).
 * @param ctx the console's context
 * @returns the routes
 */
export function trayStateRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get("/console/state", (c) => {
    const secret = ctx.console?.linkSecret;
    const sent = c.req.header("x-svc-console-secret");
    if (!secret || !sent || !sameToken(sent, secret)) {
      throw new AppError("CONSOLE_LINK_INVALID", "Only this agent's user can read its state");
    }
    return c.json(trayState(ctx.batches?.list() ?? []), 200, { "cache-control": "no-store" });
  });
  return r;
}
