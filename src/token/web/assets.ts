/**
 * The files every page of the profile and the desk loads, served by the service itself under
 * names that carry their content hash (web_assets.ts; the CSP allows no other source): the
 * shared and the applications' style sheets, `@simplewebauthn/browser`'s bundle and the page
 * script (copy buttons, passkey buttons). All are embedded in the program (assets/mod.ts).
 * @module
 */
import type { Hono } from "hono";
import { assetResponse, type WebAsset } from "../../web_assets.ts";
import { PAGE_CSS } from "../../web_page.ts";
import type { WebEnv } from "./guard.ts";
import { PAGE_JS, WEB_CSS, WEBAUTHN_JS } from "./assets/mod.ts";

export { PAGE_JS, WEB_CSS, WEBAUTHN_JS } from "./assets/mod.ts";

/** The scripts every page loads, in order: the passkey bundle, then the page script. */
export const PAGE_SCRIPTS: readonly WebAsset[] = [WEBAUTHN_JS, PAGE_JS];

/** Every file the pages load. */
export const WEB_ASSETS: readonly WebAsset[] = [PAGE_CSS, WEB_CSS, ...PAGE_SCRIPTS];

/**
 * Serve `{base}/assets/<name>.<hash>.<ext>`: the style sheets and the scripts.
 * @param r the application's router (its guard lets `{base}/assets/…` through without a session)
 */
export function webAssetRoutes(r: Hono<WebEnv>): void {
  r.get("/assets/:file", (c) => assetResponse(WEB_ASSETS, c.req.param("file")) ?? c.notFound());
}
