/**
 * The page frame of the profile and the desk: title, navigation of the application, the
 * signed-in person with the sign-out button, a message line, and the security headers (strict
 * CSP by nonce, never framed, never cached: web_page.ts). Bulgarian first, English beside it.
 * @module
 */
import { html, raw } from "hono/html";
import {
  type Bilingual,
  type Markup,
  newNonce,
  PAGE_STYLE,
  pageHeaders,
  t,
  tb,
} from "../../web_page.ts";
import type { WebC } from "./guard.ts";
import { httpStatus, isAppError } from "../../contract/mod.ts";
import { noteErrorCode, requestIdOf } from "../edge.ts";
import type { ServiceLog } from "../deps.ts";

/** One entry of an application's navigation. */
export interface NavItem extends Bilingual {
  readonly path: string;
  readonly id: string;
}

/** An application (the profile or the desk). */
export interface WebApp {
  /** `/profile` or `/admin`. */
  readonly base: string;
  readonly brand: Bilingual;
  readonly nav: readonly NavItem[];
}

/** A message shown at the top of a page. */
export interface Flash extends Bilingual {
  readonly kind: "ok" | "error";
}

const EXTRA_STYLE = `
.secret{background:#fff8e1;border:1px solid #e0c060;border-radius:6px;padding:.6rem .8rem}
form.stack label{display:block;margin:.5rem 0} form.stack input,form.stack select{width:min(28rem,100%)}
header{gap:.75rem} nav a{padding:.35rem .5rem}
header .who{margin-left:auto;display:flex;gap:.5rem;align-items:center;font-size:.9em}
header .who button{background:transparent;color:#fff;border-color:#c9d6ea}
svg.chart text{font:11px system-ui,sans-serif;fill:#333}
.two{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1rem}
@media (max-width:900px){.two{grid-template-columns:1fr}}
`;

/**
 * Answer with a whole page.
 * @param c the route's context (nonce, session)
 * @param app the application
 * @param page the current page's id (null: none)
 * @param title the page's title
 * @param body the content
 * @param status HTTP status
 * @param flash a message on top
 * @returns the response, with the security headers
 */
export async function sendWebPage(
  c: WebC,
  app: WebApp,
  page: string | null,
  title: Bilingual,
  body: Markup,
  status: 200 | 400 | 403 | 404 | 409 | 429 = 200,
  flash: Flash | null = null,
): Promise<Response> {
  const nonce = c.get("nonce") ?? newNonce();
  const signedIn = c.get("signedIn");
  const text = String(
    await html`<!doctype html>
<html lang="bg">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title.bg} / ${title.en} — ${app.brand.bg}</title>
    <style nonce="${nonce}">${raw(PAGE_STYLE)}${raw(EXTRA_STYLE)}</style>
  </head>
  <body data-page="${page ?? "none"}">
    <header>
      <span class="brand">${tb(app.brand)}</span>
      ${
      signedIn
        ? html`
          <nav>${app.nav.map((p) =>
            html`<a href="${p.path}" id="nav-${p.id}" ${
              p.id === page ? raw('aria-current="page"') : ""
            }>${tb(p)}</a>`
          )}</nav>
          <span class="who"><span id="who">${signedIn.user.email}</span>
                  <form class="inline" method="post" action="${app.base}/sign-out">
                    <input type="hidden" name="csrf" value="${signedIn.session.csrf}">
                    <button id="sign-out">${t("Изход", "Sign out")}</button>
                  </form></span>
        `
        : ""
    }
    </header>
    <main>
      <h1>${tb(title)}</h1>
      ${
      flash
        ? html`<div class="flash ${flash.kind}" id="flash" role="status">${tb(flash)}</div>`
        : ""
    }
      ${body}
    </main>
    <script nonce="${nonce}" src="${app.base}/assets/webauthn.js"></script>
    <script nonce="${nonce}" src="${app.base}/assets/page.js"></script>
  </body>
</html>`,
  );
  // Referrer-Policy stays `same-origin` (web_page.ts): with `no-referrer` Chromium sends
  // `Origin: null` on the pages' own form posts, which the guard must refuse.
  return c.html(text, status, pageHeaders(nonce));
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
  log: ServiceLog,
): Promise<Response> {
  if (!isAppError(err)) {
    log("error", "unexpected error on a web page", { error: String(err) });
    return c.text("Unexpected error", 500);
  }
  const status = httpStatus(err.code, "token");
  if (c.req.header("content-type")?.startsWith("application/json")) {
    // The passkey ceremonies' fetch calls read JSON (with the request id, as the API's errors).
    noteErrorCode(c.req.raw, err.code);
    const requestId = requestIdOf(c.req.raw);
    return c.json(
      { error: err.message, errorCode: err.code, ...(requestId ? { requestId } : {}) },
      (status === 401 ? 403 : status) as 400,
      err.code === "RATE_LIMITED" ? { "retry-after": String(err.details?.retryAfter ?? 60) } : {},
    );
  }
  const res = await sendWebPage(
    c,
    app,
    null,
    { bg: "Заявката не е изпълнена", en: "The request was not carried out" },
    html`
      <div class="card" id="error" data-code="${err.code}">
        <p>${err.message}</p>
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

/** The states of applications and contracts, in both languages. */
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
export const csrfField = (c: WebC): Markup =>
  html`<input type="hidden" name="csrf" value="${c.get("signedIn")?.session.csrf ?? ""}">`;

/**
 * The script every page loads (served from the service itself, by nonce): copy buttons
 * (`data-copy` names the element whose text is copied), and the passkey buttons
 * (`#passkey-register` with `data-base` and `data-csrf`, `#passkey-sign-in` with `data-base`)
 * over `@simplewebauthn/browser` (passkeys.ts); their outcome goes to `#passkey-status`.
 */
export const PAGE_SCRIPT = `
const post = async (url, body, csrf) => {
  const headers = { "content-type": "application/json" };
  if (csrf) headers["x-csrf-token"] = csrf;
  const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(j.error || String(r.status));
  return j;
};
const say = (text, ok) => {
  const el = document.getElementById("passkey-status");
  if (el) { el.textContent = text; el.className = ok ? "ok" : "bad"; }
};
const reg = document.getElementById("passkey-register");
if (reg) reg.addEventListener("click", async () => {
  try {
    const { base, csrf } = reg.dataset;
    const optionsJSON = await post(base + "/passkeys/options", {}, csrf);
    const answer = await SimpleWebAuthnBrowser.startRegistration({ optionsJSON });
    await post(base + "/passkeys", answer, csrf);
    say("✓", true);
    location.reload();
  } catch (e) { say(String(e && e.message || e), false); }
});
const signIn = document.getElementById("passkey-sign-in");
if (signIn) signIn.addEventListener("click", async () => {
  try {
    const { base } = signIn.dataset;
    const optionsJSON = await post(base + "/passkey/options", {});
    const answer = await SimpleWebAuthnBrowser.startAuthentication({ optionsJSON });
    const done = await post(base + "/passkey/verify", answer);
    location.assign(done.redirect);
  } catch (e) { say(String(e && e.message || e), false); }
});
for (const b of document.querySelectorAll("button[data-copy]")) {
  b.addEventListener("click", async () => {
    const el = document.getElementById(b.dataset.copy);
    try { await navigator.clipboard.writeText(el.textContent.trim()); b.dataset.copied = "1"; }
    catch { const r = document.createRange(); r.selectNodeContents(el);
      const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
  });
}
`;
