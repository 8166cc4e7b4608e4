/**
 * The console's routes (docs/console.md): the pages at `/` and `/console/*` for the person at the
 * machine, the one-time link `GET /console/open?code=…`, and `POST /console/links` where
 * `agent open` trades the data folder's `console.secret` for such a link.
 *
 * Every page needs the session cookie the link set; every POST also needs the session's CSRF
 * token (form field `csrf` or header `X-CSRF-Token`). Without them: 403 and nothing changes —
 * a page request gets the explanation how to open the console. Bearer tokens are ignored.
 * Cross-site requests never get here (http/rate_limit.ts refuses them) and no CORS header is
 * ever given (http/cors.ts skips these paths).
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../../contract/mod.ts";
import { FAVICON_HREF } from "../confirm/mod.ts";
import { errorResponse } from "../http/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { type Bilingual, both } from "./layout.ts";
import { LANG_COOKIE, langOf, withLang } from "../texts/mod.ts";
import type { ConsoleEnv } from "./respond.ts";
import { consoleNext, howToOpen, openHelpRoutes } from "./open_help.ts";
import { stopRoutes } from "./stop_page.ts";
import { sameToken } from "./session.ts";
import { csrfValid } from "../../web_session.ts";
import { otherAgentWords, portHolderWords } from "../start/mod.ts";
import { statusRoutes } from "./status_page.ts";
import { toolsRoutes } from "./tools_pages.ts";
import { filingsRoutes } from "./filings_page.ts";
import { filingsExportRoutes } from "./filings_export.ts";
import { receiptRoutes } from "./receipt_page.ts";
import { sendersRoutes } from "./senders_page.ts";
import { batchesRoutes } from "./batches_page.ts";
import { trayStateRoutes } from "./tray_state.ts";

export type { ConsoleEnv };

/** The agent's icon (the confirmation page's), as SVG. */
const FAVICON = decodeURIComponent(FAVICON_HREF.slice(FAVICON_HREF.indexOf(",") + 1));

/** Paths that need no session: the link, the link handshake and the icon. */
const OPEN_PATHS = new Set([
  "/console/open",
  "/console/links",
  "/console/language",
  "/console/state",
  "/console/reopen",
  "/console/shutdown",
  "/favicon.ico",
]);

/** Where the language switch may send the browser back to: a path of this origin only. */
const localPath = (p: string | undefined): string =>
  p && p.startsWith("/") && !p.startsWith("//") && !p.includes("\\") ? p : "/";

/**
 * The two-agents warning on top of every page: this agent took another port because another
 * agent holds the usual one; or this agent holds the usual one and another runs on the range
 * (one too many) — each with how to stop the other (docs/running.md § Another agent).
 */
async function twoAgentsBanner(ctx: ConsoleContext): Promise<Bilingual | null> {
  const program = ctx.console?.program ?? "svc-filing";
  const holder = ctx.console?.portHolder?.() ?? null;
  if (holder) return portHolderWords(holder, ctx.port(), program);
  const [other] = await ctx.console?.otherAgents?.().catch(() => []) ?? [];
  return other ? otherAgentWords(other, program) : null;
}

/**
 * The console's guard, in front of every console path: the page's language (texts/lang.ts), the
 * banner of another agent on the usual port, then — except on the open paths — the session
 * cookie (a GET without one is told how to open the console) and, on a POST, its CSRF token.
 * @throws AppError CONSOLE_SESSION_REQUIRED, CONSOLE_CSRF_INVALID
 */
function consoleGuard(ctx: ConsoleContext): MiddlewareHandler<ConsoleEnv> {
  const guard: MiddlewareHandler<ConsoleEnv> = (c, next) =>
    // Every text of the page is drawn in the language the accountant chose (texts/lang.ts).
    withLang(langOf(getCookie(c, LANG_COOKIE)), () => guarded(c, next));
  const guarded: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
    // Another agent on the usual port: said on top of every page (start/port_holder.ts).
    c.set("banner", await twoAgentsBanner(ctx));
    if (OPEN_PATHS.has(c.req.path)) return await next();
    const cookie = getCookie(c, ctx.sessions.cookieName());
    const session = await ctx.sessions.get(cookie);
    if (!session) {
      // A cookie this agent does not know: a session of before its restart, or expired.
      if (c.req.method === "GET") {
        return await howToOpen(ctx, c, cookie ? both("open.session_gone") : null);
      }
      throw new AppError("CONSOLE_SESSION_REQUIRED", "Open the console with `agent open`");
    }
    c.set("session", session);
    if (c.req.method === "POST") {
      if (!(await csrfValid(c, session.csrf))) {
        throw new AppError("CONSOLE_CSRF_INVALID", "The page's CSRF token is missing or wrong");
      }
    }
    await next();
  };
  return guard;
}

/**
 * The console's entry routes: its icon, the one-time link that opens a session, the link
 * `agent open` asks for, the language switch, and sign-out.
 */
function entryRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get("/favicon.ico", (c) =>
    c.body(FAVICON, 200, {
      "content-type": "image/svg+xml",
      "cache-control": "max-age=86400",
      "x-content-type-options": "nosniff",
    }));

  // The one-time link: a session cookie for this agent (named after its port), then the status.
  r.get("/console/open", async (c) => {
    const s = await ctx.sessions.redeem(c.req.query("code") ?? "");
    if (!s) {
      ctx.log("warn", "console link refused", {});
      return howToOpen(ctx, c, both("console.this_link_was_used"));
    }
    setCookie(c, ctx.sessions.cookieName(), s.id, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
    });
    // `agent open --lang` (the Windows tray's language) opens the console in that language.
    const to = c.req.query("lang");
    if (to === "bg" || to === "en") {
      setCookie(c, LANG_COOKIE, to, { sameSite: "Strict", path: "/", maxAge: 400 * 24 * 3600 });
    }
    ctx.log("info", "console opened", {});
    // A link the page without a session had the agent open lands where that page was asked.
    return c.redirect(consoleNext(c.req.query("next")), 303);
  });

  // `agent open` (same user: it can read the data folder) asks for a link.
  r.post("/console/links", (c) => {
    const secret = ctx.console?.linkSecret;
    const sent = c.req.header("x-svc-console-secret");
    if (!secret || !sent || !sameToken(sent, secret)) {
      throw new AppError("CONSOLE_LINK_INVALID", "Only `agent open` of this agent's user can ask");
    }
    return c.json({ url: `http://127.0.0.1:${ctx.port()}${ctx.sessions.newLink()}` }, 200, {
      "cache-control": "no-store",
    });
  });

  // The language switch: remembered in a cookie of this origin (the confirmation page follows
  // it too), then back to the page it was pressed on. A preference, not an action: no CSRF.
  r.get("/console/language", (c) => {
    const lang = langOf(c.req.query("to"));
    setCookie(c, LANG_COOKIE, lang, {
      sameSite: "Strict",
      path: "/",
      maxAge: 400 * 24 * 3600,
    });
    return c.redirect(localPath(c.req.query("back")), 303);
  });

  r.post("/console/sign-out", async (c) => {
    await ctx.sessions.end(c.get("session").id);
    return howToOpen(ctx, c, both("console.you_signed_out_of"));
  });
  return r;
}

/**
 * Build the console's routes (mounted at `/` of the agent's app).
 * @param ctx clock, log, sessions, senders, journal, portals and the console's side effects
 * @returns a Hono sub-app answering `/`, `/console/*` and `/favicon.ico`
 */
export function consoleRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.onError((err, c) => errorResponse(c, err, ctx.log));
  const limit = bodyLimit({
    maxSize: 256 * 1024,
    onError: () => {
      throw new AppError("BODY_TOO_LARGE", "The form is too large");
    },
  });
  const guard = consoleGuard(ctx);
  for (const p of ["/", "/console", "/console/*", "/favicon.ico"]) r.use(p, limit, guard);
  r.route("/", entryRoutes(ctx));
  r.route("/", trayStateRoutes(ctx));
  r.route("/", openHelpRoutes(ctx));
  r.route("/", stopRoutes(ctx));
  r.route("/", statusRoutes(ctx));
  r.route("/", toolsRoutes(ctx));
  r.route("/", filingsExportRoutes(ctx));
  r.route("/", filingsRoutes(ctx));
  r.route("/", receiptRoutes(ctx));
  r.route("/", batchesRoutes(ctx));
  r.route("/", sendersRoutes(ctx));
  return r;
}
