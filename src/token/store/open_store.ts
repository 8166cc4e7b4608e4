/**
 * The one way to open the token service's database: PostgreSQL when a `postgres://` (or
 * `postgresql://`) URL is given (config `SVC_DATABASE_URL`), otherwise SQLite in
 * `<dataDir>/token-service.sqlite`. Pending migrations are applied before it returns
 * (interface-spec.md § Access phases needs the keys, contracts, notices and usage tables).
 * @module
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PostgresTokenStore } from "./pg_store.ts";
import { SqliteTokenStore } from "./sqlite_store.ts";
import type { TokenStore } from "./store.ts";

/** Options of {@link openTokenStore}. */
export interface OpenStoreOptions {
  /** Directory of the SQLite file (created when missing). */
  readonly dataDir: string;
  /** `postgres://…` selects PostgreSQL; absent or empty = SQLite. */
  readonly databaseUrl?: string | null;
  /** PostgreSQL pool size (default 4; `?max=N` in the URL also sets it). */
  readonly poolSize?: number;
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
 * Open and migrate the token store.
 * @param opts data directory and optional database URL
 * @returns the migrated store (close it with `store.close()`)
 * @throws Error when `databaseUrl` is set but is not a PostgreSQL URL, or the database cannot
 *   be reached or migrated
 */
export async function openTokenStore(opts: OpenStoreOptions): Promise<TokenStore> {
  let store: TokenStore;
  if (opts.databaseUrl) {
    if (!isPostgresUrl(opts.databaseUrl)) {
      throw new Error("SVC_DATABASE_URL must start with postgres:// or postgresql://");
    }
    store = new PostgresTokenStore(opts.databaseUrl, { max: opts.poolSize });
  } else {
    await mkdir(opts.dataDir, { recursive: true });
    store = new SqliteTokenStore(join(opts.dataDir, SQLITE_FILE));
  }
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
