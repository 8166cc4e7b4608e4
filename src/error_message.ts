/**
 * The one way to turn anything thrown into a sentence for a log line, an outcome's reason or a
 * page: what the logs, the update's `last.json` and the console show of a failure.
 * @module
 */

/**
 * The message of what was thrown.
 * @param e anything a `catch` received
 * @returns an `Error`'s message (its stack and cause are left out), else `String(e)`
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { errorMessage } from "./error_message.ts";
 * equal(errorMessage(new RangeError("out of range")), "out of range");
 * equal(errorMessage("plain text"), "plain text");
 * equal(errorMessage(42), "42");
 * ```
 */
export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
