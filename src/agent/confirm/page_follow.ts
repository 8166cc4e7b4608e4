/**
 * The part of the page after "Confirm" that follows the filing (docs/confirmation.md § After
 * Confirm): it asks `GET /confirm/:id/filings` once a second and lists each filing of the
 * confirmed requests as it ends — filed with its incoming number, or the error in words with
 * what to do — each with a link to its receipt in the console. Texts are built by the agent
 * (plain text here: the script sets `textContent`, never HTML). Operations that file nothing
 * (reports, reads) list nothing; after a while the page says the tab can be closed.
 * @module
 */
import { w } from "../texts/mod.ts";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { scriptTag } from "../../web_assets.ts";
import { FOLLOW_JS } from "./assets/mod.ts";

/** How long the page waits for a first filing before it says the tab can be closed (s). */
const QUIET_S = 20;

/**
 * The follow block of the page after "Confirm".
 * @param url the dialog's `/confirm/:id/filings`
 * @returns markup: a list, a line, the script (assets/follow.js, which reads `data-url` and
 *   `data-quiet` of `#follow`)
 */
export function followBlock(url: string): HtmlEscapedString | Promise<HtmlEscapedString> {
  return html`
    <div id="follow" data-state="following" data-url="${url}" data-quiet="${QUIET_S}"
      data-receipt="${w(
        "confirm.receipt",
      )}">
      <ul id="follow-list"></ul>
      <p id="follow-note"
        hidden>${w("confirm.you_can_close_this")}</p>
    </div>
    ${scriptTag("", FOLLOW_JS)}
  `;
}
