/**
 * {@link Db} on `node:sqlite` (the embedded default): one connection in WAL mode with a
 * prepared-statement cache. Statements run synchronously, so a query costs no more than the
 * statement itself. A transaction is `BEGIN IMMEDIATE` … `COMMIT` around its body, driven
 * synchronously to the end: no other code of this process runs in the middle of it, and
 * several processes sharing one file serialise their writes (`busy_timeout` waits up to 5 s for
 * the lock).
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { type Db, render, type Row, type Sql, type Step, type TxBody, txSteps } from "./sql.ts";

/** Statements kept prepared; beyond this the cache starts again (multi-row INSERTs vary). */
const MAX_CACHED = 500;

type Param = null | number | bigint | string | Uint8Array;

const steps = txSteps("sqlite");

/** One SQLite connection of the token store. */
export class SqliteDb implements Db {
  readonly dialect = "sqlite" as const;
  readonly #db: DatabaseSync;
  readonly #cache = new Map<string, StatementSync>();

  /** @param path database file, or ":memory:" */
  constructor(readonly path: string) {
    this.#db = new DatabaseSync(path);
    // The busy timeout first: switching to WAL takes a lock too, and several processes (CLI
    // commands, instances) may open one file at the same moment.
    this.#db.exec(
      "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;",
    );
  }

  all(q: Sql): Promise<Row[]> {
    try {
      return Promise.resolve(this.#stmt(q).all(...(q.values as Param[])) as Row[]);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  get(q: Sql): Promise<Row | undefined> {
    try {
      return Promise.resolve(this.#stmt(q).get(...(q.values as Param[])) as Row | undefined);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  run(q: Sql): Promise<number> {
    try {
      return Promise.resolve(Number(this.#stmt(q).run(...(q.values as Param[])).changes));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  tx<T>(body: TxBody<T>): Promise<T> {
    try {
      return Promise.resolve(this.#transaction(body));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
    return Promise.resolve();
  }

  #transaction<T>(body: TxBody<T>): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const g = body(steps);
      let next = g.next();
      while (!next.done) {
        let out: unknown;
        try {
          out = this.#step(next.value);
        } catch (e) {
          next = g.throw(e); // the body may catch it; otherwise it propagates
          continue;
        }
        next = g.next(out);
      }
      this.#db.exec("COMMIT");
      return next.value;
    } catch (e) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw e;
    }
  }

  #step(s: Step): unknown {
    if (s.kind === "lock") return undefined; // BEGIN IMMEDIATE holds the database lock
    if (s.kind === "exec") {
      this.#db.exec(s.q as string);
      this.#cache.clear(); // a migration may have changed what a cached statement refers to
      return undefined;
    }
    const q = s.q as Sql, st = this.#stmt(q), values = q.values as Param[];
    if (s.kind === "all") return st.all(...values);
    if (s.kind === "get") return st.get(...values);
    return Number(st.run(...values).changes);
  }

  #stmt(q: Sql): StatementSync {
    const text = render(q, "sqlite");
    let s = this.#cache.get(text);
    if (!s) {
      if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
      s = this.#db.prepare(text);
      this.#cache.set(text, s);
    }
    return s;
  }
}
