/**
 * The operation pipeline of POST /api/v1/operations/:typeId and the NO_DATA rule.
 * @module
 */
export * from "./pipeline.ts";
export * from "./no_data.ts";
