/**
 * The static files of the profile and the desk (docs/architecture.md § Page assets): their style
 * rules on top of the shared `page.css` (the secret box, stacked forms, the header's signed-in
 * line, charts, two columns) and the page script every page loads (copy buttons, passkey
 * buttons), and `@simplewebauthn/browser`'s UMD bundle (global `SimpleWebAuthnBrowser`), read
 * from the installed package at build time like the others (the package exports only its ESM
 * entry; the bundle lies beside it), so the program never reads node_modules at run time.
 * @module
 */
import { type WebAsset, webAsset } from "../../../web_assets.ts";
import webCss from "./web.css" with { type: "text" };
import pageJs from "./page.js" with { type: "text" };
import webauthnJs from "../../../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js" with {
  type: "text",
};

/** The profile's and the desk's own style rules (after the shared `page.css`). */
export const WEB_CSS: WebAsset = webAsset("web.css", webCss);

/**
 * The script every page loads: copy buttons (`data-copy` names the element whose text is
 * copied), and the passkey buttons (`#passkey-register` with `data-base` and `data-csrf`,
 * `#passkey-sign-in` with `data-base`) over `@simplewebauthn/browser` (passkeys.ts); their
 * outcome goes to `#passkey-status`.
 */
export const PAGE_JS: WebAsset = webAsset("page.js", pageJs);

/** `@simplewebauthn/browser`'s bundle, served as `webauthn.<hash>.js`. */
export const WEBAUTHN_JS: WebAsset = webAsset("webauthn.js", webauthnJs);
