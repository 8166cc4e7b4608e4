/**
 * Which driver errors mean "the database is not there right now" (docs/token-service.md
 * § Operations): the service answers them with 503 DATABASE_UNAVAILABLE instead of 500, and the
 * drivers reconnect by themselves (npm:postgres opens a new connection for the next query).
 * @module
 */

/** Network errors of a connection that could not be made or was lost. */
const NET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "EAI_AGAIN",
  // npm:postgres's own
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/** PostgreSQL SQLSTATEs of a server going away or not accepting connections. */
const PG_STATES = new Set([
  "57P01", // admin_shutdown (terminating connection due to administrator command)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down, in recovery)
  "53300", // too_many_connections
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

/**
 * Whether an error says the database cannot be reached (connection refused or lost, server
 * shutting down or starting, SQLite file busy past its timeout) rather than a bug or a bad query.
 * @param e anything thrown
 * @returns true for an outage the caller may retry
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let err = e, depth = 0; err && typeof err === "object" && depth < 5; depth++) {
    const o = err as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown };
    const code = typeof o.code === "string" ? o.code : "";
    if (NET_CODES.has(code) || PG_STATES.has(code)) return true;
    if (code === "ERR_SQLITE_ERROR" && /database is locked|SQLITE_BUSY/i.test(String(o.message))) {
      return true;
    }
    if (
      err instanceof Deno.errors.ConnectionRefused || err instanceof Deno.errors.ConnectionReset
    ) {
      return true;
    }
    err = o.cause;
  }
  return false;
}
