/**
 * Phase 1 of the agent's start (listen and answer /health before the app loads), the
 * one-agent-per-user instance lock, and the running agent's record (which agent is this data
 * folder's). Tiny on purpose: no npm package, no Node compatibility.
 * @module
 */
export * from "./early.ts";
export * from "./instance.ts";
export * from "./link.ts";
export * from "./running.ts";
export * from "./port_holder.ts";
