/**
 * The two scripts every page of the profile and the desk loads, served by the service itself
 * (the CSP allows no other source): the page script (copy buttons, passkey buttons) and
 * `@simplewebauthn/browser`'s bundle.
 * @module
 */
import type { Hono } from "hono";
import type { WebEnv } from "./guard.ts";
import { PAGE_SCRIPT } from "./layout.ts";
import { webauthnBrowserScript } from "./passkeys.ts";

const HEADERS = {
  "content-type": "text/javascript; charset=utf-8",
  "cache-control": "max-age=3600",
  "x-content-type-options": "nosniff",
};

/**
 * Serve `{base}/assets/page.js` and `{base}/assets/webauthn.js`.
 * @param r the application's router (its guard lets `/assets/…` through without a session)
 */
export function webAssetRoutes(r: Hono<WebEnv>): void {
  r.get("/assets/webauthn.js", async (c) => c.body(await webauthnBrowserScript(), 200, HEADERS));
  r.get("/assets/page.js", (c) => c.body(PAGE_SCRIPT, 200, HEADERS));
}
