/**
 * The page shown without a console session (403, docs/console.md § Opening it): after a
 * restart of the agent, an expired session, a used link or a sign-out. It says exactly how to
 * open the console on this computer's system — Windows: the Start-menu entry "Агент за подаване
 * към НАП" or the agent's icon next to the clock; macOS: the app in Applications; elsewhere the
 * launcher's command — and, where the agent can open the default browser, offers a button that
 * has the agent open a fresh one-time link in a new tab, on the page that was asked for
 * (`POST /console/reopen`). The link goes to the default browser of the agent's own user, never
 * back in the answer: whoever sees this page gets no session from it.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { ConsoleContext } from "./deps.ts";
import { type Bilingual, both, type Flash, say, w } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, formOf, sendPage } from "./respond.ts";

/** How often the page may have the agent open a tab (a local program pressing it in a loop). */
export const REOPEN_EVERY_MS = 3_000;

/**
 * Where a fresh link may land: a console page of this origin (`/` or `/console/…`), never the
 * link, the reopening or another site.
 * @param p the path (with its query) the page was asked for
 * @returns the path, or "/" when it is not a console page
 */
export function consoleNext(p: string | undefined): string {
  if (!p || !/^\/(console\/[\w./-]*)?(\?[\w=&%.+-]*)?$/.test(p) || p.includes("..")) return "/";
  return /^\/console\/(open|reopen|links|shutdown|stop)\b/.test(p) ? "/" : p;
}

/** The launcher's commands by default (the portable package's name). */
const OPEN_COMMAND = "svc-filing agent open";

/** The sentence that says how to open the console on this agent's OS. */
export function openWords(ctx: ConsoleContext): string {
  const cd = ctx.console;
  const command = cd?.openCommand ?? OPEN_COMMAND;
  const os = cd?.os ?? Deno.build.os;
  if (os === "windows") return w("open.windows");
  return w(os === "darwin" ? "open.darwin" : "open.other", { command });
}

/**
 * The page without a session (403): why (a used link, a sign-out, an earlier session), how to
 * open the console on this OS, and the button that has the agent open it.
 * @param ctx the console's context (OS, commands, whether it can open the browser)
 * @param c the route's context
 * @param why a sentence on top, or null
 * @param flash a message (the tab was opened), or null
 * @param status 403, or 200 after the button was pressed
 */
export function howToOpen(
  ctx: ConsoleContext,
  c: ConsoleC,
  why: Bilingual | null,
  flash: Flash | null = null,
  status: 200 | 403 = 403,
): Promise<Response> {
  const u = new URL(c.req.url);
  const back = consoleNext(c.req.method === "GET" ? u.pathname + u.search : "/");
  const offer = ctx.console?.openBrowser
    ? html`
      <form method="post" action="/console/reopen" id="reopen-form">
        <input type="hidden" name="back" value="${back}">
        <p>${w("open.offer")}</p>
        <button id="reopen">${w("open.open_it")}</button>
      </form>
    `
    : "";
  return sendPage(
    c,
    null,
    both("console.the_agent_s_console"),
    html`
      <div class="card" id="how-to-open">
        <p>${why ? html`<strong id="why">${say(why)}</strong><br>` : ""}${w(
          "console.the_console_is_for",
        )}</p>
        <ol>
          <li id="open-words">${openWords(ctx)}</li>
          <li>${w("console.the_agent_opens_the")}</li>
        </ol>
        ${offer}
      </div>
    `,
    status,
    flash,
  );
}

/** `POST /console/reopen`: the agent opens a fresh link in the default browser. */
function reopen(
  ctx: ConsoleContext,
  c: ConsoleC,
  last: { at: number },
): Promise<Response> | Response {
  const open = ctx.console?.openBrowser;
  if (!open) return howToOpen(ctx, c, null);
  return formOf(c).catch(() => ({} as Record<string, string>)).then((form) => {
    const now = ctx.clock.now();
    if (now - last.at >= REOPEN_EVERY_MS) {
      last.at = now;
      const next = consoleNext(form.back);
      const link = `http://127.0.0.1:${ctx.port()}${ctx.sessions.newLink()}` +
        (next === "/" ? "" : `&next=${encodeURIComponent(next)}`);
      ctx.log("info", "console reopened", {});
      open(link);
    }
    return howToOpen(ctx, c, null, { kind: "ok", ...both("open.opened") }, 200);
  });
}

/**
 * The route of the page without a session: `POST /console/reopen` (no session needed; cross-site
 * requests never get here, http/rate_limit.ts refuses them).
 * @param ctx the console's context
 * @returns the sub-app
 */
export function openHelpRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const last = { at: -Infinity };
  r.post("/console/reopen", (c) => reopen(ctx, c, last));
  return r;
}
