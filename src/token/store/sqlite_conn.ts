/**
 * A `node:sqlite` connection with a prepared-statement cache and write transactions
 * (`BEGIN IMMEDIATE`, so several processes sharing one file serialise their writes).
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** One SQLite connection of the token store. */
export class SqliteConn {
  /** The underlying database. */
  readonly db: DatabaseSync;
  readonly #cache = new Map<string, StatementSync>();

  /** @param path database file, or ":memory:" */
  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;",
    );
  }

  /**
   * A cached prepared statement.
   * @param sql the statement
   * @returns the prepared statement
   */
  prep(sql: string): StatementSync {
    let s = this.#cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.#cache.set(sql, s);
    }
    return s;
  }

  /**
   * Run `fn` in a write transaction; rolls back when it throws.
   * @param fn synchronous body
   * @returns what `fn` returns
   * @throws whatever `fn` throws (after ROLLBACK)
   */
  tx<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
  }

  /** Forget cached statements (after a migration changed the schema). */
  clearCache(): void {
    this.#cache.clear();
  }
}
