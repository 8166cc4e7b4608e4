/**
 * The NRA's protocol of a filing on the console (docs/console.md § Filings): a page with the
 * protocol in a sandboxed frame (no script, an opaque origin: it can reach neither the console
 * nor the agent), and the protocol itself, as the portal gave it.
 *
 * Routes: `GET /console/filings/:id/protocol`, `GET /console/filings/:id/protocol/body`.
 * @module
 */
import { html } from "hono/html";
import { maskPersonalId } from "../../log.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, say, w, when } from "./layout.ts";
import { filingName } from "./filing_words.ts";
import { type ConsoleC, notFoundPage, sendPage } from "./respond.ts";

/** A journal row and its kept protocol, or null when either is missing. */
function protocolOf(ctx: ConsoleContext, id: string) {
  const row = ctx.journal?.get(id) ?? null;
  const p = row?.documentId ? ctx.journal?.protocol(row.documentId) ?? null : null;
  return row && p ? { row, p } : null;
}

/**
 * `GET /console/filings/:id/protocol`: the page framing the protocol (404 page when none is kept).
 * @param ctx the console's context
 * @param c the request
 */
export function protocolPage(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const found = protocolOf(ctx, c.req.param("id") ?? "");
  const ptitle = both("filings.the_portal_s_protocol");
  if (!found) {
    return notFoundPage(c, "filings", ptitle, w("filings.no_protocol_is_kept"));
  }
  const name = filingName(found.row.typeId);
  return sendPage(
    c,
    "filings",
    ptitle,
    html`
      <p>${say(name)} · <span class="mono">${maskPersonalId(
        found.row.eik,
      )}</span> · ${found.row.period ?? ""} · ${w("filings.document")} <span class="mono">${found
        .row.documentId}</span> · ${w("filings.read")} ${when(
          found.p.fetchedAt,
        )}</p>
      <iframe class="protocol" id="protocol" sandbox src="/console/filings/${found.row
        .id}/protocol/body"
        title="${say(ptitle)}"></iframe>
      <p><a class="button" href="/console/filings">${w("filings.back_to_filings")}</a></p>
    `,
  );
}

/**
 * `GET /console/filings/:id/protocol/body`: the protocol's HTML under a sandboxing CSP (404 when
 * none is kept).
 * @param ctx the console's context
 * @param c the request
 */
export function protocolBody(ctx: ConsoleContext, c: ConsoleC): Response {
  const found = protocolOf(ctx, c.req.param("id") ?? "");
  if (!found) return c.text("", 404);
  return c.body(found.p.body, 200, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy":
      "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
    "x-frame-options": "SAMEORIGIN",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
  });
}
