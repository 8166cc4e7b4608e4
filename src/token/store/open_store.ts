/**
 * The one way to open the token service's database: PostgreSQL when a `postgres://` (or
 * `postgresql://`) URL is given (config `SVC_DATABASE_URL`), otherwise SQLite in
 * `<dataDir>/token-service.sqlite` (folder 0700, file 0600). Pending migrations are applied before
 * it returns (docs/token-service.md § Access phases needs the keys, contracts, notices and usage tables).
 * @module
 */
import { join } from "node:path";
import type { Clock } from "../../clock.ts";
import { ensurePrivateDirSync, preparePrivateDbFileSync } from "../../private_files.ts";
import { openPgDb } from "./pg_db.ts";
import { SqliteDb } from "./sqlite_db.ts";
import { createSqlTokenStore, type SqlTokenStore } from "./sql_store.ts";
import { UserError } from "../../user_error.ts";

/** Options of {@link openTokenStore}. */
export interface OpenStoreOptions {
  /** Directory of the SQLite file (created 0700 when missing, tightened to 0700 otherwise). */
  readonly dataDir: string;
  /** `postgres://…` selects PostgreSQL; absent or empty = SQLite. */
  readonly databaseUrl?: string | null | undefined;
  /** PostgreSQL pool size (default 4; `?max=N` in the URL also sets it). */
  readonly poolSize?: number;
  /** Time source of the store (migration records); default the system clock. */
  readonly clock?: Clock;
}

/** SQLite file name inside the data directory. */
export const SQLITE_FILE = "token-service.sqlite";

/**
 * Whether a database URL selects PostgreSQL.
 * @param url the configured URL
 * @returns true for `postgres://` and `postgresql://`
 */
export function isPostgresUrl(url: string | null | undefined): url is string {
  return typeof url === "string" && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * A SQLite token store, not yet migrated (tests use `":memory:"`).
 * @param path database file, or ":memory:"
 * @param clock time source (default the system clock)
 * @returns the store
 * @throws Error when the file cannot be opened
 */
export function sqliteTokenStore(path: string, clock?: Clock): SqlTokenStore {
  return createSqlTokenStore(new SqliteDb(path), clock);
}

/**
 * Open and migrate the token store.
 * @param opts data directory, optional database URL, pool size and clock
 * @returns the migrated store (close it with `store.close()`)
 * @throws Error when `databaseUrl` is set but is not a PostgreSQL URL, the database cannot be
 *   reached or migrated, or the SQLite folder or file cannot be made owner-only
 */
export async function openTokenStore(opts: OpenStoreOptions): Promise<SqlTokenStore> {
  let store: SqlTokenStore;
  if (opts.databaseUrl) {
    if (!isPostgresUrl(opts.databaseUrl)) {
      throw new UserError("SVC_DATABASE_URL must start with postgres:// or postgresql://");
    }
    store = createSqlTokenStore(openPgDb(opts.databaseUrl, { max: opts.poolSize }), opts.clock);
  } else {
    // Owner-only (token-service.md): the folder 0700, the database 0600 before SQLite opens it (its
    // -wal and -shm files take the database's mode); an earlier install's modes are tightened.
    ensurePrivateDirSync(opts.dataDir);
    preparePrivateDbFileSync(join(opts.dataDir, SQLITE_FILE));
    store = sqliteTokenStore(join(opts.dataDir, SQLITE_FILE), opts.clock);
  }
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
