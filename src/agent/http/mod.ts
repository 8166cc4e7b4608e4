/**
 * The HTTP edge of the agent: token verification, CORS, the Host check, the peer's OS user
 * (peer_guard.ts), rate limits, the error wire format, the offline API docs.
 * @module
 */
export * from "./auth.ts";
export * from "./cors.ts";
export * from "./docs_page.ts";
export * from "./errors_wire.ts";
export * from "./host_guard.ts";
export * from "./rate_limit.ts";
export * from "./callers.ts";
export * from "./pages.ts";
export * from "./published_origins.ts";
export * from "./peer_guard.ts";
