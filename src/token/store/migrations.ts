/**
 * The token service's schema: one list of versioned migrations for both databases, written for
 * PostgreSQL and rendered for SQLite by one rule, `BIGINT` → `INTEGER` (SQLite's integers are
 * 64-bit; this gives SQLite exactly the DDL text it always had). Times are epoch milliseconds.
 * Version numbers are those of every database created so far (1–3), so existing SQLite files
 * and PostgreSQL schemas open as they are (version 4, the issuance cache's version counter and
 * its triggers, is written once per database). Never edit an applied migration: add one. Version 2
 * adds what docs/token-service.md § Access phases needs: integrator locale, key rotation,
 * applications, contract details, notices, usage counters, and one current signing key at a
 * time.
 * @module
 */
import { type Db, type Dialect, sql } from "./sql.ts";

/** One migration: a version number and its SQL (PostgreSQL types), or one text per database
 * where they cannot share one (triggers). */
export interface Migration {
  readonly version: number;
  readonly sql: string | Readonly<Record<Dialect, string>>;
}

/** The PostgreSQL channel on which each change of the issuance cache's version is announced
 * (migration 6), with the payload "<schema> <version>". */
export const ISSUE_CACHE_CHANNEL = "svc_issue_cache";

/** The tables whose changes the issuance cache must see (issue_cache.ts), with the row events. */
const CACHED_TABLES = [
  ["api_keys", "UPDATE OR DELETE"],
  ["integrators", "UPDATE OR DELETE"],
  ["contracts", "INSERT OR UPDATE OR DELETE"],
] as const;

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
  {
    // The issuance cache's version (token-service.md): each committed change of a key, an integrator
    // or a contract adds 1, from any process (the admin CLI, another instance, plain SQL).
    // PostgreSQL bumps it in deferred constraint triggers, at commit: the counter's row lock is
    // the last lock a transaction takes, so it never closes a deadlock cycle. The EIK set
    // (key_eiks) only grows, so it needs no trigger (a cached subset is never wrong).
    version: 4,
    sql: {
      sqlite: `
        CREATE TABLE issue_cache_version (id INTEGER PRIMARY KEY CHECK (id = 1),
          v INTEGER NOT NULL);
        INSERT INTO issue_cache_version (id, v) VALUES (1, 0);
        ${
        CACHED_TABLES.flatMap(([t, events]) =>
          events.split(" OR ").map((e) =>
            `CREATE TRIGGER ${t}_issue_cache_${e.toLowerCase()} AFTER ${e} ON ${t}
          BEGIN UPDATE issue_cache_version SET v = v + 1 WHERE id = 1; END;`
          )
        ).join("\n        ")
      }
      `,
      postgres: `
        CREATE TABLE issue_cache_version (id INTEGER PRIMARY KEY CHECK (id = 1),
          v BIGINT NOT NULL);
        INSERT INTO issue_cache_version (id, v) VALUES (1, 0);
        CREATE FUNCTION issue_cache_bump() RETURNS trigger LANGUAGE plpgsql
          SET search_path FROM CURRENT
          AS $$ BEGIN UPDATE issue_cache_version SET v = v + 1 WHERE id = 1; RETURN NULL; END $$;
        ${
        CACHED_TABLES.map(([t, events]) =>
          `CREATE CONSTRAINT TRIGGER ${t}_issue_cache AFTER ${events} ON ${t}
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION issue_cache_bump();`
        ).join("\n        ")
      }
      `,
    },
  },
  {
    // Rate-limit counters (docs/token-service.md § Rate limits): one row per budget and fixed
    // window, shared by the instances on PostgreSQL. UNLOGGED there: no WAL for a counter that
    // only matters for a few seconds (a crash empties it, which only resets the windows).
    version: 5,
    sql: {
      postgres: `
        CREATE UNLOGGED TABLE rate_limit_windows (
          bucket TEXT NOT NULL, window_start BIGINT NOT NULL, hits BIGINT NOT NULL,
          PRIMARY KEY (bucket, window_start)
        );
      `,
      sqlite: `
        CREATE TABLE rate_limit_windows (
          bucket TEXT NOT NULL, window_start INTEGER NOT NULL, hits INTEGER NOT NULL,
          PRIMARY KEY (bucket, window_start)
        );
      `,
    },
  },
  {
    // The issuance cache's push (issue_cache.ts): every bump of the version counter also
    // notifies the channel `svc_issue_cache` with "<schema> <version>", sent at commit, so the
    // other instances drop their caches without waiting for their next version check. SQLite
    // (one process) has nothing to notify.
    version: 6,
    sql: {
      postgres: `
        CREATE OR REPLACE FUNCTION issue_cache_bump() RETURNS trigger LANGUAGE plpgsql
          SET search_path FROM CURRENT
          AS $$ DECLARE nv BIGINT; BEGIN
            UPDATE issue_cache_version SET v = v + 1 WHERE id = 1 RETURNING v INTO nv;
            PERFORM pg_notify('${ISSUE_CACHE_CHANNEL}', current_schema() || ' ' || nv);
            RETURN NULL;
          END $$;
      `,
      sqlite: `SELECT 1;`,
    },
  },
  {
    // The integrators' profile and the administrators' desk (docs/token-service.md § The
    // profile): people who sign in (web_users; an integrator's people point at it), one-time
    // e-mail links (only their SHA-256 is kept), server-side sessions (only the id's SHA-256),
    // passkeys, the request log of token requests (7 days, bounded: request_log/recorder.ts), the
    // tokens issued per day and typeId (90 days) behind the usage chart, and the audit log of
    // every change made through the desk, the profile or the admin API (audit/audit_log.ts).
    version: 7,
    sql: `
      CREATE TABLE web_users (
        id TEXT PRIMARY KEY, role TEXT NOT NULL CHECK (role IN ('integrator','admin')),
        email TEXT NOT NULL, integrator_id TEXT REFERENCES integrators(id),
        created_at BIGINT NOT NULL, created_by TEXT, UNIQUE (role, email)
      );
      CREATE INDEX web_users_integrator ON web_users (integrator_id);
      CREATE TABLE web_links (
        code_hash TEXT PRIMARY KEY, purpose TEXT NOT NULL, email TEXT NOT NULL,
        payload TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX web_links_expiry ON web_links (expires_at);
      CREATE TABLE web_sessions (
        id_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES web_users(id),
        csrf TEXT NOT NULL, created_at BIGINT NOT NULL, last_seen BIGINT NOT NULL
      );
      CREATE INDEX web_sessions_user ON web_sessions (user_id);
      CREATE INDEX web_sessions_seen ON web_sessions (last_seen);
      CREATE TABLE web_passkeys (
        credential_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES web_users(id),
        public_key TEXT NOT NULL, counter BIGINT NOT NULL, transports TEXT NOT NULL,
        created_at BIGINT NOT NULL, last_used_at BIGINT
      );
      CREATE INDEX web_passkeys_user ON web_passkeys (user_id);
      CREATE TABLE request_log (
        at BIGINT NOT NULL, integrator_id TEXT NOT NULL, key_id TEXT NOT NULL,
        type_id TEXT NOT NULL, eiks TEXT NOT NULL, status INTEGER NOT NULL,
        error_code TEXT, request_id TEXT NOT NULL
      );
      CREATE INDEX request_log_integrator ON request_log (integrator_id, at);
      CREATE INDEX request_log_at ON request_log (at);
      CREATE TABLE usage_daily (
        day TEXT NOT NULL, integrator_id TEXT NOT NULL, key_id TEXT NOT NULL,
        type_id TEXT NOT NULL, count BIGINT NOT NULL,
        PRIMARY KEY (integrator_id, day, key_id, type_id)
      );
      CREATE TABLE audit_log (
        at BIGINT NOT NULL, actor_kind TEXT NOT NULL, actor TEXT NOT NULL,
        integrator_id TEXT, action TEXT NOT NULL, target TEXT NOT NULL, detail TEXT NOT NULL,
        request_id TEXT NOT NULL
      );
      CREATE INDEX audit_log_at ON audit_log (at);
      CREATE INDEX audit_log_integrator ON audit_log (integrator_id, at);
    `,
  },
  {
    // The request log in blocks (request_log_blocks.ts; docs/token-service.md § The request log):
    // one row per API key and flush instead of one per request, so that a token request costs the
    // database a share of one row and its two index entries. Every row of the old table becomes a
    // block of one entry; nothing is lost.
    version: 8,
    sql: {
      sqlite: `
        CREATE TABLE request_log_blocks (
          id INTEGER PRIMARY KEY, integrator_id TEXT NOT NULL, key_id TEXT NOT NULL,
          first_at INTEGER NOT NULL, last_at INTEGER NOT NULL, entries INTEGER NOT NULL,
          errors INTEGER NOT NULL, body TEXT NOT NULL
        );
        CREATE INDEX request_log_blocks_integrator ON request_log_blocks (integrator_id, last_at);
        CREATE INDEX request_log_blocks_last ON request_log_blocks (last_at);
        INSERT INTO request_log_blocks (integrator_id, key_id, first_at, last_at, entries,
          errors, body)
        SELECT integrator_id, key_id, at, at, 1, CASE WHEN status >= 400 THEN 1 ELSE 0 END,
          json_array(json_array(at, type_id, eiks, status, error_code, request_id))
        FROM request_log ORDER BY at;
        DROP TABLE request_log;
      `,
      postgres: `
        CREATE TABLE request_log_blocks (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, integrator_id TEXT NOT NULL,
          key_id TEXT NOT NULL, first_at BIGINT NOT NULL, last_at BIGINT NOT NULL,
          entries INTEGER NOT NULL, errors INTEGER NOT NULL, body TEXT NOT NULL
        );
        CREATE INDEX request_log_blocks_integrator
          ON request_log_blocks (integrator_id, last_at, id);
        CREATE INDEX request_log_blocks_last ON request_log_blocks (last_at);
        INSERT INTO request_log_blocks (integrator_id, key_id, first_at, last_at, entries,
          errors, body)
        SELECT integrator_id, key_id, at, at, 1, CASE WHEN status >= 400 THEN 1 ELSE 0 END,
          json_build_array(json_build_array(at, type_id, eiks, status, error_code,
            request_id))::text
        FROM request_log ORDER BY at;
        DROP TABLE request_log;
      `,
    },
  },
  {
    // Request log blocks with their bodies packed (request_log_block_body.ts: a third of the JSON's
    // size) in a column of their own, `packed`; `body` holds '' then. Only added: an instance of
    // the previous release, still running during a rolling deploy, keeps writing JSON into
    // `body` (its `packed` is NULL), and the reader takes `packed` when there is one, else `body`.
    version: 9,
    sql: {
      sqlite: "ALTER TABLE request_log_blocks ADD COLUMN packed BLOB;",
      postgres: "ALTER TABLE request_log_blocks ADD COLUMN packed BYTEA;",
    },
  },
  {
    // An integrator's team and what each person can take back (docs/token-service.md § Team
    // and roles, § Taking access back): every person of an integrator has a role (owner,
    // developer, read-only; the person who signed up is the owner), and every session keeps
    // the device it was opened on (the browser's User-Agent, shortened) for the sessions list.
    version: 10,
    sql: `
      ALTER TABLE web_users ADD COLUMN member_role TEXT NOT NULL DEFAULT 'owner'
        CHECK (member_role IN ('owner','developer','readonly'));
      ALTER TABLE web_sessions ADD COLUMN device TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    // Who asks, shown truthfully (docs/token-service.md § Who asks): the identity an
    // administrator verified — legal name and EIK, when and by whom — at a contract's approval
    // or with "verify identity" on the desk. NULL = not verified: the name is self-declared.
    version: 11,
    sql: `
      ALTER TABLE integrators ADD COLUMN verified_name TEXT;
      ALTER TABLE integrators ADD COLUMN verified_eik TEXT;
      ALTER TABLE integrators ADD COLUMN verified_at BIGINT;
      ALTER TABLE integrators ADD COLUMN verified_by TEXT;
    `,
  },
];

/**
 * A migration's SQL for one database.
 * @param ddl the PostgreSQL text, or the text of each database (used as is)
 * @param dialect the database
 * @returns the text to run
 */
export function renderDdl(ddl: Migration["sql"], dialect: Dialect): string {
  if (typeof ddl !== "string") return ddl[dialect];
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
