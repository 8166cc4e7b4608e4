/**
 * The integrators' profile at `{auth_url}/profile` (docs/token-service.md § The profile):
 * sign-up and sign-in by one-time e-mail links, then the keys, usage and request log pages of
 * the signed-in integrator only. Server-rendered (hono/html), Bulgarian with English beside it,
 * no inline script (one script file, by nonce), strict CSP, never framed; sessions in the store
 * (web/sessions.ts), every change CSRF-checked and cross-site requests refused (web/guard.ts).
 * @module
 */
import { Hono } from "hono";
import { isAppError } from "../../contract/mod.ts";
import { t } from "../../web_page.ts";
import { html } from "hono/html";
import {
  PAGE_SCRIPT,
  passkeyRoutes,
  sendWebPage,
  type WebApp,
  WebAuth,
  webauthnBrowserScript,
  type WebC,
  type WebEnv,
  webGuard,
} from "../web/mod.ts";
import { passkeysPage } from "./passkeys_page.ts";
import type { ProfileContext, ProfileDeps } from "./deps.ts";
import { keysRoutes } from "./keys_page.ts";
import { signInRoutes } from "./sign_in.ts";
import { activityRoutes } from "./activity_pages.ts";

export type { ProfileDeps } from "./deps.ts";

/** The profile's pages, in navigation order. */
export const PROFILE_APP: WebApp = {
  base: "/profile",
  brand: { bg: "Профил", en: "Profile" },
  nav: [
    { path: "/profile/keys", id: "keys", bg: "Ключове", en: "Keys" },
    { path: "/profile/usage", id: "usage", bg: "Използване", en: "Usage" },
    { path: "/profile/log", id: "log", bg: "Заявки", en: "Request log" },
    { path: "/profile/passkeys", id: "passkeys", bg: "Passkeys", en: "Passkeys" },
  ],
};

/** Paths that need no session. */
const OPEN = new Set([
  "/profile",
  "/profile/",
  "/profile/sign-in",
  "/profile/sign-up",
  "/profile/link",
  "/profile/assets/page.js",
  "/profile/assets/webauthn.js",
  "/profile/passkey/options",
  "/profile/passkey/verify",
]);

/** The session cookie's name. */
export const PROFILE_COOKIE = "svc_profile";

/**
 * The answer to a failed profile request: a page with the error (or 429 with `Retry-After`).
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
  log: ProfileDeps["log"],
): Promise<Response> {
  if (!isAppError(err)) {
    log("error", "unexpected error on a web page", { error: String(err) });
    return c.text("Unexpected error", 500);
  }
  const status = err.code === "VALIDATION_FAILED" ? 400 : err.status;
  if (c.req.header("content-type")?.startsWith("application/json")) {
    // The passkey ceremonies' fetch calls read JSON.
    return c.json(
      { error: err.message, errorCode: err.code },
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

/**
 * Build the profile's routes (mounted at `/profile` of the token app).
 * @param deps store, clock, mailer, public URL, log
 * @returns the sub-app
 */
export function profileRoutes(deps: ProfileDeps): Hono<WebEnv> {
  const auth = new WebAuth(
    deps.store,
    deps.clock,
    PROFILE_COOKIE,
    PROFILE_APP.base,
    () => deps.publicUrl().startsWith("https:"),
  );
  const ctx: ProfileContext = { ...deps, auth, app: PROFILE_APP };
  const r = new Hono<WebEnv>();
  r.onError((err, c) => webErrorPage(c, PROFILE_APP, err, deps.log));
  r.use(
    "*",
    webGuard({
      auth,
      role: "integrator",
      origin: () => originOf(deps.publicUrl()),
      open: (p) => OPEN.has(p),
    }),
  );
  const webauthnJs = webauthnBrowserScript();
  r.get("/assets/webauthn.js", async (c) =>
    c.body(await webauthnJs(), 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "max-age=3600",
      "x-content-type-options": "nosniff",
    }));
  r.get("/assets/page.js", (c) =>
    c.body(PAGE_SCRIPT, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "max-age=3600",
      "x-content-type-options": "nosniff",
    }));
  signInRoutes(r, ctx);
  passkeyRoutes(r, {
    store: deps.store,
    clock: deps.clock,
    auth,
    role: "integrator",
    publicUrl: deps.publicUrl,
    log: deps.log,
    home: `${PROFILE_APP.base}/keys`,
  });
  passkeysPage(r, ctx);
  keysRoutes(r, ctx);
  activityRoutes(r, ctx);
  return r;
}

/** The origin of a URL, or null when it is not one. */
function originOf(url: string): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}
