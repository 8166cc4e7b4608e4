/**
 * Local input: reading the user's files and folders (disk or inline) for scans, VAT parse, submissions and folder-wide batches.
 * @module
 */
export * from "./ops.ts";
export * from "./types.ts";
export { checkLocalPath } from "./tree.ts";
