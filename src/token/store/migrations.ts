/**
 * Versioned schema migrations of the token service, SQLite dialect (the PostgreSQL list in
 * `pg_migrations.ts` has the same version numbers and the same tables). Never edit an applied
 * migration: add one. Version 2 adds what interface-spec.md § Access phases needs: integrator
 * locale, key rotation, applications, contract details, notices, usage counters, and one
 * current signing key at a time.
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
  {
    version: 2,
    sql: `
      ALTER TABLE integrators ADD COLUMN locale TEXT NOT NULL DEFAULT 'bg';
      ALTER TABLE api_keys ADD COLUMN rotated_from TEXT;
      CREATE INDEX api_keys_integrator ON api_keys (integrator_id);
      CREATE INDEX api_keys_expiry ON api_keys (expires_at) WHERE expires_at IS NOT NULL;
      ALTER TABLE contracts ADD COLUMN application_id TEXT;
      ALTER TABLE contracts ADD COLUMN company TEXT NOT NULL DEFAULT '';
      ALTER TABLE contracts ADD COLUMN contact_email TEXT NOT NULL DEFAULT '';
      ALTER TABLE contracts ADD COLUMN termination_reason TEXT;
      CREATE INDEX contracts_integrator ON contracts (integrator_id, starts_at);
      CREATE INDEX contracts_active_end ON contracts (ends_at) WHERE status = 'active';
      CREATE TABLE applications (
        id TEXT PRIMARY KEY, integrator_id TEXT NOT NULL REFERENCES integrators(id),
        company TEXT NOT NULL, contact_email TEXT NOT NULL, intended_use TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','approved','rejected')),
        submitted_at INTEGER NOT NULL, decided_at INTEGER, decision_note TEXT, contract_id TEXT
      );
      CREATE UNIQUE INDEX applications_one_pending ON applications (integrator_id)
        WHERE status = 'pending';
      CREATE TABLE notices (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, subject_id TEXT NOT NULL,
        due_at INTEGER NOT NULL, integrator_id TEXT NOT NULL, recipient TEXT,
        locale TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL,
        claimed_by TEXT, lease_until INTEGER, sent_at INTEGER, last_error TEXT,
        created_at INTEGER NOT NULL, UNIQUE (kind, subject_id, due_at)
      );
      CREATE INDEX notices_claimable ON notices (status, next_attempt_at);
      CREATE TABLE usage_monthly (
        month TEXT NOT NULL, integrator_id TEXT NOT NULL, contract_id TEXT NOT NULL,
        key_id TEXT NOT NULL, mode TEXT NOT NULL, type_id TEXT NOT NULL, eik TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (month, integrator_id, contract_id, key_id, type_id, eik)
      );
      CREATE INDEX usage_by_contract ON usage_monthly (contract_id, month);
      CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys ((retired_at IS NULL))
        WHERE retired_at IS NULL;
    `,
  },
  {
    version: 3,
    sql: `
      ALTER TABLE api_keys ADD COLUMN allowed_origins TEXT;
    `,
  },
];
