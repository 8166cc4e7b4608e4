/**
 * The token service's start, step 2 of 4 (docs/architecture.md § The start): its store — the
 * data folder made owner-only, and SQLite in it or PostgreSQL (SVC_DATABASE_URL), migrated.
 * @module
 */
import type { Logger } from "../log.ts";
import { ensurePrivateDirSync } from "../private_files.ts";
import { isPostgresUrl, openTokenStore, type TokenStore } from "../token/mod.ts";
import type { TokenSettings } from "./token_settings.ts";

/**
 * Step 2: open the store.
 * @param s the settings (data folder, database URL, logger)
 * @returns the migrated store (close it on shutdown)
 * @throws Error when the database cannot be reached or migrated, or the folder made private
 */
export async function openTokenServiceStore(s: TokenSettings): Promise<TokenStore> {
  const { cfg } = s;
  ensurePrivateDirSync(cfg.dataDir);
  if (cfg.databaseUrl && isPostgresUrl(cfg.databaseUrl)) keepAliveOnClosedPostgresWrite(s.log);
  return await openTokenStore({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
}

/**
 * postgres@3.4.9 sends a query's bytes from a `setImmediate` callback (`nextWrite` in its
 * `connection.js`). When the server closes the connection between the query and that callback,
 * the callback writes to a socket already set to null and throws
 * `TypeError: Cannot read properties of null (reading 'write')` outside any promise, which would
 * end the process. By then the connection is closed and its queries have failed
 * (DATABASE_UNAVAILABLE, docs/token-service.md § Operations); the driver opens a new one for the
 * next query. Only that error is kept from ending the process, and it is logged; every other
 * uncaught error still ends it.
 * @param log where the kept error is reported (warn)
 */
function keepAliveOnClosedPostgresWrite(log: Logger): void {
  globalThis.addEventListener("error", (event) => {
    const e = event.error;
    if (
      e instanceof TypeError && /reading 'write'/.test(e.message) &&
      /postgres\/src\/connection\.js/.test(e.stack ?? "")
    ) {
      event.preventDefault();
      log("warn", "database connection closed while a query was being sent", { error: e.message });
    }
  });
}
