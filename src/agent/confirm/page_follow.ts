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
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** How long the page waits for a first filing before it says the tab can be closed (s). */
const QUIET_S = 20;

/**
 * The follow block of the page after "Confirm".
 * @param url the dialog's `/confirm/:id/filings`
 * @param cspNonce the page's CSP nonce (authorises the script)
 * @returns markup: a list, a line, the script
 */
export function followBlock(
  url: string,
  cspNonce: string,
): HtmlEscapedString | Promise<HtmlEscapedString> {
  const script =
    `(function(){var box=document.getElementById("follow"),list=document.getElementById("follow-list"),
note=document.getElementById("follow-note"),n=0,lang=document.documentElement.lang;
function line(f){var li=document.createElement("li");li.className=f.tone;li.dataset.id=f.id;li.dataset.final=String(f.final);
var t=document.createElement("span");t.textContent=lang==="en"?f.en:f.bg;
li.appendChild(t);if(f.final){var a=document.createElement("a");a.href=f.receipt;a.className="receipt-link";
a.target="_blank";a.rel="noopener";a.textContent=${
      JSON.stringify(w("confirm.receipt"))
    };li.appendChild(document.createTextNode(" "));li.appendChild(a);}return li;}
function tick(){n++;fetch(${
      JSON.stringify(url)
    },{cache:"no-store"}).then(function(r){return r.json()}).then(function(j){
var fs=j.filings||[];list.replaceChildren.apply(list,fs.map(line));var done=fs.length>0&&fs.every(function(f){return f.final});
if(done||(!fs.length&&n>=${QUIET_S})){box.dataset.state="done";note.hidden=false;return;}setTimeout(tick,1000);})
.catch(function(){setTimeout(tick,2000)});}tick();})();`;
  return html`
    <style nonce="${cspNonce}">
      #follow li{margin:.3rem 0} #follow li.ok{color:#0b6b2e} #follow li.bad{color:#a11d00}
      #follow li.warn{color:#8a4b00} #follow li .en{display:block}
    </style>
    <div id="follow" data-state="following">
      <ul id="follow-list"></ul>
      <p id="follow-note"
        hidden>${w("confirm.you_can_close_this")}</p>
    </div>
    <script nonce="${cspNonce}">${raw(script)}</script>
  `;
}
