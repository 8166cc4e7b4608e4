/**
 * The token service's storage (interface-spec.md § Access phases): the {@link TokenStore}
 * interface, its records, and `openTokenStore()`, which opens SQLite or PostgreSQL and applies
 * the migrations. Everything outside `store/` imports this file only.
 * @module
 */
export type * from "./store.ts";
export { isPostgresUrl, type OpenStoreOptions, openTokenStore, SQLITE_FILE } from "./open_store.ts";
export { inForce } from "./rows.ts";
export { SqliteTokenStore } from "./sqlite_store.ts";
