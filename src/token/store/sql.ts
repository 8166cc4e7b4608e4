/**
 * The token store's one query layer: every query is written once, as a `sql` tagged template,
 * and runs on SQLite (`node:sqlite`, `sqlite_db.ts`) and PostgreSQL (`npm:postgres`,
 * `pg_db.ts`) through the small {@link Db} interface. What differs between the two is settled
 * here and in the two drivers, nowhere else:
 *
 * - placeholders: `?` for SQLite, `$1…$n` for PostgreSQL (rendered once per call site);
 * - row locks: `FOR UPDATE [SKIP LOCKED]` is PostgreSQL's; SQLite has no row locks and drops the
 *   clause (and skips a statement that only locks, {@link Tx.lock}), because its write
 *   transactions (`BEGIN IMMEDIATE`) lock the whole database;
 * - changed-row counts (`changes` / `count`), transactions, connection pools.
 *
 * The SQL itself sticks to what both understand: `INSERT … ON CONFLICT … DO NOTHING/UPDATE`,
 * `RETURNING *`, `UPDATE … FROM (subquery)`; optional filters are left out of the text
 * ({@link where}).
 * @module
 */

/** A database row (column name → value; PostgreSQL returns BIGINT as a string). */
export type Row = Record<string, unknown>;

/** The two databases of the token service. */
export type Dialect = "sqlite" | "postgres";

/** A query: the literal parts of a template and the values between them. */
export class Sql {
  /**
   * @param strings literal SQL parts (`values.length + 1` of them)
   * @param values the parameters, sent separately from the text (never spliced into it)
   */
  constructor(readonly strings: readonly string[], readonly values: readonly unknown[]) {}
}

/**
 * Write a query. Interpolated values become parameters; an interpolated {@link Sql} (see
 * {@link tuples}) is spliced in as SQL with its own parameters.
 * @param strings the template's literal parts
 * @param values parameters or nested fragments
 * @returns the query
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const q = sql`SELECT * FROM api_keys WHERE id = ${"key_1"}`; // SQLite: "… WHERE id = ?"
 * deepStrictEqual([q.strings, q.values], [["SELECT * FROM api_keys WHERE id = ", ""], ["key_1"]]);
 * ```
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  for (const v of values) if (v instanceof Sql) return splice(strings, values);
  return new Sql(strings, values);
}

function splice(strings: readonly string[], values: readonly unknown[]): Sql {
  // non-null: a template has one more string than values
  const parts = [strings[0]!];
  const flat: unknown[] = [];
  values.forEach((v, i) => {
    if (v instanceof Sql) {
      // non-null: a template has one more string than values
      parts[parts.length - 1] += v.strings[0]!;
      for (let j = 0; j < v.values.length; j++) {
        flat.push(v.values[j]);
        // non-null: a template has one more string than values
        parts.push(v.strings[j + 1]!);
      }
      // non-null: a template has one more string than values
      parts[parts.length - 1] += strings[i + 1]!;
    } else {
      flat.push(v);
      // non-null: a template has one more string than values
      parts.push(strings[i + 1]!);
    }
  });
  return new Sql(parts, flat);
}

/**
 * A `VALUES` list for a multi-row INSERT: `(?, ?), (?, ?)`.
 * @param rows the rows, each with the same number of values (at least one row)
 * @returns the fragment to interpolate after `VALUES`
 */
export function tuples(rows: readonly (readonly unknown[])[]): Sql {
  const strings: string[] = [];
  let open = "(";
  for (const r of rows) {
    r.forEach((_, j) => {
      strings.push(j === 0 ? open : ", ");
    });
    open = "), (";
  }
  strings.push(")");
  return new Sql(strings, rows.flat());
}

/**
 * `WHERE col = ? AND …` for the optional filters that are set; nothing when none is.
 * @param filters column name → value (undefined or null: no filter on that column)
 * @returns the fragment to interpolate after `FROM table`
 * @throws Error when a key is not a plain column name (they come from code, never from input)
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const q = sql`SELECT * FROM contracts${where({ integrator_id: "acme" })} ORDER BY starts_at`;
 * // SQLite: "SELECT * FROM contracts WHERE integrator_id = ? ORDER BY starts_at"
 * deepStrictEqual(q.strings.join("?"), "SELECT * FROM contracts WHERE integrator_id = ? ORDER BY starts_at");
 * deepStrictEqual(q.values, ["acme"]);
 * ```
 */
export function where(filters: Readonly<Record<string, unknown>>): Sql {
  const strings: string[] = [];
  const values: unknown[] = [];
  let head = " WHERE ";
  for (const [column, v] of Object.entries(filters)) {
    if (v === undefined || v === null) continue;
    // A programming error: column names come from the store's own code, never from a request.
    if (!/^[a-z_]+$/.test(column)) throw new Error(`Not a column name: ${column}`);
    strings.push(`${head}${column} = `);
    values.push(v);
    head = " AND ";
  }
  strings.push("");
  return new Sql(strings, values);
}

/**
 * SQL text written in code (a table name, an ORDER BY list), spliced in as is.
 * @param text the text; never anything that came from input
 * @returns the fragment
 */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/** Reads of one table: a row by `id`, and the rows matching optional filters, in one order. */
export interface TableReads<T> {
  /** @returns the row with this id, mapped, or null */
  get(id: string): Promise<T | null>;
  /** @returns the rows whose columns equal the filters that are set ({@link where}), mapped */
  list(filters?: Readonly<Record<string, unknown>>): Promise<T[]>;
}

/**
 * The reads of a table.
 * @param db the database
 * @param table the table (from code)
 * @param order its listing order, e.g. `"created_at, id"` (from code)
 * @param fromRow the row mapper
 * @returns `get` and `list`
 */
export function tableReads<T>(
  db: Db,
  table: string,
  order: string,
  fromRow: (r: Row) => T,
): TableReads<T> {
  const select = raw(`SELECT * FROM ${table}`), orderBy = raw(` ORDER BY ${order}`);
  return {
    async get(id) {
      const r = await db.get(sql`${select} WHERE id = ${id}`);
      return r ? fromRow(r) : null;
    },
    async list(filters = {}) {
      return (await db.all(sql`${select}${where(filters)}${orderBy}`)).map(fromRow);
    },
  };
}

const rendered: Record<Dialect, WeakMap<readonly string[], string>> = {
  sqlite: new WeakMap(),
  postgres: new WeakMap(),
};

/**
 * The SQL text of a query for one database (cached per template call site).
 * @param q the query
 * @param dialect the database
 * @returns the text with the dialect's placeholders (and without row locks on SQLite)
 */
export function render(q: Sql, dialect: Dialect): string {
  const cache = rendered[dialect];
  let text = cache.get(q.strings);
  if (text === undefined) {
    text = dialect === "sqlite"
      ? q.strings.join("?").replace(/\s+FOR UPDATE(\s+SKIP LOCKED)?/g, "")
      : q.strings.reduce((acc, s, i) => `${acc}$${i}${s}`);
    cache.set(q.strings, text);
  }
  return text;
}

/** One statement of a transaction body, handed to the driver that runs it. */
export interface Step {
  readonly kind: "all" | "get" | "run" | "exec" | "lock";
  /** The query, or a script without parameters for `exec`. */
  readonly q: Sql | string;
}

/**
 * The statements of a transaction body. A body is a generator that `yield*`s them and gets
 * their results back, so the same body runs synchronously on SQLite (no other code can run in
 * the middle of the transaction, as with a plain synchronous function) and asynchronously on
 * PostgreSQL:
 *
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { SqliteDb } from "./sqlite_db.ts";
 * const db = new SqliteDb(":memory:");
 * await db.run(sql`CREATE TABLE api_keys (id TEXT PRIMARY KEY, revoked_at INTEGER)`);
 * await db.run(sql`INSERT INTO api_keys (id) VALUES (${"k1"})`);
 * const [at, id] = [Date.now(), "k1"];
 * const revoked = await db.tx(function* (tx) {
 *   const n = yield* tx.run(sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id}`);
 *   return n > 0;
 * });
 * equal(revoked, true);
 * ```
 */
export interface Tx {
  readonly dialect: Dialect;
  /** @returns every row of the query */
  all(q: Sql): Generator<Step, Row[], unknown>;
  /** @returns the first row, or undefined */
  get(q: Sql): Generator<Step, Row | undefined, unknown>;
  /** @returns how many rows the statement changed */
  run(q: Sql): Generator<Step, number, unknown>;
  /** Run a script of statements without parameters (migrations). */
  exec(script: string): Generator<Step, void, unknown>;
  /**
   * Take row locks with a `SELECT … FOR UPDATE` on PostgreSQL. Nothing to do on SQLite, where
   * the write transaction already holds the database's lock (the statement is not run).
   */
  lock(q: Sql): Generator<Step, void, unknown>;
}

/** A transaction body (see {@link Tx}). */
export type TxBody<T> = (tx: Tx) => Generator<Step, T, unknown>;

/**
 * The {@link Tx} of a dialect: each method yields its {@link Step} and returns what the driver
 * sends back.
 * @param dialect the database
 * @returns the statements
 */
export function txSteps(dialect: Dialect): Tx {
  return {
    dialect,
    *all(q) {
      return (yield { kind: "all", q }) as Row[];
    },
    *get(q) {
      return (yield { kind: "get", q }) as Row | undefined;
    },
    *run(q) {
      return (yield { kind: "run", q }) as number;
    },
    *exec(script) {
      yield { kind: "exec", q: script };
    },
    *lock(q) {
      yield { kind: "lock", q };
    },
  };
}

/** A connection or pool of one database. */
export interface Db {
  readonly dialect: Dialect;
  /** @returns every row of the query @throws the driver's error (constraint, connection) */
  all(q: Sql): Promise<Row[]>;
  /** @returns the first row, or undefined @throws the driver's error */
  get(q: Sql): Promise<Row | undefined>;
  /** @returns how many rows an INSERT/UPDATE/DELETE changed @throws the driver's error */
  run(q: Sql): Promise<number>;
  /**
   * Run `body` in one write transaction: committed when it returns, rolled back when it throws
   * (SQLite: `BEGIN IMMEDIATE`, run synchronously; PostgreSQL: `BEGIN`, READ COMMITTED, with
   * the row locks its queries take).
   * @returns what `body` returns
   * @throws what `body` or a statement throws, after the rollback
   */
  tx<T>(body: TxBody<T>): Promise<T>;
  /**
   * Listen on a notification channel (PostgreSQL `LISTEN`, on a connection of its own that
   * reconnects by itself); absent on SQLite, where one process owns the database.
   * @param channel the channel's name
   * @param onNotify called with the payload of each notification
   * @param onListen called when listening starts and again after each reconnect (what was
   *   notified while disconnected is lost: the caller reads what it would have said)
   * @returns a function that stops listening
   * @throws the driver's error when the first connection fails
   */
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    onListen: () => void,
  ): Promise<() => Promise<void>>;
  /** Close the connection or pool (and any listening connection). */
  close(): Promise<void>;
}
