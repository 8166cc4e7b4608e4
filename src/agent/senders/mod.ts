/**
 * Senders: the QES holders configured in agent.json, their key store references and the live
 * signing context; discovery of the certificates this computer offers and the sender actions
 * shared by the CLI and the console (add, test, remove, make active).
 * @module
 */
export * from "./agent_file.ts";
export * from "./senders.ts";
export * from "./sender_keys.ts";
export * from "./precheck.ts";
export * from "./certificate_facts.ts";
export * from "./discover.ts";
export * from "./actions.ts";
export * from "./messages.ts";
export * from "./check_words.ts";
export * from "./kept_files.ts";
export * from "./csc_sender.ts";
