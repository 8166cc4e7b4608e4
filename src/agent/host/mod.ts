/**
 * The desktop host: start at login (autostart), the default browser, the native file and folder
 * pickers, and who owns the other end of a connection (peer_owner.ts).
 * @module
 */
export * from "./autostart.ts";
export * from "./browser.ts";
export * from "./pickers.ts";
export * from "./pickers_native.ts";
export * from "./url_scheme.ts";
export * from "./peer_owner.ts";
