/**
 * SQLite implementation of {@link TokenStore} on `node:sqlite` (embedded default). WAL mode,
 * versioned migrations in `migrations.ts`, `BEGIN IMMEDIATE` for the atomic EIK claim so several
 * processes sharing one file never exceed a key's limit.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { SQLITE_MIGRATIONS } from "./migrations.ts";
import type {
  ApiKeyRecord,
  ClaimResult,
  Integrator,
  SigningKeyRecord,
  TokenStore,
} from "./store.ts";

type Row = Record<string, unknown>;

function keyFromRow(r: Row): ApiKeyRecord {
  return {
    id: String(r.id),
    integratorId: String(r.integrator_id),
    mode: r.mode === "live" ? "live" : "test",
    secretHash: String(r.secret_hash),
    label: r.label == null ? null : String(r.label),
    createdAt: Number(r.created_at),
    expiresAt: r.expires_at == null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at == null ? null : Number(r.revoked_at),
    allowedEiks: r.allowed_eiks == null ? null : JSON.parse(String(r.allowed_eiks)),
  };
}

/** SQLite-backed token store. */
export class SqliteTokenStore implements TokenStore {
  readonly db: DatabaseSync;
  #findByHash;

  /** @param path database file, or ":memory:" */
  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;");
    this.#findByHash = () => this.db.prepare("SELECT * FROM api_keys WHERE secret_hash = ?");
  }

  migrate(): Promise<void> {
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
    );
    const done = new Set(
      (this.db.prepare("SELECT version FROM schema_migrations").all() as Row[]).map((r) =>
        Number(r.version)
      ),
    );
    for (const m of SQLITE_MIGRATIONS) {
      if (done.has(m.version)) continue;
      this.db.exec("BEGIN IMMEDIATE");
      try {
        // Re-check inside the write lock: another process may have applied it.
        const again = this.db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(
          m.version,
        );
        if (!again) {
          this.db.exec(m.sql);
          this.db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(
            m.version,
            Date.now(),
          );
        }
        this.db.exec("COMMIT");
      } catch (e) {
        this.db.exec("ROLLBACK");
        throw e;
      }
    }
    const find = this.db.prepare("SELECT * FROM api_keys WHERE secret_hash = ?");
    this.#findByHash = () => find;
    return Promise.resolve();
  }

  createIntegrator(i: Integrator): Promise<void> {
    this.db.prepare(
      "INSERT INTO integrators (id, name, email, allowed_origins, created_at) VALUES (?, ?, ?, ?, ?)",
    ).run(i.id, i.name, i.email, JSON.stringify(i.allowedOrigins), i.createdAt);
    return Promise.resolve();
  }

  getIntegrator(id: string): Promise<Integrator | null> {
    const r = this.db.prepare("SELECT * FROM integrators WHERE id = ?").get(id) as Row | undefined;
    if (!r) return Promise.resolve(null);
    return Promise.resolve({
      id: String(r.id),
      name: String(r.name),
      email: r.email == null ? null : String(r.email),
      allowedOrigins: JSON.parse(String(r.allowed_origins ?? "[]")),
      createdAt: Number(r.created_at),
    });
  }

  createKey(k: ApiKeyRecord): Promise<void> {
    this.db.prepare(
      `INSERT INTO api_keys (id, integrator_id, mode, secret_hash, label, created_at, expires_at,
        revoked_at, allowed_eiks) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      k.id,
      k.integratorId,
      k.mode,
      k.secretHash,
      k.label,
      k.createdAt,
      k.expiresAt,
      k.revokedAt,
      k.allowedEiks == null ? null : JSON.stringify(k.allowedEiks),
    );
    return Promise.resolve();
  }

  findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null> {
    const r = this.#findByHash().get(secretHash) as Row | undefined;
    return Promise.resolve(r ? keyFromRow(r) : null);
  }

  getKey(id: string): Promise<ApiKeyRecord | null> {
    const r = this.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(id) as Row | undefined;
    return Promise.resolve(r ? keyFromRow(r) : null);
  }

  revokeKey(id: string, at: number): Promise<boolean> {
    const res = this.db.prepare(
      "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
    ).run(at, id);
    return Promise.resolve(Number(res.changes) > 0);
  }

  claimEiks(
    keyId: string,
    eiks: readonly string[],
    limit: number | null,
    at: number,
  ): Promise<ClaimResult> {
    const wanted = [...new Set(eiks)];
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const have = new Set(
        (this.db.prepare("SELECT eik FROM key_eiks WHERE key_id = ?").all(keyId) as Row[]).map((
          r,
        ) => String(r.eik)),
      );
      const fresh = wanted.filter((e) => !have.has(e));
      if (limit !== null && have.size + fresh.length > limit) {
        this.db.exec("ROLLBACK");
        return Promise.resolve({ ok: false, used: have.size, limit });
      }
      const ins = this.db.prepare(
        "INSERT INTO key_eiks (key_id, eik, first_used_at) VALUES (?, ?, ?)",
      );
      for (const e of fresh) ins.run(keyId, e, at);
      this.db.exec("COMMIT");
      return Promise.resolve({ ok: true });
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
  }

  keyEiks(keyId: string): Promise<string[]> {
    const rows = this.db.prepare(
      "SELECT eik FROM key_eiks WHERE key_id = ? ORDER BY first_used_at, eik",
    ).all(keyId) as Row[];
    return Promise.resolve(rows.map((r) => String(r.eik)));
  }

  hasActiveContract(integratorId: string, at: number): Promise<boolean> {
    const r = this.db.prepare(
      `SELECT 1 FROM contracts WHERE integrator_id = ? AND status = 'active'
        AND starts_at <= ? AND (ends_at IS NULL OR ends_at > ?) LIMIT 1`,
    ).get(integratorId, at, at);
    return Promise.resolve(r !== undefined);
  }

  listSigningKeys(): Promise<SigningKeyRecord[]> {
    const rows = this.db.prepare("SELECT * FROM signing_keys ORDER BY created_at").all() as Row[];
    return Promise.resolve(rows.map((r) => ({
      kid: String(r.kid),
      privateJwk: String(r.private_jwk),
      publicJwk: String(r.public_jwk),
      createdAt: Number(r.created_at),
      retiredAt: r.retired_at == null ? null : Number(r.retired_at),
    })));
  }

  saveSigningKey(k: SigningKeyRecord): Promise<void> {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const current = this.db.prepare("SELECT 1 FROM signing_keys WHERE retired_at IS NULL").get();
      if (!current || k.retiredAt !== null) {
        this.db.prepare(
          "INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, retired_at) VALUES (?, ?, ?, ?, ?)",
        ).run(k.kid, k.privateJwk, k.publicJwk, k.createdAt, k.retiredAt);
      }
      this.db.exec("COMMIT");
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
    return Promise.resolve();
  }

  retireSigningKey(kid: string, at: number): Promise<void> {
    this.db.prepare("UPDATE signing_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL")
      .run(at, kid);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
