/**
 * SQLite implementation of {@link TokenStore} on `node:sqlite` (embedded default). WAL mode,
 * versioned migrations in `migrations.ts`, `BEGIN IMMEDIATE` for every multi-row change (EIK
 * claim, approval, termination, notice claim, usage flush) so several processes sharing one
 * file never exceed a key's limit or send a notice twice. Contracts live in
 * `sqlite_contracts.ts`, notices and usage in `sqlite_notices.ts`.
 * @module
 */
import { SQLITE_MIGRATIONS } from "./migrations.ts";
import type {
  ApplicationRecord,
  ApplicationStatus,
  ClaimNoticesOptions,
  ContractRecord,
  NoticeDraft,
  NoticeOutcome,
  UsageFilter,
  UsageRow,
} from "./records.ts";
import {
  integratorFromRow,
  KEY_FOR_ISSUE_SQL,
  keyForIssueFromRow,
  keyFromRow,
  type Row,
  signingKeyFromRow,
} from "./rows.ts";
import { SqliteConn } from "./sqlite_conn.ts";
import * as K from "./sqlite_contracts.ts";
import * as N from "./sqlite_notices.ts";
import type {
  ApiKeyRecord,
  ClaimResult,
  Integrator,
  IntegratorPatch,
  KeyForIssue,
  SigningKeyRecord,
  TokenStore,
} from "./store.ts";

const ok = <T>(v: T): Promise<T> => Promise.resolve(v);

/** SQLite-backed token store. */
export class SqliteTokenStore implements TokenStore {
  readonly #c: SqliteConn;

  /** @param path database file, or ":memory:" */
  constructor(path: string) {
    this.#c = new SqliteConn(path);
  }

  /** The underlying database (tests, diagnostics). */
  get db() {
    return this.#c.db;
  }

  migrate(): Promise<void> {
    const c = this.#c;
    c.db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
    );
    for (const m of SQLITE_MIGRATIONS) {
      c.tx(() => {
        // Checked inside the write lock: another process may have applied it.
        if (c.db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(m.version)) {
          return;
        }
        c.db.exec(m.sql);
        c.db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)")
          .run(m.version, Date.now());
      });
    }
    c.clearCache();
    return ok(undefined);
  }

  createIntegrator(i: Integrator): Promise<void> {
    this.#c.prep(
      `INSERT INTO integrators (id, name, email, locale, allowed_origins, created_at)
        VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(i.id, i.name, i.email, i.locale ?? "bg", JSON.stringify(i.allowedOrigins), i.createdAt);
    return ok(undefined);
  }

  getIntegrator(id: string): Promise<Integrator | null> {
    const r = this.#c.prep("SELECT * FROM integrators WHERE id = ?").get(id) as Row | undefined;
    return ok(r ? integratorFromRow(r) : null);
  }

  listIntegrators(): Promise<Integrator[]> {
    const rows = this.#c.prep("SELECT * FROM integrators ORDER BY created_at, id").all() as Row[];
    return ok(rows.map(integratorFromRow));
  }

  async updateIntegrator(id: string, p: IntegratorPatch): Promise<Integrator | null> {
    const cur = await this.getIntegrator(id);
    if (!cur) return null;
    this.#c.prep(
      "UPDATE integrators SET name = ?, email = ?, locale = ?, allowed_origins = ? WHERE id = ?",
    ).run(
      p.name ?? cur.name,
      p.email === undefined ? cur.email : p.email,
      p.locale ?? cur.locale ?? "bg",
      JSON.stringify(p.allowedOrigins ?? cur.allowedOrigins),
      id,
    );
    return this.getIntegrator(id);
  }

  createKey(k: ApiKeyRecord): Promise<void> {
    this.#insertKey(k);
    return ok(undefined);
  }

  #insertKey(k: ApiKeyRecord): void {
    this.#c.prep(
      `INSERT INTO api_keys (id, integrator_id, mode, secret_hash, label, created_at, expires_at,
        revoked_at, allowed_eiks, rotated_from, allowed_origins)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      k.rotatedFrom ?? null,
      k.allowedOrigins == null ? null : JSON.stringify(k.allowedOrigins),
    );
  }

  findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null> {
    const r = this.#c.prep(
      `SELECT k.*, i.name AS integrator_name FROM api_keys k
        JOIN integrators i ON i.id = k.integrator_id WHERE k.secret_hash = ?`,
    ).get(secretHash) as Row | undefined;
    return ok(r ? keyFromRow(r) : null);
  }

  findKeyForIssue(secretHash: string, at: number): Promise<KeyForIssue | null> {
    const sql = KEY_FOR_ISSUE_SQL.replace("$2", "?2").replace("$1", "?1");
    const r = this.#c.prep(sql).get(secretHash, at) as Row | undefined;
    return ok(r ? keyForIssueFromRow(r, at) : null);
  }

  getKey(id: string): Promise<ApiKeyRecord | null> {
    const r = this.#c.prep("SELECT * FROM api_keys WHERE id = ?").get(id) as Row | undefined;
    return ok(r ? keyFromRow(r) : null);
  }

  listKeys(f: { integratorId?: string } = {}): Promise<ApiKeyRecord[]> {
    const rows = this.#c.prep(
      "SELECT * FROM api_keys WHERE (? IS NULL OR integrator_id = ?) ORDER BY created_at, id",
    ).all(f.integratorId ?? null, f.integratorId ?? null) as Row[];
    return ok(rows.map(keyFromRow));
  }

  revokeKey(id: string, at: number): Promise<boolean> {
    const res = this.#c.prep(
      "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)",
    ).run(at, id, at);
    return ok(Number(res.changes) > 0);
  }

  setAllowedOrigins(id: string, origins: readonly string[] | null): Promise<boolean> {
    const res = this.#c.prep("UPDATE api_keys SET allowed_origins = ? WHERE id = ?")
      .run(origins === null ? null : JSON.stringify(origins), id);
    return ok(Number(res.changes) > 0);
  }

  setAllowedEiks(id: string, allowedEiks: readonly string[] | null): Promise<boolean> {
    const res = this.#c.prep("UPDATE api_keys SET allowed_eiks = ? WHERE id = ?")
      .run(allowedEiks === null ? null : JSON.stringify(allowedEiks), id);
    return ok(Number(res.changes) > 0);
  }

  rotateKey(oldId: string, fresh: ApiKeyRecord, oldRevokedAt: number, at: number) {
    const c = this.#c;
    return ok(c.tx(() => {
      const res = c.prep(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)",
      ).run(oldRevokedAt, oldId, at);
      if (Number(res.changes) === 0) return false;
      this.#insertKey(fresh);
      c.prep(
        `INSERT INTO key_eiks (key_id, eik, first_used_at)
          SELECT ?, eik, first_used_at FROM key_eiks WHERE key_id = ?`,
      ).run(fresh.id, oldId);
      return true;
    }));
  }

  claimEiks(
    keyId: string,
    eiks: readonly string[],
    limit: number | null,
    at: number,
  ): Promise<ClaimResult> {
    const c = this.#c;
    const wanted = [...new Set(eiks)];
    return ok(c.tx((): ClaimResult => {
      const have = new Set(
        (c.prep("SELECT eik FROM key_eiks WHERE key_id = ?").all(keyId) as Row[]).map((r) =>
          String(r.eik)
        ),
      );
      const fresh = wanted.filter((e) => !have.has(e));
      if (limit !== null && have.size + fresh.length > limit) {
        return { ok: false, used: have.size, limit };
      }
      const ins = c.prep("INSERT INTO key_eiks (key_id, eik, first_used_at) VALUES (?, ?, ?)");
      for (const e of fresh) ins.run(keyId, e, at);
      return { ok: true };
    }));
  }

  keyEiks(keyId: string): Promise<string[]> {
    const rows = this.#c.prep(
      "SELECT eik FROM key_eiks WHERE key_id = ? ORDER BY first_used_at, eik",
    ).all(keyId) as Row[];
    return ok(rows.map((r) => String(r.eik)));
  }

  listSigningKeys(): Promise<SigningKeyRecord[]> {
    const rows = this.#c.prep("SELECT * FROM signing_keys ORDER BY created_at, kid").all() as Row[];
    return ok(rows.map(signingKeyFromRow));
  }

  saveSigningKey(k: SigningKeyRecord): Promise<void> {
    // The partial unique index keeps one current key; a racing first start inserts nothing.
    this.#c.prep(
      `INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, retired_at)
        VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ).run(k.kid, k.privateJwk, k.publicJwk, k.createdAt, k.retiredAt);
    return ok(undefined);
  }

  retireSigningKey(kid: string, at: number): Promise<void> {
    this.#c.prep("UPDATE signing_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL")
      .run(at, kid);
    return ok(undefined);
  }

  hasActiveContract(integratorId: string, at: number): Promise<boolean> {
    return ok(K.contractStateSqlite(this.#c, integratorId, at).active !== null);
  }
  contractState(integratorId: string, at: number) {
    return ok(K.contractStateSqlite(this.#c, integratorId, at));
  }
  createApplication(a: ApplicationRecord) {
    return ok(K.createApplicationSqlite(this.#c, a));
  }
  getApplication(id: string) {
    return ok(K.getApplicationSqlite(this.#c, id));
  }
  listApplications(f: { status?: ApplicationStatus; integratorId?: string } = {}) {
    return ok(K.listApplicationsSqlite(this.#c, f));
  }
  approveApplication(id: string, contract: ContractRecord, at: number, note: string | null) {
    return ok(K.approveApplicationSqlite(this.#c, id, contract, at, note));
  }
  rejectApplication(id: string, at: number, note: string | null) {
    return ok(K.rejectApplicationSqlite(this.#c, id, at, note));
  }
  getContract(id: string) {
    return ok(K.getContractSqlite(this.#c, id));
  }
  listContracts(f: { integratorId?: string } = {}) {
    return ok(K.listContractsSqlite(this.#c, f));
  }
  terminateContract(
    id: string,
    at: number,
    reason: string | null,
    fallbackMs: number,
    notice: (c: ContractRecord) => NoticeDraft,
  ) {
    return ok(K.terminateContractSqlite(this.#c, id, at, reason, fallbackMs, notice));
  }
  expireContracts(at: number, fallbackMs: number) {
    return ok(K.expireContractsSqlite(this.#c, at, fallbackMs));
  }
  keysExpiringWithin(from: number, to: number) {
    return ok(K.keysExpiringWithinSqlite(this.#c, from, to));
  }
  contractsEndingWithin(from: number, to: number) {
    return ok(K.contractsEndingWithinSqlite(this.#c, from, to));
  }
  enqueueNotice(n: NoticeDraft) {
    return ok(N.insertNoticeSqlite(this.#c, n));
  }
  claimNotices(o: ClaimNoticesOptions) {
    return ok(N.claimNoticesSqlite(this.#c, o));
  }
  completeNotice(id: string, owner: string, outcome: NoticeOutcome) {
    return ok(N.completeNoticeSqlite(this.#c, id, owner, outcome));
  }
  listNotices(f: { kind?: string; subjectId?: string } = {}) {
    return ok(N.listNoticesSqlite(this.#c, f));
  }
  addUsage(rows: readonly UsageRow[]) {
    N.addUsageSqlite(this.#c, rows);
    return ok(undefined);
  }
  listUsage(f: UsageFilter = {}) {
    return ok(N.listUsageSqlite(this.#c, f));
  }

  close(): Promise<void> {
    this.#c.db.close();
    return ok(undefined);
  }
}
