/**
 * The contract shared by the agent, the token service and integrators: the operation registry
 * (with every operation's request and result schema), the error catalog, the token service's
 * wire schemas, the shared field schemas, and the types inferred from them. Pure: no I/O. The
 * OpenAPI generator is in `openapi/mod.ts` (loaded on demand).
 * @module
 */
export * from "./errors.ts";
export * from "./operations.ts";
export * from "./types.ts";
export * from "./common.ts";
export * from "./api.ts";
export * from "./media_type.ts";
export * from "./text.ts";
export * from "./eik.ts";
