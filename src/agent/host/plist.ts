/**
 * Apple XML property lists (the LaunchAgent of autostart.ts, the app wrapper's Info.plist of
 * url_scheme.ts): the document around a `<dict>` body, and text escaped for it.
 * @module
 */
import { escapeToBuffer } from "hono/utils/html";

/**
 * Text for an XML element or attribute, with hono's HTML escaper: & < > " ' (as `&#39;`) are
 * the five characters XML needs escaped, and `&#39;` is valid XML.
 * @param s the text
 * @returns the escaped text
 */
export function xmlText(s: string): string {
  const out: [string] = [""];
  escapeToBuffer(s, out);
  return out[0];
}

/**
 * A property list whose top-level `<dict>` holds `body` (already indented two spaces).
 * @param body the dictionary's keys and values
 * @returns the document (XML declaration, Apple's DOCTYPE, LF line ends)
 */
export function plistDocument(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
${body.replace(/\n$/, "")}
</dict>
</plist>
`;
}
