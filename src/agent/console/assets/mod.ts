/**
 * The console's static files (docs/architecture.md § Page assets): its style sheet on top of the
 * shared one (the drop zone, the certificate card, banners, the receipt's print layout) and one
 * script per page that has one — the Senders page's file drop, the Filings page's progress of
 * folder-wide filings, the receipt's print button. Served at `/assets/<name>.<hash>.<ext>`
 * (agent/app.ts); the console's CSP names exactly these scripts.
 * @module
 */
import { PAGE_CSS } from "../../../web_page.ts";
import { type WebAsset, webAsset } from "../../../web_assets.ts";
import consoleCss from "./console.css" with { type: "text" };
import sendersFileJs from "./senders_file.js" with { type: "text" };
import batchesJs from "./batches.js" with { type: "text" };
import receiptJs from "./receipt.js" with { type: "text" };

/** The console's own style rules (after the shared `page.css`). */
export const CONSOLE_CSS: WebAsset = webAsset("console.css", consoleCss);
/** Senders page: a signature file dropped anywhere on the page, or chosen, is sent at once. */
export const SENDERS_FILE_JS: WebAsset = webAsset("senders_file.js", sendersFileJs);
/** Filings page: the progress of running folder-wide filings and scans, once a second. */
export const BATCHES_JS: WebAsset = webAsset("batches.js", batchesJs);
/** Receipt: the print button. */
export const RECEIPT_JS: WebAsset = webAsset("receipt.js", receiptJs);

/** The scripts a console page may load (its CSP names them). */
export const CONSOLE_SCRIPTS: readonly WebAsset[] = [SENDERS_FILE_JS, BATCHES_JS, RECEIPT_JS];
/** Every file the console's pages load. */
export const CONSOLE_ASSETS: readonly WebAsset[] = [PAGE_CSS, CONSOLE_CSS, ...CONSOLE_SCRIPTS];
