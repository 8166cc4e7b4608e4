/**
 * The integrators' profile at `{auth_url}/profile` (docs/token-service.md § The profile):
 * sign-up and sign-in by one-time e-mail links, then the keys, usage and request log pages of
 * the signed-in integrator only. Server-rendered (hono/html), one language at a time (Bulgarian, English on the switch: web/lang.ts),
 * no inline script or style (static files named by hash: web/assets.ts), strict CSP, never framed; sessions in the store
 * (web/sessions.ts), every change CSRF-checked and cross-site requests refused (web/guard.ts).
 * @module
 */
import type { Hono } from "hono";
import {
  passkeyRemovalRoutes,
  passkeyRoutes,
  PROFILE_APP,
  sessionRoutes,
  webAppAuth,
  webAppStart,
  type WebEnv,
} from "../web/mod.ts";
import { passkeysPage } from "./passkeys_page.ts";
import { contractRoutes } from "./contract_page.ts";
import type { ProfileDeps } from "./deps.ts";
import { keysRoutes } from "./keys_page.ts";
import { signInRoutes } from "./sign_in.ts";
import { activityRoutes } from "./activity_pages.ts";
import { membersRoutes } from "./members_page.ts";
import { memberRoleGuard } from "./roles.ts";

export type { ProfileDeps } from "./deps.ts";

/** The session cookie's name. */
export const PROFILE_COOKIE = "svc_profile";

/**
 * Build the profile's routes (mounted at `/profile` of the token app).
 * @param deps store, clock, mailer, public URL, log
 * @returns the sub-app
 */
export function profileRoutes(deps: ProfileDeps): Hono<WebEnv> {
  const auth = webAppAuth(deps, PROFILE_COOKIE, PROFILE_APP);
  const { r, ctx } = webAppStart(PROFILE_APP, deps, auth, {
    role: "integrator",
    open: ["/sign-in", "/sign-up"],
    then: memberRoleGuard(),
  });
  signInRoutes(r, ctx);
  passkeyRoutes(r, { ...deps, auth, role: "integrator", home: `${PROFILE_APP.base}/keys` });
  passkeysPage(r, ctx);
  keysRoutes(r, ctx);
  activityRoutes(r, ctx);
  contractRoutes(r, ctx);
  membersRoutes(r, ctx);
  passkeyRemovalRoutes(r, ctx, `${PROFILE_APP.base}/passkeys`);
  sessionRoutes(r, ctx);
  return r;
}
