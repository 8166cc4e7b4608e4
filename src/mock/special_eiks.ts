/**
 * Special test EIKs: a small, documented table of valid Bulstats for which the test portal
 * answers with a failure or an empty result on purpose, so integrators can exercise those paths
 * deterministically (a refused submission, a rejected declaration, NO_DATA — docs/errors.md
 * § NO_DATA —, a portal failure answered 502). Every other EIK gets ordinary fictitious data.
 * This is the table only: the test portal applies it in one place (src/portal/test/special.ts)
 * to every report and submission. `deno task gen` writes it into docs/test-portal.md § Special
 * EIKs.
 * @module
 */

/** What a special EIK triggers. */
export type SpecialBehaviour =
  | "SUBMIT_REFUSED"
  | "DECLARATION_REJECTED"
  | "PARTIALLY_ACCEPTED"
  | "NO_DATA"
  | "PORTAL_UNAVAILABLE"
  | "ANSWER_LOST";

/** One row of the table. */
export interface SpecialEik {
  readonly eik: string;
  readonly behaviour: SpecialBehaviour;
  /** What the integrator sees (English, for docs and logs). */
  readonly description: string;
}

/** The special test EIKs (all valid 9-digit Bulstats, prefix 9999999). */
export const SPECIAL_EIKS: readonly SpecialEik[] = [
  {
    eik: "999999904",
    behaviour: "SUBMIT_REFUSED",
    description:
      "Every submission is refused: success=false, a Bulgarian errorMessage, nativeErrors [], " +
      "no documentId",
  },
  {
    eik: "999999917",
    behaviour: "DECLARATION_REJECTED",
    description: "Submissions are accepted, but the result protocol says the declaration was " +
      'rejected ("отхвърлена"; D1/D6: every record rejected)',
  },
  {
    eik: "999999924",
    behaviour: "PARTIALLY_ACCEPTED",
    description: "D1/D6 result protocols reject one record and accept the rest; other kinds are " +
      "accepted",
  },
  {
    eik: "999999931",
    behaviour: "NO_DATA",
    description: 'Every report that names an EIK answers status "ok" with its lists empty and ' +
      "its counts and totals 0: the agent marks it NO_DATA. Submissions are ordinary",
  },
  {
    eik: "999999949",
    behaviour: "PORTAL_UNAVAILABLE",
    description: "Every operation for this EIK fails with errorCode PORTAL_UNREACHABLE (HTTP 502)",
  },
  {
    eik: "999999956",
    behaviour: "ANSWER_LOST",
    description: "Submissions reach the portal but its answer is lost: errorCode PORTAL_TIMEOUT " +
      '(HTTP 502) with details.outcome "unknown"; the journal keeps the filing as unknown ' +
      "until a person resolves it, after a restart too (console → Filings, or journal resolve)",
  },
];

const BY_EIK: ReadonlyMap<string, SpecialBehaviour> = new Map(
  SPECIAL_EIKS.map((s) => [s.eik, s.behaviour]),
);

/**
 * The special behaviour of an EIK, if any.
 *
 * Implements docs/test-portal.md § Special EIKs.
 * @param eik the EIK of the request
 * @returns the behaviour, or null for an ordinary EIK
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(specialBehaviour("999999931"), "NO_DATA");
 * equal(specialBehaviour("121212121"), null);
 * ```
 */
export function specialBehaviour(eik: string | undefined | null): SpecialBehaviour | null {
  return eik ? BY_EIK.get(eik) ?? null : null;
}
