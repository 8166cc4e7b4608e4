/**
 * The agent console (docs/console.md): the accountant's pages at `/` and `/console/*` — status,
 * senders, filings, diagnostics, log — behind a one-time link and a session cookie.
 * @module
 */
export * from "./deps.ts";
export * from "./routes.ts";
export * from "./session.ts";
export { followedInWords } from "./filing_words.ts";
export { CONSOLE_ASSETS } from "./assets/mod.ts";
