/**
 * A failure the person must read and act on — a setting, a file of theirs, a command line, or
 * the OS refusing a step — as opposed to a programming error. The CLI prints its message as is
 * (`failureText` in src/cli/output.ts: no error code, exit code 1); the console shows it on the
 * page. Failures of the API carry a catalog code instead (`AppError`, src/contract/errors.ts).
 * See docs/architecture.md § Errors.
 * @module
 */

/**
 * A message for the person at the command line or the console, printed as is.
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { UserError } from "./user_error.ts";
 * const e = new UserError("No filing \"x\" in the journal.");
 * equal(e.message, "No filing \"x\" in the journal.");
 * equal(e.name, "UserError");
 * ```
 */
export class UserError extends Error {
  /**
   * @param message the whole text for the person (lines after the first are details)
   * @param options the underlying failure, when there is one
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "UserError";
  }
}
