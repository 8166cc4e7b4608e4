/**
 * The submission journal (issue #7 § 1): every filing is written to SQLite (`node:sqlite`, file
 * `journal.sqlite` in the agent's data directory) before it is sent, marked "sent" just before
 * the portal call, and updated with the authority's answer. An idempotency key (the
 * `Idempotency-Key` header, or the batch id plus the files' hash) makes a retried filing return
 * the first answer instead of filing again. After a crash, filings left "sent, no answer" are
 * reconciled on the next start. Never stores PINs, keys or file contents — only their hash.
 *
 * States: pending (written, not yet sent) → sent (portal called) → answered | failed;
 * pending rows of a crashed process become failed ("not sent") on start; sent rows are
 * reconciled through the portal, or stay "sent" (shown as unknown) when it cannot tell.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { SubmissionResult } from "../../contract/mod.ts";

/** Journal row states. */
export type FilingState = "pending" | "sent" | "answered" | "failed";

/** One journaled filing. Times are ISO strings. */
export interface FilingRecord {
  readonly id: string;
  readonly idempotencyKey: string | null;
  readonly typeId: string;
  readonly kind: string;
  readonly eik: string;
  readonly period: string | null;
  readonly batchId: string | null;
  /** SHA-256 (hex) over the files' names and bytes; null without files. */
  readonly filesSha256: string | null;
  /** Names, kinds and record counts of the files (never their content). */
  readonly files: { name: string; kind: string; numRecords?: number }[];
  readonly senderId: string | null;
  readonly mode: "test" | "live";
  readonly integrator: string | null;
  /** The validated request body without inline files. */
  readonly request: Record<string, unknown>;
  readonly state: FilingState;
  readonly createdAt: string;
  readonly sentAt: string | null;
  readonly answeredAt: string | null;
  readonly documentId: string | null;
  readonly incomeNumber: string | null;
  readonly submissionDate: string | null;
  readonly success: boolean | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly result: SubmissionResult | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS filings (
  id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, type_id TEXT NOT NULL, kind TEXT NOT NULL,
  eik TEXT NOT NULL, period TEXT, batch_id TEXT, files_sha256 TEXT, files_json TEXT NOT NULL,
  sender_id TEXT, mode TEXT NOT NULL, integrator TEXT, request_json TEXT NOT NULL,
  state TEXT NOT NULL, created_at TEXT NOT NULL, sent_at TEXT, answered_at TEXT,
  document_id TEXT, income_number TEXT, submission_date TEXT, success INTEGER,
  error_code TEXT, error_message TEXT, result_json TEXT
);
CREATE INDEX IF NOT EXISTS filings_state ON filings(state);
CREATE INDEX IF NOT EXISTS filings_created ON filings(created_at);
`;

type Row = Record<string, unknown>;
const str = (v: unknown) => (v == null ? null : String(v));

function fromRow(r: Row): FilingRecord {
  return {
    id: String(r.id),
    idempotencyKey: str(r.idempotency_key),
    typeId: String(r.type_id),
    kind: String(r.kind),
    eik: String(r.eik),
    period: str(r.period),
    batchId: str(r.batch_id),
    filesSha256: str(r.files_sha256),
    files: JSON.parse(String(r.files_json)),
    senderId: str(r.sender_id),
    mode: r.mode === "live" ? "live" : "test",
    integrator: str(r.integrator),
    request: JSON.parse(String(r.request_json)),
    state: String(r.state) as FilingState,
    createdAt: String(r.created_at),
    sentAt: str(r.sent_at),
    answeredAt: str(r.answered_at),
    documentId: str(r.document_id),
    incomeNumber: str(r.income_number),
    submissionDate: str(r.submission_date),
    success: r.success == null ? null : Number(r.success) === 1,
    errorCode: str(r.error_code),
    errorMessage: str(r.error_message),
    result: r.result_json == null ? null : JSON.parse(String(r.result_json)),
  };
}

/** What a new filing row holds. */
export type NewFiling = Pick<
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
>;

/** The journal. Synchronous SQLite; every write is its own transaction (WAL, synchronous=FULL). */
export class Journal {
  readonly #db: DatabaseSync;

  /** @param path database file (":memory:" in tests) */
  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;",
    );
    this.#db.exec(SCHEMA);
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
    this.#db.prepare(
      `INSERT INTO filings (id, idempotency_key, type_id, kind, eik, period, batch_id, files_sha256,
        files_json, sender_id, mode, integrator, request_json, state, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
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
    );
    return { created: true, record: this.get(f.id)! };
  }

  /** Mark a filing sent (the portal call is about to happen). */
  markSent(id: string, at: Date): void {
    this.#db.prepare(
      "UPDATE filings SET state = 'sent', sent_at = ? WHERE id = ? AND state = 'pending'",
    )
      .run(at.toISOString(), id);
  }

  /** Record the authority's answer. */
  answer(id: string, r: SubmissionResult, at: Date): void {
    this.#db.prepare(
      `UPDATE filings SET state = 'answered', answered_at = ?, document_id = ?, income_number = ?,
        submission_date = ?, success = ?, error_message = ?, result_json = ? WHERE id = ?`,
    ).run(
      at.toISOString(),
      r.documentId,
      r.incomeNumber,
      r.submissionDate ?? null,
      r.success ? 1 : 0,
      r.errorMessage,
      JSON.stringify(r),
      id,
    );
  }

  /** Record a failure (not sent, or refused with an error). */
  fail(id: string, code: string, message: string, at: Date): void {
    this.#db.prepare(
      "UPDATE filings SET state = 'failed', answered_at = ?, error_code = ?, error_message = ? WHERE id = ?",
    ).run(at.toISOString(), code, message, id);
  }

  /** Reopen a failed filing (it never reached the authority) for a retry: back to pending. */
  reopen(id: string): void {
    this.#db.prepare(
      `UPDATE filings SET state = 'pending', sent_at = NULL, answered_at = NULL, error_code = NULL,
        error_message = NULL WHERE id = ? AND state = 'failed'`,
    ).run(id);
  }

  get(id: string): FilingRecord | null {
    const r = this.#db.prepare("SELECT * FROM filings WHERE id = ?").get(id) as Row | undefined;
    return r ? fromRow(r) : null;
  }

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
    ) as Row[])
      .map(fromRow);
  }

  /** All rows, newest first, at most `limit`. */
  list(limit = 1000): FilingRecord[] {
    return (this.#db.prepare("SELECT * FROM filings ORDER BY created_at DESC, id LIMIT ?").all(
      limit,
    ) as Row[])
      .map(fromRow);
  }

  close(): void {
    this.#db.close();
  }
}

const CSV_COLUMNS = [
  "id",
  "createdAt",
  "typeId",
  "eik",
  "period",
  "batchId",
  "state",
  "success",
  "documentId",
  "incomeNumber",
  "submissionDate",
  "errorCode",
  "errorMessage",
  "senderId",
  "mode",
  "filesSha256",
] as const;

/**
 * Export rows as CSV (src/csv.ts: RFC 4180, CRLF, spreadsheet formulas neutralised) or JSON.
 * The CSV writer loads on first use: the resident agent does not carry it.
 * @param rows journal rows
 * @param format "csv" or "json"
 * @returns the text (CSV: a header line, then one line per row)
 */
export async function exportJournal(
  rows: readonly FilingRecord[],
  format: "csv" | "json",
): Promise<string> {
  if (format === "json") return JSON.stringify(rows, null, 2) + "\n";
  const { toCsv } = await import("../../csv.ts");
  return toCsv(CSV_COLUMNS, rows.map((r) => CSV_COLUMNS.map((c) => r[c])));
}
