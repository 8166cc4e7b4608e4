/**
 * How console routes answer: a whole page with the session's one-time
 * message, the redirect after an action, the message of a failed one, reading a form (the page
 * shown without a session is open_help.ts).
 * @module
 */
import type { Context } from "hono";
import { html } from "hono/html";
import { AppError, bi, isAppError } from "../../contract/mod.ts";
import {
  type Bilingual,
  bothWith,
  consoleHeaders,
  consolePage,
  type ConsolePageId,
  type Flash,
} from "./layout.ts";
import type { ConsoleSession } from "./session.ts";
import type { PageSender } from "../../web_frame.ts";
import type { AgentEnv } from "../http/mod.ts";

/** Hono variables of the console routes. */
export type ConsoleEnv = {
  Variables: AgentEnv["Variables"] & {
    session: ConsoleSession;
    banner?: Bilingual | null;
  };
};

/** A console route's context. */
export type ConsoleC = Context<ConsoleEnv>;

/**
 * The console page of something that is not there (a batch, a protocol): the page's title and
 * one sentence, HTTP 404.
 * @param c the route's context
 * @param page the current page
 * @param title the page's title
 * @param sentence what is missing, in the page's language
 * @returns the page
 */
export function notFoundPage(
  c: ConsoleC,
  page: ConsolePageId,
  title: Bilingual,
  sentence: string,
): Promise<Response> {
  return sendPage(c, page, title, html`<p>${sentence}</p>`, 404);
}

/**
 * Render a whole console page: a {@link PageSender} whose message, when none is given, is the
 * one the session kept for this page (shown once).
 */
export const sendPage: PageSender<ConsoleC, ConsolePageId> = async (
  c,
  page,
  title,
  body,
  status = 200,
  flash = null,
) => {
  const s = c.get("session") as ConsoleSession | undefined;
  const shown = flash ?? s?.flash ?? null;
  if (s) s.flash = null;
  const banner = c.get("banner") ?? null;
  const url = new URL(c.req.url);
  const back = url.pathname + url.search;
  const text = String(await consolePage({ flash: shown, banner, back }, page, title, body));
  return c.html(text, status, consoleHeaders());
};

/**
 * After a successful action: keep the message for the next page and go there (303).
 * @param c the route's context
 * @param to the page's path
 * @param flash the message
 */
export function doneAndGo(c: ConsoleC, to: string, flash: Flash): Response {
  c.get("session").flash = flash;
  return c.redirect(to, 303);
}

/** The message of a failed action, from the error (AppError texts are stable sentences). */
export function errorFlash(e: unknown, what: Bilingual): Flash {
  const detail = isAppError(e)
    ? (e.details?.bg ? bi(String(e.details.bg), e.message) : bi(e.message, e.code))
    : bi(String((e as Error)?.message ?? e), "unexpected");
  return {
    kind: "error",
    ...bothWith("console.failed", (l) => ({ what: what[l], detail: detail[l] })),
  };
}

/**
 * Read a console form (urlencoded or multipart) as strings.
 * @param c the route's context
 * @returns the fields (files are ignored)
 */
export async function formOf(c: ConsoleC): Promise<Record<string, string>> {
  const raw = await c.req.parseBody().catch(() => {
    throw new AppError("CONSOLE_INPUT_INVALID", "The form could not be read", {
      bg: "Формулярът не може да бъде прочетен",
    });
  });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string") out[k] = v;
  return out;
}
