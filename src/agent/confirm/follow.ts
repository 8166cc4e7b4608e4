/**
 * What the confirmation page follows after "Confirm" (docs/confirmation.md § After Confirm):
 * the journal rows filed under each request the page listed. A request's subject (the object
 * the dialog holds) is linked to its filings as they are written; the page asks
 * `GET /confirm/:id/filings` and shows each one's outcome in words with a link to its receipt
 * in the console. Held in memory only, for as long as the dialog object lives.
 * @module
 */
import type { ConfirmSubject } from "./dialog.ts";

const filed = new WeakMap<ConfirmSubject, string[]>();

/**
 * Link a journal row to the request it was filed for.
 * @param subject the request's subject, as the dialog holds it
 * @param filingId the journal row's id
 */
export function followFiling(subject: ConfirmSubject, filingId: string): void {
  const ids = filed.get(subject) ?? [];
  if (!ids.includes(filingId)) ids.push(filingId);
  filed.set(subject, ids);
}

/**
 * The journal rows filed under a dialog's requests, in order.
 * @param subjects the dialog's subjects
 * @returns row ids (empty while nothing was written yet)
 */
export function followedFilings(subjects: readonly ConfirmSubject[]): string[] {
  return subjects.flatMap((s) => filed.get(s) ?? []);
}

/** A followed filing as the page shows it (built by the agent from the journal). */
export interface FollowedFiling {
  readonly id: string;
  /** false while it is being sent. */
  readonly final: boolean;
  /** "ok" | "bad" | "warn" | "muted": how the page colours it. */
  readonly tone: string;
  /** One line in each language: the state and the incoming number, or the error and what
   * to do next. */
  readonly bg: string;
  readonly en: string;
  /** The receipt in the console. */
  readonly receipt: string;
}
