/**
 * What the special test EIKs do, in one place (docs/test-portal.md § Special EIKs): the test
 * portal asks {@link specialRule} at each of its entry points — a report, a submission, its
 * reconciliation after a restart, a result — and the generators of src/mock know nothing of
 * them. A report or submission kind added to the registry gets every behaviour without code:
 * `tests/portal/special_eiks_test.ts` runs each report and submission of the registry with each
 * special EIK. The table of EIKs itself is data in src/mock/special_eiks.ts.
 * @module
 */
import { AppError, type SubmissionResult } from "../../contract/mod.ts";
import { type SpecialBehaviour, specialBehaviour, type Verdict } from "../../mock/mod.ts";

/** A shape of result the registry's zod schemas describe: fields by name. */
type Shape = Readonly<Record<string, { safeParse(v: unknown): { success: boolean } }>>;

/** What one special behaviour changes; a missing hook leaves that step ordinary. */
export interface SpecialRule {
  /** Fails every call for the EIK before anything is computed (a report, submission, result). */
  readonly fail?: (eik: string) => never;
  /** Replaces a report's answer (the generator's answer and the result schema's fields). */
  readonly report?: <R>(answer: R, shape: Shape) => R;
  /** Answers a submission instead of filing it, or throws after it was sent. */
  readonly submit?: (eik: string) => SubmissionResult;
  /** The answer of a sent filing cannot be computed again after a restart. */
  readonly answerLost?: true;
  /** The verdict the result protocol shows. */
  readonly verdict?: Verdict;
}

/** Whether a number field counts or sums a list (`rowCount`, `count`, `total…`). */
const countsTheList = (key: string) => key === "rowCount" || key === "count" || /^total/.test(key);

/**
 * A report's answer as for a taxpayer the portal has nothing on: status "ok", every list
 * empty, every count and total 0, every other field the schema lets be null null, the rest
 * (the asked year, the type filter) kept. The agent then marks it NO_DATA
 * (docs/errors.md § NO_DATA).
 */
function emptied<R>(answer: R, shape: Shape): R {
  const out: Record<string, unknown> = { ...answer as Record<string, unknown> };
  for (const [key, value] of Object.entries(out)) {
    if (Array.isArray(value)) out[key] = [];
    else if (typeof value === "number" && countsTheList(key)) out[key] = 0;
    else if (key !== "status" && shape[key]?.safeParse(null).success) out[key] = null;
  }
  out.status = "ok";
  return out as R;
}

/** The rule of each behaviour (a new behaviour does not compile without its rule). */
const RULES: Readonly<Record<SpecialBehaviour, SpecialRule>> = {
  SUBMIT_REFUSED: {
    submit: (eik) => ({
      success: false,
      documentId: null,
      incomeNumber: null,
      submissionDate: null,
      errorMessage: `Документът не е приет: задълженото лице с ЕИК ${eik} няма право да подава ` +
        "документи по електронен път (тестов ЕИК за отказ).",
      nativeErrors: [],
    }),
  },
  DECLARATION_REJECTED: { verdict: "rejected" },
  PARTIALLY_ACCEPTED: { verdict: "partial" },
  NO_DATA: { report: emptied },
  PORTAL_UNAVAILABLE: {
    fail: (eik) => {
      throw new AppError(
        "PORTAL_UNREACHABLE",
        `The test portal is unreachable for EIK ${eik} (special test EIK)`,
        { eik },
      );
    },
  },
  ANSWER_LOST: {
    submit: (eik) => {
      throw new AppError(
        "PORTAL_TIMEOUT",
        `The test portal's answer was lost for EIK ${eik} (special test EIK)`,
        { eik, outcome: "unknown" },
      );
    },
    answerLost: true,
  },
};

const ORDINARY: SpecialRule = {};

/**
 * The rule for the EIK of a call, after failing the call when the EIK's behaviour says so.
 *
 * Implements docs/test-portal.md § Special EIKs.
 * @param eik the EIK of the request (a report's `eik` field, a submission's or result's EIK);
 *   anything else (no EIK, a report without one) is ordinary
 * @returns the rule; `{}` for an ordinary EIK
 * @throws AppError PORTAL_UNREACHABLE (HTTP 502) for the PORTAL_UNAVAILABLE special EIK
 * @example
 * ```ts
 * import { equal, throws } from "node:assert/strict";
 * equal(specialRule("999999917").verdict, "rejected");
 * equal(specialRule("121212121").submit, undefined);
 * throws(() => specialRule("999999949"), /unreachable/);
 * ```
 */
export function specialRule(eik: unknown): SpecialRule {
  const behaviour = typeof eik === "string" ? specialBehaviour(eik) : null;
  if (behaviour === null) return ORDINARY;
  const rule = RULES[behaviour];
  rule.fail?.(eik as string);
  return rule;
}
