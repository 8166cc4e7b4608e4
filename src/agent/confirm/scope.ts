/**
 * What a batch's confirmation covers (docs/confirmation.md § What a confirmed batch covers): the
 * user confirmed what the page showed, so a later request of the batch runs silently only inside
 * it. A scope holds:
 *
 * - **filings**: the declaration kinds confirmed to be filed (a submission's or a folder-wide
 *   batch's `kind`); any confirmation also covers **reads** (reports, results, portal files,
 *   scans) — for its companies and paths only;
 * - **companies**: the EIKs the page showed (the tokens' `eik`/`eiks`);
 * - **paths**: the files and folders on the disk the page showed; a path inside a confirmed
 *   folder is covered (a folder-wide batch's scope is its root folder and its token's EIKs);
 * - **inline files**: the files sent by the page that the page showed, by their SHA-256 (the same
 *   bytes sent again, e.g. a retry, are covered; other bytes are not).
 *
 * A request outside the scope asks again, showing only what is new ({@link ScopeAddition}).
 * @module
 */
import type { SubmissionKind } from "../../contract/mod.ts";
import type { BatchScope, ConfirmSubject, ShownPath } from "./dialog.ts";

export type { BatchScope };

/** What a request asks beyond a batch's scope (each list may be empty, not all). */
export interface ScopeAddition {
  /** Declaration kinds to be filed that were not confirmed. */
  readonly filings: readonly SubmissionKind[];
  /** Companies not shown before. */
  readonly eiks: readonly string[];
  /** Paths outside every confirmed file and folder. */
  readonly paths: readonly ShownPath[];
  /** Whether the request sends files the page did not show (other bytes). */
  readonly inline: boolean;
}

/** Whether `path` is `root` or lies inside it (either separator; the page's resolved form). */
export function pathWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const base = /[\\/]$/.test(root) ? root : root + (root.includes("\\") ? "\\" : "/");
  return path.startsWith(base);
}

/**
 * The scope of what a page showed and the user confirmed.
 * @param subjects the requests the page listed
 * @param base the batch's earlier scope (an extension adds to it)
 * @returns the scope
 */
export function scopeOf(subjects: readonly ConfirmSubject[], base?: BatchScope): BatchScope {
  const filings = new Set(base?.filings ?? []);
  const eiks = new Set(base?.eiks ?? []);
  const paths = [...(base?.paths ?? [])];
  const inline = new Set(base?.inline ?? []);
  for (const s of subjects) {
    for (const d of s.digests ?? []) inline.add(d);
    if (s.filing !== null) filings.add(s.filing);
    for (const e of s.eiks) eiks.add(e);
    for (const p of s.paths ?? []) if (!paths.includes(p.resolved)) paths.push(p.resolved);
  }
  return { filings, eiks, paths, inline };
}

/**
 * What a request asks beyond a scope.
 * @param scope the batch's confirmed scope
 * @param subject the request
 * @returns what is new, or null when the request lies inside the scope (it runs silently)
 */
export function outside(scope: BatchScope, subject: ConfirmSubject): ScopeAddition | null {
  const k = subject.filing;
  const filings = k !== null && !scope.filings.has(k) ? [k] : [];
  const eiks = subject.eiks.filter((e) => !scope.eiks.has(e));
  const paths = (subject.paths ?? []).filter((p) =>
    !scope.paths.some((root) => pathWithin(p.resolved, root))
  );
  const inline = (subject.digests ?? []).some((d) => !scope.inline.has(d));
  return filings.length || eiks.length || paths.length || inline
    ? { filings, eiks, paths, inline }
    : null;
}
