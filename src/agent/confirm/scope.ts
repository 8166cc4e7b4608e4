/**
 * What a batch's confirmation covers (docs/confirmation.md § What a confirmed batch covers): the
 * user confirmed the **items** the pages showed, so a later request of the batch runs silently
 * only when it is one of them. One item is one request as its page showed it:
 *
 * - the **operation** (its typeId: a VAT return, a folder-wide filing of VAT returns, a report);
 * - the **companies**: the EIK of the token (a folder-wide filing: the companies it lists);
 * - the **period** the page showed;
 * - the **file set**: the paths on the disk the page showed (a file, or a folder-wide filing's
 *   folder), and the files sent by the page by their names and SHA-256 — the whole set, so a
 *   subset or a mix of two sets is another item. A declaration's files read at a path are bound
 *   to the item by their SHA-256 the first time ({@link bindRead}): a retry reading other bytes
 *   there asks again, showing what it read;
 * - the request's **parameters** (its body without the inline files' bytes: a report's filters,
 *   a result's document id, a scan's folder and period).
 *
 * A retry of the same item (the same request again) is covered; anything else — another company,
 * period, operation, file set or parameter — asks again, and the page shows only the requests that
 * are new ({@link outside}). Items are never combined: confirming a VAT return for one company and
 * a report for another covers neither the return for the second nor the report for the first.
 * @module
 */
import type { SubmissionKind } from "../../contract/mod.ts";
import type { BatchScope, ConfirmSubject } from "./dialog.ts";

export type { BatchScope };

/** What a request outside a batch's scope brings that the earlier pages did not name. */
export interface ScopeAddition {
  /** Companies no confirmed item names (the page marks them new). */
  readonly eiks: readonly string[];
}

/** The parts of a request that make its item (what the page showed). */
export type ItemOf = Pick<
  ConfirmSubject,
  "typeId" | "eiks" | "period" | "files" | "digests" | "paths" | "params"
>;

/** A sorted copy (the order a request lists its files or companies in is not part of it). */
const sorted = (xs: readonly string[] | undefined): string[] => [...(xs ?? [])].sort();

/**
 * The item a request is, as one string: equal strings are the same item.
 * @param s the request (as the page shows it)
 * @returns the item's key
 * @example
 * ```ts
 * import { itemKey } from "./scope.ts";
 * const vat = { typeId: "vat", eiks: ["121212121"], period: "2026-08", files: [], params: "{}" };
 * if (itemKey(vat) !== itemKey({ ...vat })) throw new Error("a retry is the same item");
 * if (itemKey(vat) === itemKey({ ...vat, period: "2025-01" })) throw new Error("another period");
 * ```
 */
export function itemKey(s: ItemOf): string {
  return JSON.stringify([
    s.typeId,
    sorted(s.eiks),
    s.period,
    sorted(s.paths?.map((p) => p.resolved)),
    sorted(s.files),
    sorted(s.digests),
    s.params ?? null,
  ]);
}

/**
 * A request's parameters in one canonical form (keys sorted at every level), for its item.
 * @param body the validated body without the inline files (`stripInline`)
 * @returns canonical JSON
 */
export function paramsOf(body: unknown): string {
  return JSON.stringify(
    body,
    (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
  );
}

/**
 * The scope of what a page showed and the user confirmed.
 * @param subjects the requests the page listed
 * @param base the batch's earlier scope (an extension adds to it)
 * @returns the scope: the earlier items and these
 */
export function scopeOf(subjects: readonly ConfirmSubject[], base?: BatchScope): BatchScope {
  const items = new Set(base?.items ?? []);
  const bound = new Set(base?.bound ?? []);
  const filings = new Set<SubmissionKind>(base?.filings ?? []);
  const eiks = new Set(base?.eiks ?? []);
  for (const s of subjects) {
    items.add(itemKey(s));
    if (s.filing !== null) filings.add(s.filing);
    for (const e of s.eiks) eiks.add(e);
  }
  return { items, bound, filings, eiks };
}

/**
 * Whether a request is one of the items a batch's pages showed.
 * @param scope the batch's confirmed scope
 * @param subject the request
 * @returns true when it runs silently
 */
export function covers(scope: BatchScope, subject: ItemOf): boolean {
  return scope.items.has(itemKey(subject));
}

/**
 * What a request asks beyond a scope.
 * @param scope the batch's confirmed scope
 * @param subject the request
 * @returns null when the request is one of the confirmed items (it runs silently), else the
 *   companies it names that no confirmed item names
 */
export function outside(scope: BatchScope, subject: ConfirmSubject): ScopeAddition | null {
  if (covers(scope, subject)) return null;
  return { eiks: subject.eiks.filter((e) => !scope.eiks.has(e)) };
}

/**
 * Bind what a request read at its disk paths to its item (docs/confirmation.md § What a confirmed
 * batch covers): the first time the item's files are read, their SHA-256 become part of what the
 * batch covers; later, only the same bytes (or bytes a page showed since) are covered.
 * @param scope the batch's confirmed scope (updated in place the first time)
 * @param subject the request, as it was confirmed (its paths, not yet its files)
 * @param read what its files hold, as the page shows it (files, digests, period, …)
 * @returns true when the request may go on silently; false: it read other bytes than the batch
 *   covers, and must ask again, showing `{ ...subject, ...read }`
 */
export function bindRead(
  scope: BatchScope,
  subject: ConfirmSubject,
  read: Partial<ConfirmSubject>,
): boolean {
  const item = itemKey(subject);
  if (!scope.items.has(item)) return true;
  const withBytes = itemKey({ ...subject, ...read });
  if (scope.items.has(withBytes)) return true;
  if (scope.bound.has(item)) return false;
  scope.bound.add(item);
  scope.items.add(withBytes);
  return true;
}
