/**
 * The desktop host: start at login (autostart), the default browser, the native file and folder pickers.
 * @module
 */
export * from "./autostart.ts";
export * from "./browser.ts";
export * from "./pickers.ts";
export * from "./pickers_native.ts";
export * from "./url_scheme.ts";
