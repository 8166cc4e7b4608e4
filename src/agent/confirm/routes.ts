/**
 * Routes of the confirmation page: `GET /confirm/:id` renders it (a dialog no longer waiting
 * gets a short "closed" page, 404); `GET /confirm/:id/state` is what the page polls;
 * `POST /confirm/:id/decision` applies confirm/decline; `GET /confirm/:id/filings` is what the
 * page after "Confirm" polls (the filings made under it, follow.ts). A decision needs the page's one-time
 * nonce and must come from the agent's own origin (`Origin` header, or
 * `Sec-Fetch-Site: same-origin` when Origin is absent); its body is validated (decision.ts).
 * Cross-site requests to `/confirm/*` never get here (http/rate_limit.ts refuses them).
 * @module
 */
import { getCookie } from "hono/cookie";
import { LANG_COOKIE, langOf, withLang } from "../texts/mod.ts";
import { type Context, Hono } from "hono";
import { AppError } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { type AgentEnv, errorResponse } from "../http/mod.ts";
import type { ConfirmationManager } from "./manager.ts";
import { readDecision } from "./decision.ts";
import { type FollowedFiling, followedFilings } from "./follow.ts";
import {
  pageHeaders,
  renderAfterPage,
  renderClosedPage,
  renderConfirmPage,
  renderDonePage,
} from "./page.ts";
import { CONFIRM_SCRIPTS } from "./assets/mod.ts";

/** What the confirmation routes need besides the manager. */
interface ConfirmRouteDeps {
  clock: Clock;
  log: Logger;
  ownOrigins: () => string[];
  /** The journal rows filed under a dialog's requests, in words (absent: not followed). */
  followed?: (filingIds: readonly string[]) => FollowedFiling[];
}

/**
 * Build the sub-app mounted at `/confirm`.
 * @param m the confirmation manager
 * @param deps clock, logger, port
 * @returns a Hono sub-app
 */
export function confirmRoutes(m: ConfirmationManager, deps: ConfirmRouteDeps): Hono<AgentEnv> {
  const r = new Hono<AgentEnv>();
  r.onError((err, c) => errorResponse(c, err, deps.log));
  // The page's language: the accountant's choice on the console (a cookie of this origin).
  r.use("*", (c, next) => withLang(langOf(getCookie(c, LANG_COOKIE)), next));
  r.get("/:id", (c) => confirmPage(m, deps, c));
  // The page polls this to show requests that join (or leave) while it is open.
  r.get("/:id/state", (c) => dialogState(m, c));
  // The page after "Confirm" follows the filings made under it (page_follow.ts).
  r.get("/:id/filings", (c) => followedRows(m, deps, c));
  r.post("/:id/decision", (c) => decide(m, deps, c));
  return r;
}

type ConfirmC = Context<AgentEnv, "/:id">;

/** `GET /confirm/:id`: the page (a confirmed two-step page: the checks' outcome or its PIN
 * step; a closed dialog: 404). */
function confirmPage(m: ConfirmationManager, deps: ConfirmRouteDeps, c: ConfirmC): Response {
  const d = m.get(c.req.param("id"));
  const h = pageHeaders(CONFIRM_SCRIPTS);
  // A confirmed two-step page: the checks' outcome, or on to its PIN step.
  if (d?.after) {
    const pin = d.after.pinStep === null ? undefined : m.get(d.after.pinStep);
    if (pin?.state === "pending") return c.redirect(`/confirm/${pin.id}`, 303);
    return c.html(renderAfterPage(d, pin), 200, h);
  }
  if (!d || d.state !== "pending") return c.html(renderClosedPage(), 404, h);
  return c.html(renderConfirmPage(d, deps.clock.now()), 200, h);
}

/** `GET /confirm/:id/state`: the requests listed now, and after a two-step consent its checks. */
function dialogState(m: ConfirmationManager, c: ConfirmC): Response {
  const d = m.get(c.req.param("id"));
  const pending = d !== undefined && d.state === "pending";
  // After a two-step consent: the checks' counts and the PIN step to move on to.
  const a = d?.after;
  const pin = a?.pinStep ? m.get(a.pinStep) : undefined;
  return c.json(
    {
      requests: pending ? d.subjects.length : 0,
      version: pending ? d.version : 0,
      ...(a
        ? {
          after: {
            checking: a.checking.size,
            failed: a.failed.length,
            passed: a.passed,
            next: pin?.state === "pending" ? `/confirm/${pin.id}` : null,
          },
        }
        : {}),
    },
    200,
    { "cache-control": "no-store" },
  );
}

/** `GET /confirm/:id/filings`: the journal rows filed under the dialog, in words. */
function followedRows(m: ConfirmationManager, deps: ConfirmRouteDeps, c: ConfirmC): Response {
  const d = m.get(c.req.param("id"));
  const ids = d ? followedFilings(d.subjects) : [];
  return c.json({ filings: deps.followed?.(ids) ?? [] }, 200, { "cache-control": "no-store" });
}

/** The decision must come from the agent's own page (its Origin, else Sec-Fetch-Site). */
function assertOwnPage(deps: ConfirmRouteDeps, c: ConfirmC): void {
  const own = deps.ownOrigins();
  // "null" is what a browser sends when it withholds the origin: fall back to Sec-Fetch-Site.
  const origin = c.req.header("origin") === "null" ? undefined : c.req.header("origin");
  const site = c.req.header("sec-fetch-site");
  if (origin ? !own.includes(origin) : site !== undefined && site !== "same-origin") {
    throw new AppError(
      "ORIGIN_NOT_ALLOWED",
      "A decision can only come from the agent's own page",
    );
  }
  if (!origin && site === undefined) {
    throw new AppError("ORIGIN_NOT_ALLOWED", "A decision must carry the page's Origin");
  }
}

/** `POST /confirm/:id/decision`: the person's answer (JSON, or the page after it). */
async function decide(
  m: ConfirmationManager,
  deps: ConfirmRouteDeps,
  c: ConfirmC,
): Promise<Response> {
  assertOwnPage(deps, c);
  const form = await readDecision(
    c.req.header("content-type") ?? "",
    () => c.req.json(),
    () => c.req.parseBody(),
  );
  const { decision } = form;
  const extension = !!m.get(c.req.param("id"))?.base;
  try {
    m.decide(c.req.param("id"), form.nonce, decision, form.senderId, form.pin, form.seen);
  } catch (e) {
    // A browser whose page missed a joined request gets the page again, now listing it.
    const json = (c.req.header("accept") ?? "").includes("application/json");
    if (!json && e instanceof AppError && e.code === "CONFIRMATION_CHANGED") {
      return c.redirect(`/confirm/${c.req.param("id")}`, 303);
    }
    throw e;
  }
  deps.log("info", "confirmation decided", { decision, ...(extension ? { extension } : {}) });
  const h = pageHeaders(CONFIRM_SCRIPTS);
  const decided = m.get(c.req.param("id"));
  if ((c.req.header("accept") ?? "").includes("application/json")) {
    return c.json({ decision, ...(decided?.after ? { next: `/confirm/${decided.id}` } : {}) });
  }
  // Consent to read: the page follows the checks and moves on to the PIN step.
  if (decided?.after) {
    const pin = decided.after.pinStep ? m.get(decided.after.pinStep) : undefined;
    return c.html(renderAfterPage(decided, pin), 200, h);
  }
  const follow = deps.followed ? `/confirm/${c.req.param("id")}/filings` : null;
  return c.html(renderDonePage(decision, extension, follow), 200, h);
}
