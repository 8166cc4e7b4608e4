/**
 * The console's page frame: title, navigation between the five pages, the language switch, a
 * message line, and the security headers (strict CSP naming the console's scripts by hash,
 * `frame-ancestors 'none'`, no caching, no referrer). Its style sheets and scripts are static
 * files (assets/). One language at a time, from the catalogs (src/agent/texts/): Bulgarian unless
 * the accountant switched to English.
 * @module
 */
import { html } from "hono/html";
import { type Bilingual, type Markup, pageHeaders } from "../../web_page.ts";
import { csrfInput, type Flash, framePage } from "../../web_frame.ts";
import { CONSOLE_CSS, CONSOLE_SCRIPTS } from "./assets/mod.ts";
import { currentLang, langSwitch, say, type TextKey, w } from "../texts/mod.ts";

export { type Bilingual, type Markup } from "../../web_page.ts";
export {
  both,
  bothWith,
  count,
  headRow,
  say,
  tableOr,
  type TextKey,
  w,
  when,
} from "../texts/mod.ts";

/** The console's pages, in navigation order. */
export const CONSOLE_PAGES = [
  { path: "/", id: "status", key: "nav.status" },
  { path: "/console/senders", id: "senders", key: "nav.senders" },
  { path: "/console/filings", id: "filings", key: "nav.filings" },
  { path: "/console/diagnostics", id: "diagnostics", key: "nav.diagnostics" },
  { path: "/console/log", id: "log", key: "nav.log" },
] as const satisfies readonly { path: string; id: string; key: TextKey }[];

/** A page id. */
export type ConsolePageId = typeof CONSOLE_PAGES[number]["id"];

/** A message shown at the top of a page after an action. */
export type { Flash };

/**
 * The console's security headers: the confirmation page's (strict CSP naming the console's
 * scripts by hash, `frame-ancestors 'none'`, no caching), plus frames of its own origin (the
 * sandboxed protocol) and no referrer.
 * @returns headers
 */
export function consoleHeaders(): Record<string, string> {
  const h = pageHeaders(CONSOLE_SCRIPTS);
  return {
    ...h,
    "content-security-policy": `${h["content-security-policy"]}; frame-src 'self'`,
    "referrer-policy": "no-referrer",
  };
}

/** What every console page is drawn with. */
export interface Frame {
  readonly csrf: string;
  readonly flash?: Flash | null;
}

/**
 * A whole console page, in the one frame of both programs (web_frame.ts).
 * @param f the message, the banner every page shows (another agent on the usual port), and
 *   the page's own path (where the language switch comes back to)
 * @param page which page is current (null: none, e.g. the sign-in explanation; no navigation)
 * @param title the page's title
 * @param body the page's content
 * @returns HTML
 */
export function consolePage(
  f: Pick<Frame, "flash"> & {
    readonly banner?: Bilingual | null;
    readonly back?: string;
  },
  page: ConsolePageId | null,
  title: Bilingual,
  body: Markup,
): Markup {
  return framePage({
    lang: currentLang(),
    base: "",
    styles: [CONSOLE_CSS],
    icon: "/favicon.ico",
    title: say(title),
    suffix: w("layout.title_suffix"),
    heading: say(title),
    brand: w("layout.nra_filing_agent"),
    nav: page ? CONSOLE_PAGES.map((p) => ({ href: p.path, id: p.id, label: w(p.key) })) : null,
    page,
    langSwitch: langSwitch(f.back ?? "/"),
    notice: f.banner
      ? html`<div class="banner urgent" id="agent-banner" role="alert">${say(f.banner)}</div>`
      : undefined,
    flash: f.flash ?? null,
    body,
  });
}

/**
 * The hidden CSRF field every console form carries.
 * @param csrf the session's token
 */
export const csrfField: (csrf: string) => Markup = csrfInput;
