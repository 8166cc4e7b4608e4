/**
 * The profile's and the desk's pages in the one frame of both programs (web_frame.ts): title,
 * navigation of the application, the signed-in person with the sign-out button, a message
 * line, and the security headers (strict CSP naming the page's scripts by hash, never framed,
 * never cached: web_page.ts); its style sheets and scripts are static files (assets.ts). One
 * language at a time, Bulgarian unless the switch on every page chose English (lang.ts).
 * @module
 */
import { html } from "hono/html";
import {
  type Bilingual,
  type Markup,
  pageHeaders,
  pageLang,
  pick,
  t,
  tb,
  withPageLang,
} from "../../web_page.ts";
import {
  csrfInput,
  type Flash,
  framePage,
  type PageSender,
  type PageStatus,
} from "../../web_frame.ts";
import { PAGE_SCRIPTS, WEB_CSS } from "./assets.ts";
import type { WebC } from "./guard.ts";
import { type AppError, bi, httpStatus, isAppError } from "../../contract/mod.ts";
import { noteErrorCode, requestIdOf } from "../edge/mod.ts";
import type { AppLog } from "../deps.ts";
import { langSwitch, requestLang } from "./lang.ts";
import { errorWords } from "./error_words.ts";

/** One entry of an application's navigation. */
export interface NavItem extends Bilingual {
  readonly path: string;
  readonly id: string;
}

/** An application (the profile or the desk), made by {@link webApp}. */
export interface WebApp {
  /** `/profile` or `/admin`. */
  readonly base: string;
  readonly brand: Bilingual;
  readonly nav: readonly NavItem[];
  /** Answers with a whole page of this application (see {@link webApp}). */
  readonly page: PageSender<WebC>;
}

/** A message shown at the top of a page. */
export type { Flash };

/**
 * An application with its page sender, built once: its pages answer with `app.page(c, id,
 * title, body, status?, flash?)`, drawn in the frame with the application's brand, navigation,
 * the signed-in person and the language switch.
 * @param base the path prefix (`/profile`, `/admin`)
 * @param brand the application's name
 * @param nav its navigation (shown to a signed-in person)
 * @returns the application
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { Hono } from "hono";
 * import type { WebEnv } from "./guard.ts";
 * import { html } from "hono/html";
 * const app = webApp("/demo", { bg: "Демо", en: "Demo" }, []);
 * const r = new Hono<WebEnv>();
 * const title = { bg: "Начало", en: "Start" };
 * r.get("/demo", (c) => app.page(c, "start", title, html`<p>Здравей</p>`, 404));
 * const res = await r.request("/demo");
 * equal(res.status, 404);
 * match(await res.text(), /<body data-page="start">[^]*<h1>Начало<\/h1>[^]*<p>Здравей/);
 * ```
 */
export function webApp(base: string, brand: Bilingual, nav: readonly NavItem[]): WebApp {
  const app: WebApp = { base, brand, nav, page: (c, ...p) => sendWebPage(c, app, ...p) };
  return app;
}

/** The page sender of every {@link WebApp}: the page in the frame with the security headers. */
async function sendWebPage(
  c: WebC,
  app: WebApp,
  page: string | null,
  title: Bilingual,
  body: Markup,
  status: PageStatus = 200,
  flash: Flash | null = null,
): Promise<Response> {
  const scripts = PAGE_SCRIPTS;
  const signedIn = c.get("signedIn");
  // The switch comes back to this page (its path: the query, which may carry what the person
  // typed, is not echoed); after a form's post, to the application's start.
  const back = c.req.method === "GET" ? new URL(c.req.url).pathname : app.base;
  const text = String(
    await framePage({
      lang: pageLang(),
      base: app.base,
      styles: [WEB_CSS],
      scripts,
      title: pick(title),
      suffix: pick(app.brand),
      heading: tb(title),
      brand: tb(app.brand),
      nav: signedIn ? app.nav.map((p) => ({ href: p.path, id: p.id, label: tb(p) })) : null,
      page,
      aside: signedIn
        ? html`<span class="who"><span id="who">${signedIn.user.email}</span>
                  ${
          postForm(
            c,
            `${app.base}/sign-out`,
            html`
              <button id="sign-out">${t("Изход", "Sign out")}</button>
            `,
          )
        }</span>`
        : undefined,
      langSwitch: langSwitch(app.base, back),
      flash,
      body,
    }),
  );
  // Referrer-Policy stays `same-origin` (web_page.ts): with `no-referrer` Chromium sends
  // `Origin: null` on the pages' own form posts, which the guard must refuse.
  return c.html(text, status, pageHeaders(scripts));
}

/**
 * The answer to a failed request of the profile or the desk: a page with the error (or 429 with `Retry-After`).
 * @param c the route's context
 * @param app the application
 * @param err what was thrown
 * @param log where unexpected errors go
 * @returns the answer
 */
export async function webErrorPage(
  c: WebC,
  app: WebApp,
  err: unknown,
  log: AppLog,
): Promise<Response> {
  if (!isAppError(err)) {
    log("error", "unexpected error on a web page", { error: String(err) });
    return c.text("Unexpected error", 500);
  }
  // An error thrown by a middleware leaves its language scope: drawn in the cookie's again.
  return await withPageLang(requestLang(c), () => errorAnswer(c, app, err));
}

/** The error's answer: JSON for the pages' fetch calls, else a page (see {@link webErrorPage}). */
async function errorAnswer(c: WebC, app: WebApp, err: AppError): Promise<Response> {
  const words = pick(errorWords(err));
  const status = httpStatus(err.code, "token");
  if (c.req.header("content-type")?.startsWith("application/json")) {
    // The passkey ceremonies' fetch calls read JSON (with the request id, as the API's errors).
    noteErrorCode(c.req.raw, err.code);
    const requestId = requestIdOf(c.req.raw);
    return c.json(
      { error: words, errorCode: err.code, ...(requestId ? { requestId } : {}) },
      (status === 401 ? 403 : status) as 400,
      err.code === "RATE_LIMITED" ? { "retry-after": String(err.details?.retryAfter ?? 60) } : {},
    );
  }
  const res = await app.page(
    c,
    null,
    bi("Заявката не е изпълнена", "The request was not carried out"),
    html`
      <div class="card" id="error" data-code="${err.code}">
        <p id="error-words">${words}</p>
        <p class="muted">${t("Код", "Code")}: <code>${err.code}</code></p>
        <p><a href="${app.base}">${t("Към началото", "Back to the start")}</a></p>
      </div>
    `,
    (status === 401 ? 403 : status) as 400,
  );
  if (err.code === "RATE_LIMITED") {
    res.headers.set("retry-after", String(err.details?.retryAfter ?? 60));
  }
  return res;
}

/** The states of applications and contracts, in both languages (one drawn at a time). */
const STATES: Record<string, [string, string]> = {
  pending: ["чака преглед", "pending"],
  approved: ["одобрена", "approved"],
  rejected: ["отказана", "rejected"],
  active: ["в сила", "active"],
  expired: ["изтекъл", "expired"],
  terminated: ["прекратен", "terminated"],
  superseded: ["заменен", "superseded"],
};
/**
 * The state of an application or contract in both languages.
 * @param s `pending`, `approved`, `rejected`, `active`, `expired`, `terminated`, `superseded`
 * @returns the text (the code itself for another value)
 */
export const stateText = (s: string): Markup => t(...(STATES[s] ?? [s, s]));

/**
 * The hidden CSRF field every form of a signed-in page carries.
 * @param c the route's context
 */
export const csrfField = (c: WebC): Markup => csrfInput(c.get("signedIn")?.session.csrf ?? "");

/**
 * A change a signed-in page posts: an inline form with the session's CSRF field first.
 * @param c the route's context
 * @param action where it posts
 * @param content its fields and button
 * @returns `<form class="inline" method="post" action="…"><input name="csrf" …>…</form>`
 */
export const postForm = (c: WebC, action: string, content: Markup): Markup =>
  html`<form class="inline" method="post" action="${action}">${csrfField(c)}${content}</form>`;

/**
 * The muted sentence under a heading that says what a page or a card is for.
 * @param sentence the sentence, in the page's language (`t(bg, en)`)
 * @returns `<p class="muted">…</p>`
 */
export const lead = (sentence: Markup): Markup => html`<p class="muted">${sentence}</p>`;

/**
 * A card that opens with its heading and a {@link lead} sentence, then its content.
 * @param title the heading, in the page's language
 * @param sentence the lead sentence, in the page's language
 * @param body the content
 * @returns `<div class="card"><h2>…</h2><p class="muted">…</p>…</div>`
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { html } from "hono/html";
 * const card = String(await leadCard(html`Sign in`, html`No passwords.`, html`<form></form>`));
 * equal(
 *   card.replace(/\s+/g, " "),
 *   '<div class="card"> <h2>Sign in</h2> <p class="muted">No passwords.</p> <form></form> </div>',
 * );
 * ```
 */
export const leadCard = (title: Markup, sentence: Markup, body: Markup): Markup =>
  html`<div class="card">
    <h2>${title}</h2>
    ${lead(sentence)}
    ${body}
  </div>`;
