/**
 * Versioned schema migrations of the token service (SQLite dialect; the PostgreSQL store keeps
 * its own list with the same version numbers). Never edit an applied migration: add one.
 * @module
 */

/** One migration: a version number and its SQL. */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/** SQLite migrations, applied in order. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE integrators (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT,
        allowed_origins TEXT NOT NULL DEFAULT '[]', created_at INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY, integrator_id TEXT NOT NULL REFERENCES integrators(id),
        mode TEXT NOT NULL CHECK (mode IN ('test','live')), secret_hash TEXT NOT NULL UNIQUE,
        label TEXT, created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER,
        allowed_eiks TEXT
      );
      CREATE TABLE key_eiks (
        key_id TEXT NOT NULL REFERENCES api_keys(id), eik TEXT NOT NULL,
        first_used_at INTEGER NOT NULL, PRIMARY KEY (key_id, eik)
      );
      CREATE TABLE contracts (
        id TEXT PRIMARY KEY, integrator_id TEXT NOT NULL REFERENCES integrators(id),
        status TEXT NOT NULL, starts_at INTEGER NOT NULL, ends_at INTEGER,
        terminated_at INTEGER, created_at INTEGER NOT NULL
      );
      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY, private_jwk TEXT NOT NULL, public_jwk TEXT NOT NULL,
        created_at INTEGER NOT NULL, retired_at INTEGER
      );
    `,
  },
];
