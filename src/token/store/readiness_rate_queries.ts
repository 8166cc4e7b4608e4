/**
 * Readiness and the rate limits' windows in the store (docs/token-service.md § Rate limits,
 * § Operations): the schema version for `GET /ready`, and the fixed-window rate-limit counters that
 * several instances share on PostgreSQL (one atomic `INSERT … ON CONFLICT DO UPDATE … RETURNING`
 * per lease of budget, for all of a request's budgets at once; rate_limit.ts `leasedRateCounter`).
 * @module
 */
import { MIGRATIONS } from "./migrations.ts";
import { type Db, sql, tuples } from "./sql.ts";
import type { RateWindowStore, ReadinessStore, SchemaStatus } from "./store.ts";

/**
 * The readiness and rate-window queries over a database.
 * @param db the database
 * @returns the {@link ReadinessStore} and {@link RateWindowStore} methods
 */
export function readinessRateQueries(db: Db): ReadinessStore & RateWindowStore {
  return {
    async schemaStatus(): Promise<SchemaStatus> {
      const done = new Set(
        (await db.all(sql`SELECT version FROM schema_migrations`)).map((r) => Number(r.version)),
      );
      return {
        applied: Math.max(0, ...done),
        pending: MIGRATIONS.map((m) => m.version).filter((v) => !done.has(v)),
      };
    },
    async hitRateWindows(buckets, windowStart, counts) {
      if (buckets.length === 0) return [];
      const add = new Map<string, number>();
      buckets.forEach((b, i) => add.set(b, (add.get(b) ?? 0) + (counts?.[i] ?? 1)));
      // One lock order for every statement (sorted buckets): two requests of one integrator
      // through different keys never wait for each other in opposite orders.
      const sorted = [...add].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
      const rows = await db.all(sql`
        INSERT INTO rate_limit_windows (bucket, window_start, hits)
        VALUES ${tuples(sorted.map(([b, n]) => [b, windowStart, n]))}
        ON CONFLICT (bucket, window_start)
        DO UPDATE SET hits = rate_limit_windows.hits + excluded.hits
        RETURNING bucket, hits`);
      const hits = new Map(rows.map((r) => [String(r.bucket), Number(r.hits)]));
      return buckets.map((b) => hits.get(b) ?? 0);
    },
    async pruneRateWindows(before) {
      // The web pages' windows (`w:…`, 15 minutes) are pruned with the sessions (pruneWeb).
      return await db.run(sql`DELETE FROM rate_limit_windows WHERE window_start < ${before}
        AND bucket NOT LIKE 'w:%'`);
    },
  };
}
