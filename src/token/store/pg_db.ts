/**
 * {@link Db} on PostgreSQL (`npm:postgres`), for several token service instances sharing one
 * database. Every query is a named prepared statement (`unsafe(text, values, { prepare: true })`,
 * what postgres.js does for its own tagged templates); npm:postgres pipelines them on each
 * connection of the pool. A transaction is `sql.begin()` (READ COMMITTED) driving its body one
 * statement at a time; the queries that need it lock rows with `FOR UPDATE`. Query parameters of the URL other than the driver's
 * own (e.g. `?search_path=s1`) become connection settings, which the tests use to give each
 * test its own schema.
 * @module
 */
import postgres from "postgres";
import { type Db, render, type Row, type Sql, type TxBody, txSteps } from "./sql.ts";

/** Default pool size. Issuance reads nothing from the database in the steady state (the
 * issuance cache, `issue_cache.ts`); the pool carries the cache's version checks (at most 4 a
 * second), its loads after a change (one per key at a time), new EIK claims, the usage flush,
 * the scheduler and the admin API. npm:postgres pipelines queries on each connection, so a few
 * connections are enough; more only add PostgreSQL backends competing for the CPU
 * (BENCHMARKS.md § Token issuance at scale). */
export const DEFAULT_PG_POOL = 4;

/** Options of {@link openPgDb}. */
export interface PgOptions {
  /** Pool size (default {@link DEFAULT_PG_POOL}, or `?max=` in the URL). */
  readonly max?: number | undefined;
}

type Conn = postgres.Sql | postgres.TransactionSql;
type Params = postgres.ParameterOrJSON<never>[];

const steps = txSteps("postgres");

/**
 * Open a connection pool (connections are made on first use).
 * @param url `postgres://user[:pass]@host:port/db[?search_path=schema]`
 * @param opts pool options
 * @returns the database
 */
export function openPgDb(url: string, opts: PgOptions = {}): Db {
  const urlMax = new URL(url).searchParams.has("max");
  const pool = postgres(url, {
    ...(opts.max ? { max: opts.max } : urlMax ? {} : { max: DEFAULT_PG_POOL }),
    onnotice: () => {},
    idle_timeout: 30,
    // An outage is answered with 503 within about a second and left as soon as the server is
    // back (docs/token-service.md § Operations): npm:postgres's default reconnect backoff grows
    // to 20 s, during which queued queries wait; a connection attempt gives up after 5 s.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    connect_timeout: 5,
  });
  return {
    dialect: "postgres",
    all: async (q) => (await query(pool, q)) as unknown as Row[],
    get: async (q) => (await query(pool, q))[0] as Row | undefined,
    run: async (q) => (await query(pool, q)).count,
    tx: <T>(body: TxBody<T>) => pool.begin((tx) => drive(tx, body)) as Promise<T>,
    async listen(channel, onNotify, onListen) {
      const { unlisten } = await pool.listen(channel, onNotify, onListen);
      return unlisten;
    },
    close: () => pool.end({ timeout: 5 }),
  };
}

function query(c: Conn, q: Sql) {
  return c.unsafe(render(q, "postgres"), q.values as Params, { prepare: true });
}

/** Run a transaction body on an open transaction, one statement after the other. */
async function drive<T>(tx: postgres.TransactionSql, body: TxBody<T>): Promise<T> {
  const g = body(steps);
  let next = g.next();
  while (!next.done) {
    const s = next.value;
    let out: unknown;
    try {
      if (s.kind === "exec") out = void await tx.unsafe(s.q as string);
      else {
        const rows = await query(tx, s.q as Sql);
        out = s.kind === "all" ? rows : s.kind === "run" ? rows.count : rows[0];
      }
    } catch (e) {
      next = g.throw(e); // the body may catch it; otherwise it propagates (rollback)
      continue;
    }
    next = g.next(out);
  }
  return next.value;
}
