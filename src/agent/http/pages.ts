/**
 * The paths of the pages the person at the machine uses — the confirmation pages
 * (`/confirm/*`) and the console (`/`, `/console/*`, `/favicon.ico`). They never answer
 * other sites: no CORS grant (cors.ts), and a cross-site request is refused with a cheap 403
 * before any budget or handler (rate_limit.ts).
 * @module
 */

/**
 * Whether a path is one of the person's pages.
 * @param path the request's path
 * @returns true for `/confirm/*`, `/`, `/console`, `/console/*` and `/favicon.ico`
 */
export function isPersonPage(path: string): boolean {
  return path.startsWith("/confirm/") || path === "/" || path === "/console" ||
    path.startsWith("/console/") || path === "/favicon.ico";
}
