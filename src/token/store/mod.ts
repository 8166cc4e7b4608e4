/**
 * The token service's storage (docs/token-service.md § Access phases): the {@link TokenStore}
 * interface and its records, and one implementation for SQLite and PostgreSQL over one query
 * layer (`sql.ts`). `openTokenStore()` opens either database and applies the migrations.
 * Everything outside `store/` imports this file only.
 * @module
 */
export type * from "./store.ts";
export {
  isPostgresUrl,
  type OpenStoreOptions,
  openTokenStore,
  SQLITE_FILE,
  sqliteTokenStore,
} from "./open_store.ts";
export { isDatabaseUnavailable } from "./db_errors.ts";
export { inForce } from "./rows.ts";
export { BLOCK_SPAN_MS, BlockBuilder, requestLogBlocks } from "./request_log_blocks.ts";
export { BillingCountWriteError } from "./records.ts";
export type { IssueCacheOptions, IssueCacheStats } from "./issue_cache.ts";
export type { Dialect } from "./sql.ts";
export { createSqlTokenStore, type SqlTokenStore } from "./sql_store.ts";
