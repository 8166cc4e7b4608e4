/**
 * `agent doctor`: the machine's checks (port, token service, clock, data folder, senders' key stores) with a fix for each.
 * @module
 */
export * from "./doctor.ts";
export * from "./types.ts";
