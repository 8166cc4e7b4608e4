/**
 * The link a page opens to start the agent (`svc-agent://start`), recognised before anything
 * loads: the OS passes it as the program's only argument (src/agent/host/url_scheme.ts
 * registers the scheme).
 * @module
 */

/** The scheme. */
export const URL_SCHEME = "svc-agent";
/** The one link the agent answers. */
export const START_URL = `${URL_SCHEME}://start`;

/**
 * Whether a command-line argument is the start link (scheme case ignored, a trailing slash
 * allowed).
 * @param arg the first argument
 * @returns true for `svc-agent://start`
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(isStartUrl("svc-agent://start/"), true);
 * ```
 */
export function isStartUrl(arg: string): boolean {
  return /^svc-agent:\/\/start\/?$/i.test(arg);
}

/**
 * Whether an argument is any link of the scheme (a wrong one is refused, not run as a command).
 * @param arg the first argument
 * @returns true for `svc-agent:…`
 */
export function isAgentLink(arg: string): boolean {
  return /^svc-agent:/i.test(arg);
}
