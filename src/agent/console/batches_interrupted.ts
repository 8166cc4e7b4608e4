/**
 * A folder-wide filing the agent was stopped or killed in, in the console (docs/console.md
 * § Interrupted batches): the companies it was to file and did not, with their names, and the
 * way to file only them — the integrator's page sends the same filing again (the same batch);
 * the companies filed before are answered from the journal, never filed twice. The console
 * cannot send it itself: a filing needs the integrator's token.
 * @module
 */
import { html } from "hono/html";
import type { BatchEntryView } from "../filing/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { type Markup, w } from "./layout.ts";
import { rowNames } from "./filing_words.ts";

/** The page origin as a link target: an http(s) origin only, else null. */
function pageLink(origin: string | null): string | null {
  if (!origin) return null;
  try {
    const u = new URL(origin);
    return u.protocol === "https:" || u.protocol === "http:" ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * The body of an interrupted batch's page: the companies not filed yet and how to resend them.
 * @param ctx the console's context (company and integrator names)
 * @param b the batch (state "interrupted")
 * @returns markup
 */
export function interruptedBody(ctx: ConsoleContext, b: BatchEntryView): Markup {
  const left = b.progress.remaining ?? [];
  const integrator = rowNames(ctx).integrator(b.integrator);
  const link = pageLink(b.origin);
  return html`
    <h2>${w("batches.not_filed_yet")} (${left.length})</h2>
    <table id="batch-remaining">
      <tr><th>${w("batches.eik")}</th><th>${w("batches.company")}</th></tr>
      ${left.map((eik) =>
        html`
          <tr>
            <td class="mono">${eik}</td>
            <td>${ctx.portals[b.mode]?.companyName?.(eik) ?? ""}</td>
          </tr>
        `
      )}
    </table>
    <p id="batch-resend-how">${w("batches.resend_how", { integrator })}</p>
    ${link
      ? html`<p><a class="button primary" id="batch-resend" href="${link}" target="_blank"
          rel="noopener noreferrer">${w("batches.open_the_page_to_resend", { integrator })}</a></p>`
      : ""}
  `;
}
