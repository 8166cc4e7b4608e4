/**
 * Senders: the QES holders configured in agent.json, their key store references and the live signing context.
 * @module
 */
export * from "./agent_file.ts";
export * from "./senders.ts";
export * from "./sender_keys.ts";
export * from "./precheck.ts";
