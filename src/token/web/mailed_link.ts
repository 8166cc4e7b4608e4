/**
 * The pages a mailed one-time link opens (docs/token-service.md § The profile): opening the link
 * uses nothing — the page has one button that posts the link's code, and only that POST takes
 * it, counted against the sign-in attempts of the client's address. The profile's sign-in link,
 * the desk's invitation and the removal of a last passkey all work so.
 * @module
 */
import { html } from "hono/html";
import type { Clock } from "../../clock.ts";
import type { Bilingual, Markup } from "../../web_page.ts";
import type { TokenStore, WebLink } from "../store/mod.ts";
import { countSignIn, formOf, type WebC } from "./guard.ts";
import type { WebApp } from "./layout.ts";
import type { WebAuth } from "./sessions.ts";

/** What a link's page shows. */
export interface MailedLinkPage {
  readonly title: Bilingual;
  /** Where the button posts the code. */
  readonly action: string;
  /** The link's code (its `code` query parameter). */
  readonly code: string;
  /** A line above the button, if any. */
  readonly say?: Markup;
  /** The button (`<button …>`). */
  readonly button: Markup;
}

/**
 * The page a mailed link opens: one button that posts its code.
 * @param c the route's context
 * @param app the application
 * @param p the title, where it posts, the code, the line and the button
 * @returns the page (200)
 */
export const mailedLinkPage = (c: WebC, app: WebApp, p: MailedLinkPage): Promise<Response> =>
  app.page(
    c,
    null,
    p.title,
    html`
      <div class="card">
        <form method="post" action="${p.action}">
          <input type="hidden" name="code" value="${p.code}">
          ${p.say ? html`<p>${p.say}</p>` : ""}
          ${p.button}
        </form>
      </div>
    `,
  );

/**
 * Take the link whose code the page posted (form `code`), once the attempt is counted.
 * @param d the store, the clock and the application's sessions
 * @param c the route's context
 * @returns the link, or null for an unknown, used or expired code
 * @throws AppError RATE_LIMITED past the sign-in attempts per address
 */
export async function takePostedLink(
  d: { readonly store: TokenStore; readonly clock: Clock; readonly auth: WebAuth },
  c: WebC,
): Promise<WebLink | null> {
  await countSignIn(d.store, d.clock, c);
  return await d.auth.takeLink((await formOf(c)).code ?? "");
}
