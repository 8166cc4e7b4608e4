/**
 * The static files of the server-rendered pages (style sheets and scripts): each is a real file
 * of the source tree, imported as text (`with { type: "text" }`, so `deno bundle` and
 * `deno compile` embed it in the program), served under a name that carries its content hash
 * (`{base}/assets/console.3f2a9c1b.css`) with a year's immutable caching, and loaded with a
 * Subresource Integrity `integrity="sha256-…"` attribute. A page's Content-Security-Policy names
 * its scripts by the same SHA-256 (`script-src 'sha256-…'`: CSP Level 3 hash sources match an
 * external script whose `integrity` carries that hash — Chromium 59, Firefox 116, Safari 15.6) and
 * allows style sheets from its own origin only (`style-src 'self'`: CSP cannot name an external
 * style sheet by hash; the `integrity` attribute still makes the browser refuse altered content).
 * No inline script or style, no nonce. docs/architecture.md § Page assets.
 * @module
 */
import { createHash } from "node:crypto";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** One static file of the pages. */
export interface WebAsset {
  /** The file's own name, e.g. `console.css`. */
  readonly name: string;
  /** The served name with its content hash: `console.3f2a9c1b.css` (8 hex of SHA-256). */
  readonly file: string;
  /** The content, as served (UTF-8). */
  readonly body: string;
  /** `text/css; charset=utf-8` or `text/javascript; charset=utf-8`. */
  readonly contentType: string;
  /** `sha256-<base64>` of the body: the SRI `integrity` value and the CSP hash source. */
  readonly integrity: string;
}

/**
 * Make a page asset from a file's text.
 * @param name the file's name, ending in `.css` or `.js`
 * @param body its text
 * @returns the asset, its served name and hashes computed from `body`
 * @throws Error for another extension (a programming error: the tables are fixed in the code)
 */
export function webAsset(name: string, body: string): WebAsset {
  const dot = name.lastIndexOf(".");
  const ext = name.slice(dot + 1);
  // A programming error: the asset tables name only .css and .js files.
  if (ext !== "css" && ext !== "js") throw new Error(`not a page asset: ${name}`);
  const digest = createHash("sha256").update(body, "utf8").digest();
  return {
    name,
    file: `${name.slice(0, dot)}.${digest.toString("hex").slice(0, 8)}.${ext}`,
    body,
    contentType: ext === "css" ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8",
    integrity: `sha256-${digest.toString("base64")}`,
  };
}

/**
 * The answer to `GET {base}/assets/:file` from a table of assets: the body with its type and a
 * year's immutable caching (the name changes with the content), or null for an unknown name.
 * @param assets the application's assets
 * @param file the requested name (with its hash)
 * @returns the response, or null
 */
export function assetResponse(assets: readonly WebAsset[], file: string): Response | null {
  const a = assets.find((x) => x.file === file);
  if (!a) return null;
  return new Response(a.body, {
    headers: {
      "content-type": a.contentType,
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      "cross-origin-resource-policy": "same-origin",
    },
  });
}

/**
 * A style sheet's `<link>`, with its integrity.
 * @param base the application's path prefix ("" at the root)
 * @param a the style sheet
 */
export const styleLink = (base: string, a: WebAsset): HtmlEscapedString =>
  html`<link rel="stylesheet" href="${base}/assets/${a.file}" integrity="${a.integrity}">` as HtmlEscapedString;

/**
 * A script's `<script src>`, with its integrity (which the CSP's hash source matches).
 * @param base the application's path prefix ("" at the root)
 * @param a the script
 */
export const scriptTag = (base: string, a: WebAsset): HtmlEscapedString =>
  html`<script src="${base}/assets/${a.file}" integrity="${a.integrity}"></script>` as HtmlEscapedString;

/**
 * The `script-src` of a page's CSP: the hash of each script it may load, `'none'` without one.
 * @param scripts the scripts
 * @returns e.g. `script-src 'sha256-…' 'sha256-…'`
 */
export function scriptSrc(scripts: readonly WebAsset[]): string {
  return scripts.length
    ? `script-src ${scripts.map((s) => `'${s.integrity}'`).join(" ")}`
    : "script-src 'none'";
}
