/**
 * The confirmation page's static files (docs/architecture.md § Page assets): its style sheet and
 * one script per state of the page — the dialog (countdown, re-drawn when requests join), the
 * consent page after its confirmation (polls the checks, on to the PIN step), and the page after
 * "Confirm" that follows the filings. Served at `/assets/<name>.<hash>.<ext>` (agent/app.ts); the
 * confirmation's CSP names exactly these scripts.
 * @module
 */
import { type WebAsset, webAsset } from "../../../web_assets.ts";
import confirmCss from "./confirm.css" with { type: "text" };
import confirmJs from "./confirm.js" with { type: "text" };
import afterJs from "./after.js" with { type: "text" };
import followJs from "./follow.js" with { type: "text" };

/** The confirmation's style sheet (every state of the page). */
export const CONFIRM_CSS: WebAsset = webAsset("confirm.css", confirmCss);
/** The dialog: buttons armed after 0.8 s, re-drawn when its version changes, the countdown. */
export const CONFIRM_JS: WebAsset = webAsset("confirm.js", confirmJs);
/** After a consent: polls `data-path` of `#after` until the checks end or the PIN step opens. */
export const AFTER_JS: WebAsset = webAsset("after.js", afterJs);
/** After "Confirm": lists the filings from `data-url` of `#follow` as they end. */
export const FOLLOW_JS: WebAsset = webAsset("follow.js", followJs);

/** The scripts a confirmation page may load (its CSP names them). */
export const CONFIRM_SCRIPTS: readonly WebAsset[] = [CONFIRM_JS, AFTER_JS, FOLLOW_JS];
/** Every file the confirmation's pages load. */
export const CONFIRM_ASSETS: readonly WebAsset[] = [CONFIRM_CSS, ...CONFIRM_SCRIPTS];
