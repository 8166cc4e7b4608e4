/**
 * The token service's schema: one list of versioned migrations for both databases, written for
 * PostgreSQL and rendered for SQLite by one rule, `BIGINT` → `INTEGER` (SQLite's integers are
 * 64-bit; this gives SQLite exactly the DDL text it always had). Times are epoch milliseconds.
 * Version numbers are those of every database created so far (1–3), so existing SQLite files
 * and PostgreSQL schemas open as they are. Never edit an applied migration: add one. Version 2
 * adds what interface-spec.md § Access phases needs: integrator locale, key rotation,
 * applications, contract details, notices, usage counters, and one current signing key at a
 * time.
 * @module
 */
import { type Db, type Dialect, sql } from "./sql.ts";

/** One migration: a version number and its SQL (PostgreSQL types). */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/** The migrations, applied in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE integrators (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT,
        allowed_origins TEXT NOT NULL DEFAULT '[]', created_at BIGINT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY, integrator_id TEXT NOT NULL REFERENCES integrators(id),
        mode TEXT NOT NULL CHECK (mode IN ('test','live')), secret_hash TEXT NOT NULL UNIQUE,
        label TEXT, created_at BIGINT NOT NULL, expires_at BIGINT, revoked_at BIGINT,
        allowed_eiks TEXT
      );
      CREATE TABLE key_eiks (
        key_id TEXT NOT NULL REFERENCES api_keys(id), eik TEXT NOT NULL,
        first_used_at BIGINT NOT NULL, PRIMARY KEY (key_id, eik)
      );
      CREATE TABLE contracts (
        id TEXT PRIMARY KEY, integrator_id TEXT NOT NULL REFERENCES integrators(id),
        status TEXT NOT NULL, starts_at BIGINT NOT NULL, ends_at BIGINT,
        terminated_at BIGINT, created_at BIGINT NOT NULL
      );
      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY, private_jwk TEXT NOT NULL, public_jwk TEXT NOT NULL,
        created_at BIGINT NOT NULL, retired_at BIGINT
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
        submitted_at BIGINT NOT NULL, decided_at BIGINT, decision_note TEXT, contract_id TEXT
      );
      CREATE UNIQUE INDEX applications_one_pending ON applications (integrator_id)
        WHERE status = 'pending';
      CREATE TABLE notices (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, subject_id TEXT NOT NULL,
        due_at BIGINT NOT NULL, integrator_id TEXT NOT NULL, recipient TEXT,
        locale TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL,
        claimed_by TEXT, lease_until BIGINT, sent_at BIGINT, last_error TEXT,
        created_at BIGINT NOT NULL, UNIQUE (kind, subject_id, due_at)
      );
      CREATE INDEX notices_claimable ON notices (status, next_attempt_at);
      CREATE TABLE usage_monthly (
        month TEXT NOT NULL, integrator_id TEXT NOT NULL, contract_id TEXT NOT NULL,
        key_id TEXT NOT NULL, mode TEXT NOT NULL, type_id TEXT NOT NULL, eik TEXT NOT NULL,
        count BIGINT NOT NULL,
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

/**
 * A migration's SQL for one database.
 * @param ddl the PostgreSQL text
 * @param dialect the database
 * @returns the text to run
 */
export function renderDdl(ddl: string, dialect: Dialect): string {
  return dialect === "sqlite" ? ddl.replaceAll("BIGINT", "INTEGER") : ddl;
}

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`;

/**
 * Apply the pending migrations in one transaction. Safe when several instances start at once:
 * on SQLite `BEGIN IMMEDIATE` holds the file's write lock, on PostgreSQL a transaction-scoped
 * advisory lock per schema; the ledger is read inside that lock.
 * @param db the database
 * @param at when (epoch ms), recorded in `schema_migrations.applied_at`
 * @throws the driver's error when a migration fails (nothing of the run is kept)
 */
export async function migrate(db: Db, at: number): Promise<void> {
  await db.tx(function* (tx) {
    if (tx.dialect === "postgres") {
      yield* tx.exec(
        "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.svc_token_migrations'))",
      );
    }
    yield* tx.exec(renderDdl(LEDGER, tx.dialect));
    const done = new Set(
      (yield* tx.all(sql`SELECT version FROM schema_migrations`)).map((r) => Number(r.version)),
    );
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      yield* tx.exec(renderDdl(m.sql, tx.dialect));
      yield* tx.run(
        sql`INSERT INTO schema_migrations (version, applied_at) VALUES (${m.version}, ${at})`,
      );
    }
  });
}
