/**
 * The submission journal (docs/journal.md): every filing is
 * written to SQLite (`node:sqlite`, file `journal.sqlite` in the agent's data directory) before
 * it is sent, marked "unknown" just before the portal call, and updated with what became of it:
 * "filed", "refused" (the NRA answered no), "not_filed" (it never reached the NRA) — or left
 * "unknown" when nobody can tell, until a person resolves it (`journal resolve`). An idempotency
 * key (the `Idempotency-Key` header, or the batch id plus the files' hash) makes a retried
 * filing return the first answer instead of filing again. Never stores PINs, keys or file
 * contents — only their hash. The states and the migration of older files: journal_schema.ts.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { ErrorCode, SubmissionResult } from "../../contract/mod.ts";
import { type FilingProtocol, keepProtocol, readProtocol } from "./protocols.ts";
import {
  type IntegratorActivity,
  type JournalFilter,
  type JournalPage,
  type JournalQuery,
  queryAll,
  queryIntegrators,
  queryPage,
} from "./journal_query.ts";
import { BatchLog } from "./journal_batches.ts";
import { type FilingRecord, type FilingState, fromRow, migrateJournal } from "./journal_schema.ts";

export { FILING_STATES, type FilingRecord, type FilingState } from "./journal_schema.ts";
export {
  type IntegratorActivity,
  JOURNAL_PAGE_LIMIT,
  JOURNAL_PAGE_MAX,
  type JournalFilter,
  type JournalPage,
  type JournalQuery,
} from "./journal_query.ts";

type Row = Record<string, unknown>;

/** What a new filing row holds. */
export type NewFiling =
  & Pick<
    FilingRecord,
    | "id"
    | "idempotencyKey"
    | "typeId"
    | "kind"
    | "eik"
    | "period"
    | "batchId"
    | "filesSha256"
    | "files"
    | "senderId"
    | "mode"
    | "integrator"
    | "request"
  >
  & Partial<Pick<FilingRecord, "origin">>;

/** What makes two filings the same declaration (docs/journal.md § Retries). */
export type SameDeclaration = Pick<
  FilingRecord,
  "mode" | "senderId" | "eik" | "kind" | "period" | "filesSha256"
>;

/** How a person resolved an unknown filing (`journal resolve`). */
export type Resolution =
  | {
    readonly filed: true;
    readonly documentId: string | null;
    readonly incomeNumber: string | null;
  }
  | { readonly filed: false };

/** The journal. Synchronous SQLite; every write is its own transaction (WAL, synchronous=FULL). */
export class Journal {
  readonly #db: DatabaseSync;
  /** The folder-wide filings and their companies (docs/journal.md § Interrupted batches). */
  readonly batches: BatchLog;

  /**
   * Open (or create) the journal, migrating a file of an earlier version.
   * @param path database file (":memory:" in tests)
   * @throws Error when the file cannot be opened or was written by a newer agent
   */
  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec(
      "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;",
    );
    migrateJournal(this.#db);
    this.batches = new BatchLog(this.#db);
  }

  /**
   * Insert a filing in state "pending", unless its idempotency key exists.
   * @returns `{ created: true, record }` or `{ created: false, record }` (the existing row)
   */
  begin(f: NewFiling, now: Date): { created: boolean; record: FilingRecord } {
    if (f.idempotencyKey) {
      const existing = this.byKey(f.idempotencyKey);
      if (existing) return { created: false, record: existing };
    }
    this.#insert(f, now, null);
    // non-null: the row was inserted on the line above
    return { created: true, record: this.get(f.id)! };
  }

  /**
   * Retry a row that reached the NRA (refused, or resolved by a person): the old row keeps its
   * record and gives up its idempotency key to a new "pending" row that names it in `retryOf`.
   * @param oldId the row retried
   * @param f the new row (same idempotency key)
   * @param now the clock
   * @returns the new row
   */
  supersede(oldId: string, f: NewFiling, now: Date): FilingRecord {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      this.#db.prepare("UPDATE filings SET idempotency_key = NULL WHERE id = ?").run(oldId);
      this.#insert(f, now, oldId);
      this.#db.exec("COMMIT");
    } catch (e) {
      this.#db.exec("ROLLBACK");
      throw e;
    }
    // non-null: the row was inserted in the transaction just committed
    return this.get(f.id)!;
  }

  #insert(f: NewFiling, now: Date, retryOf: string | null): void {
    this.#db.prepare(
      `INSERT INTO filings (id, idempotency_key, type_id, kind, eik, period, batch_id, files_sha256,
        files_json, sender_id, mode, integrator, request_json, state, created_at, retry_of, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
    ).run(
      f.id,
      f.idempotencyKey,
      f.typeId,
      f.kind,
      f.eik,
      f.period,
      f.batchId,
      f.filesSha256,
      JSON.stringify(f.files),
      f.senderId,
      f.mode,
      f.integrator,
      JSON.stringify(f.request),
      now.toISOString(),
      retryOf,
      f.origin ?? null,
    );
  }

  /** Mark a filing sent: "unknown" until its answer is recorded (the portal call is next). */
  markSent(id: string, at: Date): void {
    this.#db.prepare(
      "UPDATE filings SET state = 'unknown', sent_at = ? WHERE id = ? AND state = 'pending'",
    ).run(at.toISOString(), id);
  }

  /** Record the authority's answer: "filed", or "refused" with errorCode PORTAL_REJECTED. */
  answer(id: string, r: SubmissionResult, at: Date): void {
    this.#db.prepare(
      `UPDATE filings SET state = ?, answered_at = ?, document_id = ?, income_number = ?,
        submission_date = ?, success = ?, error_code = ?, error_message = ?, result_json = ?
        WHERE id = ?`,
    ).run(
      r.success ? "filed" : "refused",
      at.toISOString(),
      r.documentId,
      r.incomeNumber,
      r.submissionDate ?? null,
      r.success ? 1 : 0,
      r.success ? null : "PORTAL_REJECTED",
      r.errorMessage,
      JSON.stringify(r),
      id,
    );
  }

  /**
   * Record a refusal the portal answered with an error (certificate, signature, 429, …).
   * @param retryAfter not to be filed again before this instant (the portal's Retry-After)
   */
  refuse(id: string, code: ErrorCode, message: string, at: Date, retryAfter: Date | null): void {
    this.#setState(id, "refused", code, message, at, retryAfter);
  }

  /** Record that a filing never reached the authority (retry allowed). */
  notFiled(id: string, code: ErrorCode, message: string, at: Date): void {
    this.#setState(id, "not_filed", code, message, at, null);
  }

  /** Record why a sent filing's fate is unknown (time-out, cut connection); it stays "unknown". */
  unknownOutcome(id: string, code: ErrorCode, message: string, at: Date): void {
    this.#setState(id, "unknown", code, message, at, null);
  }

  #setState(
    id: string,
    state: FilingState,
    code: ErrorCode,
    message: string,
    at: Date,
    retryAfter: Date | null,
  ): void {
    this.#db.prepare(
      `UPDATE filings SET state = ?, answered_at = ?, error_code = ?, error_message = ?,
        retry_after = ? WHERE id = ?`,
    ).run(state, at.toISOString(), code, message, retryAfter?.toISOString() ?? null, id);
  }

  /**
   * A person's verdict on an "unknown" filing, after checking on the NRA portal: "filed" (with
   * the documentId and income number found there, when known) or "not_filed".
   * @param id the row
   * @param how filed (documentId, incomeNumber) or not
   * @param by who decided (the OS user)
   * @param at when
   * @returns the updated row, or null when the row is not "unknown" (or does not exist)
   */
  resolve(id: string, how: Resolution, by: string, at: Date): FilingRecord | null {
    const when = at.toISOString();
    const changed = how.filed
      ? this.#db.prepare(
        `UPDATE filings SET state = 'filed', resolution = 'filed', resolved_by = ?,
          resolved_at = ?, success = 1, document_id = ?, income_number = ?, result_json = ?
          WHERE id = ? AND state = 'unknown'`,
      ).run(
        by,
        when,
        how.documentId,
        how.incomeNumber,
        JSON.stringify(
          {
            success: true,
            documentId: how.documentId,
            incomeNumber: how.incomeNumber,
            submissionDate: null,
            errorMessage: null,
            nativeErrors: [],
          } satisfies SubmissionResult,
        ),
        id,
      )
      : this.#db.prepare(
        `UPDATE filings SET state = 'not_filed', resolution = 'not_filed', resolved_by = ?,
          resolved_at = ? WHERE id = ? AND state = 'unknown'`,
      ).run(by, when, id);
    return Number(changed.changes) === 1 ? this.get(id) : null;
  }

  /** Reopen a "not_filed" filing that never reached the authority for a retry: back to pending. */
  reopen(id: string, senderId: string | null): void {
    this.#db.prepare(
      `UPDATE filings SET state = 'pending', sent_at = NULL, answered_at = NULL, error_code = NULL,
        error_message = NULL, sender_id = ? WHERE id = ? AND state = 'not_filed'`,
    ).run(senderId, id);
  }

  /**
   * Rows that stop a filing of the same declaration now: "pending" or "unknown" ones, and
   * "refused" ones whose Retry-After has not passed. Newest first.
   * @param d sender, EIK, kind, period, files' hash and mode
   * @param now the clock
   * @returns the rows
   */
  blocking(d: SameDeclaration, now: Date): FilingRecord[] {
    return (this.#db.prepare(
      `SELECT * FROM filings WHERE eik = ? AND kind = ? AND mode = ? AND period IS ?
        AND files_sha256 IS ? AND sender_id IS ?
        AND (state IN ('pending', 'unknown') OR (state = 'refused' AND retry_after > ?))
        ORDER BY created_at DESC`,
    ).all(d.eik, d.kind, d.mode, d.period, d.filesSha256, d.senderId, now.toISOString()) as Row[])
      .map(fromRow);
  }

  /**
   * The newest filed row of the same declaration (a folder-wide filing run again under a new
   * batch id does not file a company twice; docs/local-input.md § Resuming).
   * @param d sender, EIK, kind, period, files' hash and mode
   * @returns the row, or null
   */
  filedSame(d: SameDeclaration): FilingRecord | null {
    const r = this.#db.prepare(
      `SELECT * FROM filings WHERE eik = ? AND kind = ? AND mode = ? AND period IS ?
        AND files_sha256 IS ? AND sender_id IS ? AND state = 'filed'
        ORDER BY created_at DESC LIMIT 1`,
    ).get(d.eik, d.kind, d.mode, d.period, d.filesSha256, d.senderId) as Row | undefined;
    return r ? fromRow(r) : null;
  }

  /** One row by id, or null. */
  get(id: string): FilingRecord | null {
    const r = this.#db.prepare("SELECT * FROM filings WHERE id = ?").get(id) as Row | undefined;
    return r ? fromRow(r) : null;
  }

  /** The rows of a folder-wide filing (its batch id), oldest first; a full scan (exports). */
  batchRows(batchId: string): FilingRecord[] {
    return (this.#db.prepare("SELECT * FROM filings WHERE batch_id = ? ORDER BY created_at, id")
      .all(batchId) as Row[]).map(fromRow);
  }

  /** The row holding an idempotency key, or null. */
  byKey(key: string): FilingRecord | null {
    const r = this.#db.prepare("SELECT * FROM filings WHERE idempotency_key = ?").get(key) as
      | Row
      | undefined;
    return r ? fromRow(r) : null;
  }

  /** Rows in a state, oldest first. */
  inState(state: FilingState): FilingRecord[] {
    return (this.#db.prepare("SELECT * FROM filings WHERE state = ? ORDER BY created_at").all(
      state,
    ) as Row[]).map(fromRow);
  }

  /** All rows (or those in one state), newest first, at most `limit`. */
  list(limit = 1000, state?: FilingState): FilingRecord[] {
    const rows = state
      ? this.#db.prepare(
        "SELECT * FROM filings WHERE state = ? ORDER BY created_at DESC, id LIMIT ?",
      ).all(state, limit)
      : this.#db.prepare("SELECT * FROM filings ORDER BY created_at DESC, id LIMIT ?").all(limit);
    return (rows as Row[]).map(fromRow);
  }

  /**
   * One page of the console's view (docs/journal.md § Queries): the rows matching the filters,
   * newest first (createdAt, then id, descending), after the `before` cursor, at most `limit`
   * (default 50, at most 500); keyset-paged, so a deep page costs what the first one does.
   * @param q `eik`, `period`, `state` (absent or "" = any), `before` (the last page's `next`),
   *   `limit`
   * @returns `rows`, `next` (the cursor of the next older page, or null) and `total` (rows
   *   matching the filters, all pages)
   * @throws AppError JOURNAL_QUERY_INVALID (`details.field`) for a malformed filter, cursor or
   *   limit
   */
  page(q: JournalQuery): JournalPage {
    return queryPage(this.#db, q);
  }

  /**
   * Every row of a filtered view, newest first, in the order of {@link page}: what the console
   * exports (pass them to `exportJournal`, journal_export.ts). Only the filters count: a query's `before` and
   * `limit` are ignored.
   * @param f `eik`, `period`, `state`
   * @returns the rows
   * @throws AppError JOURNAL_QUERY_INVALID for a malformed filter
   */
  exportRows(f: JournalFilter): FilingRecord[] {
    const { eik, period, state } = f;
    return queryAll(this.#db, { eik, period, state });
  }

  /**
   * Who filed through this agent since a date (the console's status page): one entry per
   * integrator (the token's `intg`; rows without one are left out), most recently active first.
   * @param since rows written at or after this instant
   * @returns `integrator`, `lastAt` (its newest row) and `filings` (its rows, any state)
   * @throws AppError JOURNAL_QUERY_INVALID for an invalid date
   */
  integrators(since: Date): IntegratorActivity[] {
    return queryIntegrators(this.#db, since);
  }

  /**
   * Keep the portal's protocol of a document (what a `*_result` answered), replacing an older
   * one, for the console's Filings page.
   * @param p the document id, the content type, the body (HTML) and when it was read
   */
  keepProtocol(p: FilingProtocol): void {
    keepProtocol(this.#db, p);
  }

  /**
   * The kept protocol of a document, or null.
   * @param documentId the portal's document id
   */
  protocol(documentId: string): FilingProtocol | null {
    return readProtocol(this.#db, documentId);
  }

  /** Close the database. */
  close(): void {
    this.#db.close();
  }
}
