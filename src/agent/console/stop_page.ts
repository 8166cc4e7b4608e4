/**
 * Stopping the agent (docs/console.md § Stopping the agent, docs/cli.md § agent stop): the
 * console's "Stop the agent" asks first (`GET /console/stop`), then stops it
 * (`POST /console/stop`, session and CSRF token as every console change); `agent stop` of this
 * agent's user asks with the data folder's `console.secret` (`POST /console/shutdown`, the
 * handshake of `agent open`). Either way the agent stops as on SIGTERM: the confirmations waiting
 * are declined, the requests under way (filings) finish, the journal is closed and the lock
 * released; a filing cut off by a kill instead is journaled as unknown and reconciled at the
 * next start (docs/journal.md § Unknown → resolve).
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, csrfField, w } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, doneAndGo, errorFlash, sendPage } from "./respond.ts";
import { sameToken } from "./session.ts";

/** The refusal when this agent has no way to stop itself (the demo's agent). */
const unavailable = () =>
  new AppError("AGENT_STOP_UNAVAILABLE", "This agent stops only where it runs (Ctrl+C)", {
    bg: "Този агент спира само там, където работи (Ctrl+C).",
  });

/** How to start the agent again on its OS. */
function startAgainWords(ctx: ConsoleContext): string {
  const os = ctx.console?.os ?? Deno.build.os;
  if (os === "windows") return w("stop.start_again_windows");
  if (os === "darwin") return w("stop.start_again_darwin");
  const command = ctx.console?.startCommand ?? "svc-filing agent";
  return w("stop.start_again_other", { command });
}

/** Stop after this answer has been sent (the server's shutdown waits for it). */
function stopSoon(stop: () => void): void {
  setTimeout(stop, 0);
}

/** `GET /console/stop`: what stopping does, and the confirmation. */
function stopQuestion(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const csrf = c.get("session").csrf;
  return sendPage(
    c,
    "status",
    both("stop.title"),
    html`
      <div class="card" id="stop-question">
        <p>${w("stop.what_happens")}</p>
        <p>${startAgainWords(ctx)}</p>
        <form method="post" action="/console/stop" class="inline">${csrfField(csrf)}
          <button id="stop-confirm">${w("stop.yes")}</button>
        </form>
        <a href="/" id="stop-cancel">${w("stop.cancel")}</a>
      </div>
    `,
  );
}

/** `POST /console/stop`: the confirmed stop. */
async function stopConfirmed(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const stop = ctx.console?.stop;
  if (!stop) return doneAndGo(c, "/", errorFlash(unavailable(), both("stop.stop_the_agent")));
  ctx.log("info", "console stop", {});
  await ctx.sessions.end(c.get("session").id);
  stopSoon(stop);
  return await sendPage(
    c,
    null,
    both("stop.title"),
    html`
      <div class="card" id="stopping">
        <p>${w("stop.stopping")}</p>
        <p>${startAgainWords(ctx)}</p>
      </div>
    `,
  );
}

/** `POST /console/shutdown`: `agent stop` of this agent's user (the `console.secret`). */
function shutdown(ctx: ConsoleContext, c: ConsoleC): Response {
  const secret = ctx.console?.linkSecret;
  const sent = c.req.header("x-svc-console-secret");
  if (!secret || !sent || !sameToken(sent, secret)) {
    throw new AppError("CONSOLE_LINK_INVALID", "Only `agent stop` of this agent's user can ask");
  }
  const stop = ctx.console?.stop;
  if (!stop) throw unavailable();
  ctx.log("info", "agent stop asked", {});
  stopSoon(stop);
  return c.json({ stopping: true }, 202, { "cache-control": "no-store" });
}

/**
 * The routes that stop the agent.
 * @param ctx the console's context (its `console.stop`)
 * @returns `GET`/`POST /console/stop` and `POST /console/shutdown`
 * @throws AppError CONSOLE_LINK_INVALID (shutdown without this user's secret),
 *   AGENT_STOP_UNAVAILABLE (an agent without a way to stop itself)
 */
export function stopRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get("/console/stop", (c) => stopQuestion(ctx, c));
  r.post("/console/stop", (c) => stopConfirmed(ctx, c));
  r.post("/console/shutdown", (c) => shutdown(ctx, c));
  return r;
}
