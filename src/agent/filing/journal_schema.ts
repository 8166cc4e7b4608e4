/**
 * The journal's table, its states and the migration of journal files written by earlier agent
 * versions (`PRAGMA user_version`; the files live on users' machines, so every version is read).
 * Version 0 (agents before the live outcomes) knew the states pending, sent, answered and
 * failed; version 1 names them with the one vocabulary of docs/journal.md and adds the retry
 * and resolution columns. Added at open without a new version (older agents read on): the
 * `(column, created_at, id, …)` indexes the console's newest-first, filtered, keyset-paged view
 * walks (journal_query.ts), a tally of the rows in each state kept by triggers, the table of
 * portal protocols, the `origin` column and the table of folder-wide filings (journal_batches.ts). A file is brought up one version at a time ({@link JOURNAL_STEPS}); a new
 * file gets the latest table at once.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  type ErrorCode,
  isErrorCode,
  type KeyMode,
  type SubmissionResult,
} from "../../contract/mod.ts";
import type { FilingState } from "../../filing_states.ts";
import { UserError } from "../../user_error.ts";
import { BATCHES_TABLE } from "./journal_batches.ts";

export { FILING_STATES, type FilingState } from "../../filing_states.ts";

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
  /** Names, kinds, record counts and SHA-256 (hex; absent in rows written by earlier agents)
   * of the files (never their content). */
  readonly files: { name: string; kind: string; numRecords?: number; sha256?: string }[];
  readonly senderId: string | null;
  readonly mode: KeyMode;
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
  /** The catalog code of a refusal or failure (PORTAL_REJECTED for an NRA refusal). */
  readonly errorCode: ErrorCode | null;
  readonly errorMessage: string | null;
  readonly result: SubmissionResult | null;
  /** A refused row: not to be filed again before this instant (the portal's Retry-After). */
  readonly retryAfter: string | null;
  /** How a person resolved an unknown row (`journal resolve`), or null. */
  readonly resolution: "filed" | "not_filed" | null;
  /** Who resolved it (the OS user) and when. */
  readonly resolvedBy: string | null;
  readonly resolvedAt: string | null;
  /** The row this one retries (a refused or resolved row keeps its own record). */
  readonly retryOf: string | null;
  /** The integrator's page that asked (the token's `origin` claim), or null. */
  readonly origin: string | null;
}

/**
 * The latest schema version (`PRAGMA user_version`). It changes only when an older agent could
 * no longer read the file (columns renamed, states redefined). What older agents read without
 * noticing — indexes, the tally, the protocols table — is added at open ({@link ADDITIONS})
 * and leaves the version alone: an update that rolls back to the previous agent
 * (src/agent/update/) must still find a journal it opens.
 */
export const JOURNAL_VERSION = 1;

/**
 * The indexes of the newest-first views (journal_query.ts): all rows, and one per leading
 * filter. Each orders by (created_at, id), so a page is one range walk of one index, in order,
 * from the cursor's position; the columns after `id` let the other filters and a view's count
 * be read from the index alone (`integrator` for `integrators()`).
 */
const VIEW_INDEXES = `
CREATE INDEX IF NOT EXISTS filings_newest ON filings(created_at, id, integrator);
CREATE INDEX IF NOT EXISTS filings_eik_newest ON filings(eik, created_at, id, period, state);
CREATE INDEX IF NOT EXISTS filings_period_newest ON filings(period, created_at, id, state);
CREATE INDEX IF NOT EXISTS filings_state_newest ON filings(state, created_at, id);
`;

/**
 * The number of rows in each state, kept by triggers on every write (whoever writes): the
 * `total` of the unfiltered and the state-only views, which would otherwise count up to every
 * row of the journal on each page.
 */
const TALLY = `
CREATE TABLE IF NOT EXISTS filings_tally (state TEXT PRIMARY KEY, n INTEGER NOT NULL)
  WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS filings_tally_insert AFTER INSERT ON filings BEGIN
  INSERT INTO filings_tally (state, n) VALUES (new.state, 1)
    ON CONFLICT (state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS filings_tally_delete AFTER DELETE ON filings BEGIN
  UPDATE filings_tally SET n = n - 1 WHERE state = old.state;
END;
CREATE TRIGGER IF NOT EXISTS filings_tally_update AFTER UPDATE OF state ON filings
  WHEN old.state IS NOT new.state BEGIN
  UPDATE filings_tally SET n = n - 1 WHERE state = old.state;
  INSERT INTO filings_tally (state, n) VALUES (new.state, 1)
    ON CONFLICT (state) DO UPDATE SET n = n + 1;
END;
`;

/**
 * The portal's protocol (the HTML of a `*_result`) of a filed declaration, kept when an
 * integrator read it, for the console's Filings page. One per document id.
 */
const PROTOCOLS = `
CREATE TABLE IF NOT EXISTS filing_protocols (
  document_id TEXT PRIMARY KEY, content_type TEXT NOT NULL, body TEXT NOT NULL,
  fetched_at TEXT NOT NULL
) WITHOUT ROWID;
`;

const TABLE = `
CREATE TABLE IF NOT EXISTS filings (
  id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, type_id TEXT NOT NULL, kind TEXT NOT NULL,
  eik TEXT NOT NULL, period TEXT, batch_id TEXT, files_sha256 TEXT, files_json TEXT NOT NULL,
  sender_id TEXT, mode TEXT NOT NULL, integrator TEXT, request_json TEXT NOT NULL,
  state TEXT NOT NULL, created_at TEXT NOT NULL, sent_at TEXT, answered_at TEXT,
  document_id TEXT, income_number TEXT, submission_date TEXT, success INTEGER,
  error_code TEXT, error_message TEXT, result_json TEXT,
  retry_after TEXT, resolution TEXT, resolved_by TEXT, resolved_at TEXT, retry_of TEXT,
  origin TEXT
);
CREATE INDEX IF NOT EXISTS filings_match ON filings(eik, kind);
${VIEW_INDEXES}${TALLY}${PROTOCOLS}`;

/** Version 0 → 1: the new columns, and the old state names mapped onto the new ones. */
const TO_V1 = `
ALTER TABLE filings ADD COLUMN retry_after TEXT;
ALTER TABLE filings ADD COLUMN resolution TEXT;
ALTER TABLE filings ADD COLUMN resolved_by TEXT;
ALTER TABLE filings ADD COLUMN resolved_at TEXT;
ALTER TABLE filings ADD COLUMN retry_of TEXT;
UPDATE filings SET state = 'unknown' WHERE state = 'sent';
UPDATE filings SET state = 'filed' WHERE state = 'answered' AND success = 1;
UPDATE filings SET state = 'refused', error_code = COALESCE(error_code, 'PORTAL_REJECTED')
  WHERE state = 'answered';
UPDATE filings SET state = 'not_filed' WHERE state = 'failed';
CREATE INDEX IF NOT EXISTS filings_match ON filings(eik, kind);
`;

/**
 * What version 1 gained without a new version number (older agents ignore all of it; the
 * triggers keep the tally right whoever writes): the views' indexes (the single-column ones
 * on state and created_at are prefixes of two of them and go), the tally of states (counted
 * once here) and the protocols table. Applied at open while `filing_protocols` is missing.
 */
const ADDITIONS = `
${VIEW_INDEXES}
DROP INDEX IF EXISTS filings_state;
DROP INDEX IF EXISTS filings_created;
${TALLY}
INSERT OR REPLACE INTO filings_tally (state, n) SELECT state, COUNT(*) FROM filings GROUP BY state;
${PROTOCOLS}`;

/** Added at open like {@link ADDITIONS} (older agents name their columns and never read it):
 * the integrator's page that asked, for the console's receipt. */
const ADD_ORIGIN = "ALTER TABLE filings ADD COLUMN origin TEXT;";

/** The step from each earlier version to the next, in order: `JOURNAL_STEPS[v]` makes v + 1. */
export const JOURNAL_STEPS: readonly string[] = [TO_V1];

/**
 * Create the table, or bring a journal of an earlier version up to date, in one transaction.
 * @param db the open database
 * @returns nothing
 * @throws Error when the file was written by a newer agent (its version is above ours)
 */
export function migrateJournal(db: DatabaseSync): void {
  const version = () =>
    Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
  const added = () =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'filing_protocols'")
      .get() !== undefined;
  const hasOrigin = () =>
    (db.prepare("PRAGMA table_info(filings)").all() as { name: string }[])
      .some((c) => c.name === "origin");
  const hasBatches = () =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'batches'")
      .get() !== undefined;
  if (version() === JOURNAL_VERSION && added() && hasOrigin() && hasBatches()) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    const v = version(); // another process may have migrated meanwhile
    if (v > JOURNAL_VERSION) {
      throw new UserError(`The journal was written by a newer agent (version ${v})`);
    }
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get("filings");
    if (v < JOURNAL_VERSION) {
      if (exists) {
        // non-null: JOURNAL_STEPS has one step per version below JOURNAL_VERSION
        for (let from = v; from < JOURNAL_VERSION; from++) db.exec(JOURNAL_STEPS[from]!);
      } else db.exec(TABLE);
      db.exec(`PRAGMA user_version = ${JOURNAL_VERSION}`);
    }
    if (!added()) db.exec(ADDITIONS);
    if (!hasOrigin()) db.exec(ADD_ORIGIN);
    // The folder-wide filings and their companies (journal_batches.ts), an addition too.
    if (!hasBatches()) db.exec(BATCHES_TABLE);
    db.exec("COMMIT");
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (v == null ? null : String(v));
/**
 * A stored error code read back through the catalog (src/contract/error_catalog.ts): the code,
 * or null for none — or for a text this agent's catalog does not know (codes are never renamed
 * and a newer agent's journal is refused at open, so only a damaged file has one; its
 * `error_message` still tells what happened).
 */
const errorCodeOf = (v: unknown): ErrorCode | null => {
  const s = str(v);
  return s !== null && isErrorCode(s) ? s : null;
};

/**
 * A row of the table as a record.
 * @param r the row
 * @returns the record
 * @throws SyntaxError when a JSON column is corrupt
 */
export function fromRow(r: Row): FilingRecord {
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
    errorCode: errorCodeOf(r.error_code),
    errorMessage: str(r.error_message),
    result: r.result_json == null ? null : JSON.parse(String(r.result_json)),
    retryAfter: str(r.retry_after),
    resolution: r.resolution === "filed" || r.resolution === "not_filed" ? r.resolution : null,
    resolvedBy: str(r.resolved_by),
    resolvedAt: str(r.resolved_at),
    retryOf: str(r.retry_of),
    origin: str(r.origin),
  };
}
