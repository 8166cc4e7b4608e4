/**
 * The device a session was opened on, as the sessions list shows it (docs/token-service.md
 * § Taking access back): the browser and the system named in the request's `User-Agent`,
 * e.g. "Chrome 131 · Linux". Only a label for a person to recognise their own sessions: it
 * decides nothing, so a short list of well-known names is enough; anything else is shown as
 * the first 60 characters of the header.
 * @module
 */

const BROWSERS: readonly [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/OPR\/(\d+)/, "Opera"],
  [/Firefox\/(\d+)/, "Firefox"],
  [/(?:HeadlessChrome|Chrome|CriOS)\/(\d+)/, "Chrome"],
  [/Version\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/Windows NT/, "Windows"],
  [/Android/, "Android"],
  [/iPhone|iPad|iPod/, "iOS"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

/**
 * A short name of the device behind a `User-Agent` header.
 * @param ua the header (may be missing)
 * @returns "Browser N · System", or the header's first 60 characters, or "" when there is none
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(
 *   deviceOf("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36"),
 *   "Chrome 131 · Linux",
 * );
 * equal(deviceOf(undefined), "");
 * ```
 */
export function deviceOf(ua: string | undefined): string {
  const s = (ua ?? "").trim();
  if (!s) return "";
  const browser = BROWSERS.map(([re, name]) => {
    const m = re.exec(s);
    return m ? `${name} ${m[1]}` : null;
  }).find((b) => b !== null);
  const system = SYSTEMS.find(([re]) => re.test(s))?.[1];
  if (!browser && !system) return s.slice(0, 60);
  return [browser, system].filter(Boolean).join(" · ");
}
