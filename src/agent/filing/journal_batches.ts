/**
 * The journal's record of folder-wide filings (docs/journal.md § Interrupted batches): one row
 * per batch, written when its companies are known (the batch starts filing) with the EIKs it
 * is to file, each EIK added to `filed_json` as its filing is answered, and `ended_at` set on
 * every path out. A row whose `ended_at` is still empty when an agent starts is a batch the
 * agent was stopped or killed in: the console and `GET /api/v1/batches/{batchId}` show it as
 * interrupted, with the companies not yet filed. Only EIKs, counts and hashes — never paths,
 * file contents or tokens (a token is kept as its SHA-256).
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { KeyMode } from "../../contract/mod.ts";

/** The table, added at open (older agents never read it; journal_schema.ts § additions). */
export const BATCHES_TABLE = `
CREATE TABLE IF NOT EXISTS batches (
  batch_key TEXT PRIMARY KEY, batch_id TEXT NOT NULL, type_id TEXT NOT NULL, mode TEXT NOT NULL,
  integrator TEXT NOT NULL, origin TEXT, tokens_json TEXT NOT NULL, total INTEGER NOT NULL,
  eiks_json TEXT NOT NULL, filed_json TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT
) WITHOUT ROWID;
`;

/** A batch as the journal keeps it. Times are ISO strings. */
export interface BatchRecord {
  /** The board's key: mode, integrator, origin, batch id, operation. */
  readonly key: string;
  readonly batchId: string;
  readonly typeId: string;
  readonly mode: KeyMode;
  readonly integrator: string;
  readonly origin: string | null;
  /** SHA-256 (hex) of the tokens of the batch's requests (they may read its progress). */
  readonly tokens: readonly string[];
  /** Companies found (listed or not). */
  readonly total: number;
  /** The companies the batch is to file, sorted. */
  readonly eiks: readonly string[];
  /** Of `eiks`, those filed so far (answered by the NRA, or from the journal). */
  readonly filed: readonly string[];
  readonly startedAt: string;
  readonly endedAt: string | null;
}

type Row = Record<string, unknown>;

const fromRow = (r: Row): BatchRecord => ({
  key: String(r.batch_key),
  batchId: String(r.batch_id),
  typeId: String(r.type_id),
  mode: r.mode === "live" ? "live" : "test",
  integrator: String(r.integrator),
  origin: r.origin == null ? null : String(r.origin),
  tokens: JSON.parse(String(r.tokens_json)),
  total: Number(r.total),
  eiks: JSON.parse(String(r.eiks_json)),
  filed: JSON.parse(String(r.filed_json)),
  startedAt: String(r.started_at),
  endedAt: r.ended_at == null ? null : String(r.ended_at),
});

/** The journal's batches (Journal.batches). Synchronous SQLite, one statement per write. */
export class BatchLog {
  readonly #db: DatabaseSync;

  /** @param db the journal's database (opened through migrateJournal: the table exists) */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * A batch starts filing: its row, replacing an earlier run of the same key (a resend).
   * @param b the batch (`filed` and `endedAt` are written empty)
   */
  started(b: Omit<BatchRecord, "filed" | "endedAt">): void {
    this.#db.prepare(
      `INSERT OR REPLACE INTO batches (batch_key, batch_id, type_id, mode, integrator, origin,
        tokens_json, total, eiks_json, filed_json, started_at, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, NULL)`,
    ).run(
      b.key,
      b.batchId,
      b.typeId,
      b.mode,
      b.integrator,
      b.origin,
      JSON.stringify(b.tokens),
      b.total,
      JSON.stringify([...b.eiks].sort()),
      b.startedAt,
    );
  }

  /**
   * One company of a running batch was filed.
   * @param key the batch's key
   * @param eik the company
   */
  filed(key: string, eik: string): void {
    this.#db.prepare(
      `UPDATE batches SET filed_json = json_insert(filed_json, '$[#]', ?)
       WHERE batch_key = ? AND ended_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM json_each(filed_json) WHERE value = ?)`,
    ).run(eik, key, eik);
  }

  /**
   * The batch ended (on every path out of its request).
   * @param key the batch's key
   * @param at the instant
   */
  ended(key: string, at: Date): void {
    this.#db.prepare("UPDATE batches SET ended_at = ? WHERE batch_key = ? AND ended_at IS NULL")
      .run(at.toISOString(), key);
  }

  /**
   * The batches that never ended (the agent was stopped or killed while they ran), newest first.
   * @param since only those started at or after this instant
   * @returns the records
   */
  unended(since: Date): BatchRecord[] {
    // A company whose answer came in as the agent died, or that the reconciliation at start
    // found filed (reconcile.ts), is filed too: its row says so.
    const filedRows = this.#db.prepare(
      `SELECT DISTINCT eik FROM filings WHERE batch_id = ? AND type_id = ? AND mode = ?
         AND state = 'filed'`,
    );
    return (this.#db.prepare(
      `SELECT * FROM batches WHERE ended_at IS NULL AND started_at >= ?
       ORDER BY started_at DESC`,
    ).all(since.toISOString()) as Row[]).map((r) => {
      const b = fromRow(r);
      const rows = filedRows.all(b.batchId, b.typeId, b.mode) as Row[];
      const filed = new Set([...b.filed, ...rows.map((x) => String(x.eik))]);
      return { ...b, filed: b.eiks.filter((eik) => filed.has(eik)) };
    });
  }

  /**
   * A batch by its key.
   * @param key the board's key
   * @returns the record, or null
   */
  get(key: string): BatchRecord | null {
    const r = this.#db.prepare("SELECT * FROM batches WHERE batch_key = ?").get(key) as
      | Row
      | undefined;
    return r ? fromRow(r) : null;
  }
}
