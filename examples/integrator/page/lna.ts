/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Chrome's Local Network Access (LNA) permission as seen from the page. Chrome 142+ asks the user
 * before a public site may reach loopback; Chrome 145+ names the permission "loopback-network"
 * (the older "local-network-access" stays as an alias). Browsers without LNA reject both names.
 * @module
 */

/** The permission state, or "unsupported" when the browser has no LNA permission. */
export type LnaState = PermissionState | "unsupported";

/** Names to query, newest first. */
const NAMES = ["loopback-network", "local-network-access"];

/**
 * Query the LNA permission and follow its changes.
 * @param onChange called with the current state now and after every change
 * @returns the first state
 */
export async function watchLoopbackPermission(
  onChange: (state: LnaState) => void,
): Promise<LnaState> {
  for (const name of NAMES) {
    try {
      const status = await navigator.permissions.query({ name: name as PermissionName });
      status.addEventListener("change", () => onChange(status.state));
      onChange(status.state);
      return status.state;
    } catch {
      // Not a permission this browser knows: try the next name.
    }
  }
  onChange("unsupported");
  return "unsupported";
}

/**
 * A line for the user about the permission.
 * @param state the permission state
 * @param pageIsLocal whether the page itself is served from loopback (then LNA does not apply)
 * @returns text
 */
export function describeLnaState(state: LnaState, pageIsLocal = false): string {
  if (pageIsLocal && state !== "denied") {
    return `${state} — not needed: this page is itself served from this computer`;
  }
  switch (state) {
    case "granted":
      return "allowed";
    case "prompt":
      return "not decided yet — the browser asks when you first click a button";
    case "denied":
      return "blocked — allow it in the site settings (see the message below)";
    default:
      return "not needed by this browser";
  }
}
