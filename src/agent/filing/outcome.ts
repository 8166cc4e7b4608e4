/**
 * What a failed portal call means for the journal (docs/journal.md), and the rules that stop a
 * filing of a declaration whose earlier attempt is unresolved or must wait (docs/journal.md):
 * - an error's outcome comes from `details.outcome` (the live portal sets it on every error of
 *   `submit`: "not_filed", "refused", "unknown"; the deprecated "not_sent" still means
 *   "not_filed"), else from its code (the error catalog's `filingFailure`,
 *   src/contract/errors.ts); whatever cannot be placed
 *   is "unknown" — the journal never claims "not filed" without knowing;
 * - the same declaration (sender, EIK, kind, period, files' hash, mode) is not sent while an
 *   earlier attempt is "unknown" (FILING_UNRESOLVED) or running (FILING_IN_PROGRESS), nor before
 *   the Retry-After of a refused one (FILING_RETRY_TOO_EARLY).
 * The texts tell the user what to do; docs/journal.md says the same.
 * @module
 */
import { AppError, type FilingFailure, filingFailureOf } from "../../contract/mod.ts";
import { maskPersonalId } from "../../log.ts";
import type { FilingRecord, Journal, SameDeclaration } from "./journal.ts";

/** What became of a declaration whose portal call failed (the journal's own words). */
export type FailureOutcome = FilingFailure | "unknown";

/**
 * The deprecated word for "not_filed" in `details.outcome`: the agent still sends it on its wire
 * until its sunset (http/errors_wire.ts) and accepts it from an adapter here (CHANGELOG).
 */
const DEPRECATED_NOT_FILED = "not_sent";

/**
 * The outcome of a failed submit.
 * @param err the error
 * @returns `details.outcome` when the adapter set one (the test portal does not), else what the
 *   error catalog says of the code (`filingFailure`); "unknown" otherwise
 * @throws nothing
 */
export function outcomeOf(err: AppError): FailureOutcome {
  const o = err.details?.outcome;
  if (o === "not_filed" || o === "refused" || o === "unknown") return o;
  // The word adapters used before the journal's vocabulary was theirs: still accepted.
  if (o === DEPRECATED_NOT_FILED) return "not_filed";
  return filingFailureOf(err.code) ?? "unknown";
}

/**
 * Journal a failed submit by its outcome: "not_filed", "refused" (with the instant before which
 * it must not be filed again, from `details.retryAfterSeconds`) or "unknown" (the error kept).
 * @param journal the journal
 * @param id the row
 * @param err the error
 * @param now the clock's now
 * @returns the error to answer with: an unknown outcome names the row in `details.filingId`
 * @throws nothing
 */
export function recordFailure(journal: Journal, id: string, err: AppError, now: Date): AppError {
  const outcome = outcomeOf(err);
  if (outcome === "not_filed") {
    journal.notFiled(id, err.code, err.message, now);
    return err;
  }
  if (outcome === "refused") {
    const s = Number(err.details?.retryAfterSeconds);
    const until = Number.isFinite(s) && s > 0 ? new Date(now.getTime() + s * 1000) : null;
    journal.refuse(id, err.code, err.message, now, until);
    return err;
  }
  journal.unknownOutcome(id, err.code, err.message, now);
  return new AppError(
    err.code,
    `${err.message}. Whether the NRA filed it is unknown: check on the NRA portal, then run ` +
      `\`journal resolve ${id} --filed\` or \`--not-filed\``,
    { ...(err.details ?? {}), outcome: "unknown", filingId: id },
    err,
  );
}

const what = (r: Pick<FilingRecord, "kind" | "eik" | "period">) =>
  `${r.kind} for EIK ${maskPersonalId(r.eik)}${r.period ? ` (${r.period})` : ""}`;

/** The steps that settle an unknown row, for error texts. */
const resolveSteps = (id: string) =>
  `Check on the NRA portal whether it was filed, then mark it with ` +
  `\`journal resolve ${id} --filed\` (add --document-id and --income-number) or ` +
  `\`journal resolve ${id} --not-filed\``;

/**
 * The error for a retry (same Idempotency-Key or batch) of a filing whose outcome is unknown.
 * @param r the unknown row
 * @returns FILING_OUTCOME_UNKNOWN with details.filingId
 * @throws nothing
 */
export function outcomeUnknownError(r: FilingRecord): AppError {
  return new AppError(
    "FILING_OUTCOME_UNKNOWN",
    `An earlier attempt of this filing (${what(r)}) was sent and its outcome is unknown ` +
      `(journal row ${r.id}). ${resolveSteps(r.id)}.`,
    { filingId: r.id, state: r.state, sentAt: r.sentAt },
  );
}

/**
 * Refuse a retry of a refused row before its Retry-After.
 * @param r the refused row
 * @param now the clock
 * @throws AppError FILING_RETRY_TOO_EARLY (details: filingId, retryAfter seconds, retryAt)
 */
export function assertRetryAllowed(r: FilingRecord, now: Date): void {
  if (!r.retryAfter) return;
  const waitMs = Date.parse(r.retryAfter) - now.getTime();
  if (!(waitMs > 0)) return;
  const seconds = Math.ceil(waitMs / 1000);
  throw new AppError(
    "FILING_RETRY_TOO_EARLY",
    `The NRA portal asked to wait before ${what(r)} is filed again: retry in ${seconds} s ` +
      `(journal row ${r.id})`,
    { filingId: r.id, retryAfter: seconds, retryAt: r.retryAfter },
  );
}

/**
 * Refuse to send a declaration that an earlier attempt may already have filed, or that runs
 * now, or that must wait for a Retry-After (docs/journal.md § Retries).
 * @param journal the journal
 * @param d what makes the declaration the same
 * @param self the row of this filing, when it already exists (never blocks itself)
 * @param running ids of rows whose portal call runs in this process now
 * @param now the clock
 * @throws AppError FILING_IN_PROGRESS, FILING_UNRESOLVED (details: filingId, sentAt, and the
 *   steps in the text), FILING_RETRY_TOO_EARLY
 */
export function assertNothingUnresolved(
  journal: Journal,
  d: SameDeclaration,
  self: string | null,
  running: ReadonlySet<string>,
  now: Date,
): void {
  for (const r of journal.blocking(d, now)) {
    if (r.id === self) continue;
    if (r.state === "refused") assertRetryAllowed(r, now);
    else if (r.state === "pending" || running.has(r.id)) {
      throw new AppError(
        "FILING_IN_PROGRESS",
        `The same declaration (${what(r)}) is being filed now (journal row ${r.id}); ` +
          "retry when it finishes",
        { filingId: r.id },
      );
    } else {
      throw new AppError(
        "FILING_UNRESOLVED",
        `The same declaration (${what(r)}) was sent at ${r.sentAt ?? "?"} and its outcome is ` +
          `unknown (journal row ${r.id}), so it was not sent again. ${resolveSteps(r.id)}; ` +
          "then file again if it was not filed.",
        { filingId: r.id, state: r.state, sentAt: r.sentAt },
      );
    }
  }
}
