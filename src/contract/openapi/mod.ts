/**
 * The OpenAPI 3.0 documents of the agent and the token service, generated from the contract
 * (never written by hand). Its own folder: the generator loads on demand.
 * @module
 */
export * from "./openapi.ts";
export * from "./agent_document.ts";
export * from "./token_document.ts";
