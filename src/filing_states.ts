/**
 * The journal's vocabulary: the states of a filing (docs/journal.md § States). Shared by the
 * agent's journal (src/agent/filing/) and the command line's `journal` commands, which name them
 * before the journal itself is loaded.
 * @module
 */

/**
 * Journal row states (docs/journal.md § States):
 * - `pending`: written, not sent yet (a crash here: `not_filed` on the next start);
 * - `unknown`: sent; while the call runs, and after it when its fate cannot be known (a
 *   time-out or a connection cut after sending, an unreadable answer, a crash): a person checks
 *   on the NRA portal and runs `journal resolve`;
 * - `filed`: the NRA accepted it (documentId, incomeNumber), or a person found it filed;
 * - `refused`: the NRA answered and did not take it (retry allowed; after a 429, no sooner than
 *   `retryAfter`);
 * - `not_filed`: it never reached the NRA (a local check, no connection, a crash before
 *   sending), or a person found an unknown one not filed (retry allowed).
 */
export type FilingState = "pending" | "unknown" | "filed" | "refused" | "not_filed";

/** The states, in the order a filing goes through them. */
export const FILING_STATES: readonly FilingState[] = [
  "pending",
  "unknown",
  "filed",
  "refused",
  "not_filed",
];
