/**
 * Special test EIKs: a small, documented table of valid Bulstats for which the test portal
 * answers with a failure or an empty result on purpose, so integrators can exercise those paths
 * deterministically. Every other EIK gets ordinary fictitious data. Implements
 * interface-spec.md § Errors ("Submission results carry success=false …", "An empty result is
 * reported as NO_DATA", 502 for portal failures) for the test mode; listed in
 * docs/test-portal.md § Special EIKs.
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
    description: "Reports are empty (debt_payments, due_amounts, vat_monthly_files: no items); " +
      'portal files answer status "error" (declaration not found)',
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
      "until a person resolves it (after a restart too)",
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
 * specialBehaviour("999999931"); // "NO_DATA"
 * specialBehaviour("121212121"); // null
 * ```
 */
export function specialBehaviour(eik: string | undefined | null): SpecialBehaviour | null {
  return eik ? BY_EIK.get(eik) ?? null : null;
}
