/**
 * The agent: `createAgentApp(deps)` builds its Hono app (never listens). The concept folders
 * have their own `mod.ts` (start/, host/, tls/, doctor/, filing/, local/, senders/, …) so a
 * command loads only what it uses.
 * @module
 */
export { type AgentApp, createAgentApp } from "./app.ts";
export type { AgentDeps } from "./deps.ts";
