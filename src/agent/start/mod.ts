/**
 * Phase 1 of the agent's start (listen and answer /health before the app loads) and the one-agent-per-user instance lock. Tiny on purpose: no npm package, no Node compatibility.
 * @module
 */
export * from "./early.ts";
export * from "./instance.ts";
export * from "./link.ts";
