/**
 * The one implementation of {@link TokenStore}, for SQLite and PostgreSQL alike: the key,
 * contract and notice/usage queries (`key_queries.ts`, `contract_queries.ts`,
 * `notice_queries.ts`) over one {@link Db}, plus the migrations. Keys are stored only as a
 * SHA-256 hash of the secret. Every multi-row change (EIK claim, rotation, approval,
 * termination, expiry, usage flush) is one transaction, and the notice claim one statement, so
 * several service instances can share one database (docs/token-service.md § Access phases).
 * @module
 */
import { type Clock, systemClock } from "../../clock.ts";
import { contractQueries } from "./contract_queries.ts";
import { type IssueCacheOptions, type IssueCacheStats, withIssueCache } from "./issue_cache.ts";
import { keyQueries } from "./key_queries.ts";
import { inlineRequestLogWriter, threadRequestLogWriter } from "./request_log_writer.ts";
import { migrate } from "./migrations.ts";
import { noticeQueries } from "./notice_queries.ts";
import { readinessRateQueries } from "./readiness_rate_queries.ts";
import type { Db, Dialect } from "./sql.ts";
import { SqliteDb } from "./sqlite_db.ts";
import type { TokenStore } from "./store.ts";
import { webQueries } from "./web_queries.ts";
import { teamQueries } from "./team_queries.ts";

/** A {@link TokenStore} that says which database it runs on (diagnostics, tests). */
export interface SqlTokenStore extends TokenStore {
  readonly dialect: Dialect;
  /** Hits and misses of the issuance cache (`issue_cache.ts`). */
  issueCacheStats(): IssueCacheStats;
}

/**
 * The token store over a database (not yet migrated: call `migrate()`, or open it with
 * `openTokenStore()`), with the issuance cache in front (`issue_cache.ts`: each key, its
 * integrator's name and contracts and its EIK set, kept per store object, i.e. per instance).
 * @param db the database (`SqliteDb` or `openPgDb()`)
 * @param clock the time recorded when a migration is applied
 * @param cache the issuance cache's timings and size
 * @returns the store; `close()` closes `db`
 */
export function createSqlTokenStore(
  db: Db,
  clock: Clock = systemClock,
  cache: IssueCacheOptions = {},
): SqlTokenStore {
  const web = webQueries(db);
  return withIssueCache(
    {
      dialect: db.dialect,
      migrate: () => migrate(db, clock.now()),
      close: () => db.close(),
      ...keyQueries(db),
      ...contractQueries(db),
      ...noticeQueries(db),
      ...readinessRateQueries(db),
      ...web,
      ...teamQueries(db),
      requestLogWriter: (onFallback: (e: Error) => void) =>
        db instanceof SqliteDb && db.path !== ":memory:" && !db.path.startsWith("file::memory:")
          ? threadRequestLogWriter(db.path, web, onFallback)
          : inlineRequestLogWriter(web),
    },
    db,
    cache,
  );
}
