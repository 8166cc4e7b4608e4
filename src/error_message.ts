/**
 * The one way to turn anything thrown into a sentence for a log line, an outcome's reason or a
 * page: what the logs, the update's `last.json` and the console show of a failure
 * ({@link errorMessage}), with the cause's message where a connection failed
 * ({@link errorMessageWithCause}).
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

/**
 * The message of what was thrown with its cause's, for a failed connection whose own message is
 * only "fetch failed" (the doctor's checks of the token service and the portal).
 * @param e anything a `catch` received
 * @returns `message: cause's message` when the `Error` has a cause with a message, else
 *   {@link errorMessage}
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { errorMessageWithCause } from "./error_message.ts";
 * const e = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") });
 * equal(errorMessageWithCause(e), "fetch failed: connect ECONNREFUSED");
 * equal(errorMessageWithCause(new Error("plain")), "plain");
 * ```
 */
export function errorMessageWithCause(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e.cause as Error | undefined)?.message;
  return cause ? `${e.message}: ${cause}` : e.message;
}
