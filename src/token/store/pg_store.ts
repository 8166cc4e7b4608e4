/**
 * PostgreSQL implementation of {@link TokenStore} (`npm:postgres`), for several token service
 * instances sharing one database. Same tables and version numbers as the SQLite store
 * (`pg_migrations.ts`), applied in one transaction under an advisory lock. Per-key EIK claims
 * lock the key row; contracts lock the integrator row; notices are claimed with
 * `FOR UPDATE SKIP LOCKED` (`pg_notices.ts`). Query parameters of the URL other than the
 * driver's own (e.g. `?search_path=s1`) become connection settings, which the tests use to give
 * each test its own schema.
 * @module
 */
import postgres from "postgres";
import { PG_MIGRATIONS } from "./pg_migrations.ts";
import * as K from "./pg_contracts.ts";
import * as N from "./pg_notices.ts";
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
  signingKeyFromRow,
} from "./rows.ts";
import type {
  ApiKeyRecord,
  ClaimResult,
  Integrator,
  IntegratorPatch,
  KeyForIssue,
  SigningKeyRecord,
  TokenStore,
} from "./store.ts";

/** Options of {@link PostgresTokenStore}. */
export interface PgStoreOptions {
  /** Pool size (default {@link DEFAULT_PG_POOL}, or `?max=` in the URL). */
  readonly max?: number;
}

/** Default pool size. npm:postgres pipelines queries on each connection, so a few connections
 * carry the issuance load; on a 2-core host shared with PostgreSQL, 10 connections per
 * instance raised p99 several-fold (scripts/bench_token_scale.ts). */
export const DEFAULT_PG_POOL = 4;

/** PostgreSQL-backed token store. */
export class PostgresTokenStore implements TokenStore {
  readonly #sql: postgres.Sql;

  /**
   * @param url `postgres://user[:pass]@host:port/db[?search_path=schema]`
   * @param opts pool options
   */
  constructor(url: string, opts: PgStoreOptions = {}) {
    const urlMax = new URL(url).searchParams.has("max");
    this.#sql = postgres(url, {
      ...(opts.max ? { max: opts.max } : urlMax ? {} : { max: DEFAULT_PG_POOL }),
      onnotice: () => {},
      idle_timeout: 30,
    });
  }

  async migrate(): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.svc_token_migrations'))`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`;
      const done = new Set(
        (await tx`SELECT version FROM schema_migrations`).map((r) => Number(r.version)),
      );
      for (const m of PG_MIGRATIONS) {
        if (done.has(m.version)) continue;
        await tx.unsafe(m.sql);
        await tx`INSERT INTO schema_migrations (version, applied_at) VALUES (${m.version}, ${Date.now()})`;
      }
    });
  }

  async createIntegrator(i: Integrator): Promise<void> {
    await this.#sql`INSERT INTO integrators (id, name, email, locale, allowed_origins, created_at)
      VALUES (${i.id}, ${i.name}, ${i.email}, ${i.locale ?? "bg"},
      ${JSON.stringify(i.allowedOrigins)}, ${i.createdAt})`;
  }

  async getIntegrator(id: string): Promise<Integrator | null> {
    const [r] = await this.#sql`SELECT * FROM integrators WHERE id = ${id}`;
    return r ? integratorFromRow(r) : null;
  }

  async listIntegrators(): Promise<Integrator[]> {
    return (await this.#sql`SELECT * FROM integrators ORDER BY created_at, id`).map(
      integratorFromRow,
    );
  }

  async updateIntegrator(id: string, p: IntegratorPatch): Promise<Integrator | null> {
    const cur = await this.getIntegrator(id);
    if (!cur) return null;
    const [r] = await this.#sql`UPDATE integrators SET name = ${p.name ?? cur.name},
      email = ${p.email === undefined ? cur.email : p.email}, locale = ${
      p.locale ?? cur.locale ?? "bg"
    }, allowed_origins = ${JSON.stringify(p.allowedOrigins ?? cur.allowedOrigins)}
      WHERE id = ${id} RETURNING *`;
    return r ? integratorFromRow(r) : null;
  }

  async createKey(k: ApiKeyRecord): Promise<void> {
    await insertKey(this.#sql, k);
  }

  async findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null> {
    const [r] = await this.#sql`SELECT k.*, i.name AS integrator_name FROM api_keys k
      JOIN integrators i ON i.id = k.integrator_id WHERE k.secret_hash = ${secretHash}`;
    return r ? keyFromRow(r) : null;
  }

  async findKeyForIssue(secretHash: string, at: number): Promise<KeyForIssue | null> {
    const [r] = await this.#sql.unsafe(KEY_FOR_ISSUE_SQL, [secretHash, at], { prepare: true });
    return r ? keyForIssueFromRow(r, at) : null;
  }

  async getKey(id: string): Promise<ApiKeyRecord | null> {
    const [r] = await this.#sql`SELECT * FROM api_keys WHERE id = ${id}`;
    return r ? keyFromRow(r) : null;
  }

  async listKeys(f: { integratorId?: string } = {}): Promise<ApiKeyRecord[]> {
    const i = f.integratorId ?? null;
    const rows = await this.#sql`SELECT * FROM api_keys
      WHERE (${i}::text IS NULL OR integrator_id = ${i}) ORDER BY created_at, id`;
    return rows.map(keyFromRow);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    const res = await this.#sql`UPDATE api_keys SET revoked_at = ${at}
      WHERE id = ${id} AND (revoked_at IS NULL OR revoked_at > ${at})`;
    return res.count > 0;
  }

  async setAllowedOrigins(id: string, origins: readonly string[] | null): Promise<boolean> {
    const v = origins === null ? null : JSON.stringify(origins);
    return (await this.#sql`UPDATE api_keys SET allowed_origins = ${v} WHERE id = ${id}`).count > 0;
  }

  async setAllowedEiks(id: string, allowedEiks: readonly string[] | null): Promise<boolean> {
    const v = allowedEiks === null ? null : JSON.stringify(allowedEiks);
    return (await this.#sql`UPDATE api_keys SET allowed_eiks = ${v} WHERE id = ${id}`).count > 0;
  }

  rotateKey(oldId: string, fresh: ApiKeyRecord, oldRevokedAt: number, at: number) {
    return this.#sql.begin(async (tx) => {
      const res = await tx`UPDATE api_keys SET revoked_at = ${oldRevokedAt}
        WHERE id = ${oldId} AND (revoked_at IS NULL OR revoked_at > ${at})`;
      if (res.count === 0) return false;
      await insertKey(tx, fresh);
      await tx`INSERT INTO key_eiks (key_id, eik, first_used_at)
        SELECT ${fresh.id}, eik, first_used_at FROM key_eiks WHERE key_id = ${oldId}`;
      return true;
    });
  }

  claimEiks(
    keyId: string,
    eiks: readonly string[],
    limit: number | null,
    at: number,
  ): Promise<ClaimResult> {
    const wanted = [...new Set(eiks)];
    return this.#sql.begin(async (tx): Promise<ClaimResult> => {
      await tx`SELECT id FROM api_keys WHERE id = ${keyId} FOR UPDATE`;
      const have = new Set(
        (await tx`SELECT eik FROM key_eiks WHERE key_id = ${keyId}`).map((r) => String(r.eik)),
      );
      const fresh = wanted.filter((e) => !have.has(e));
      if (limit !== null && have.size + fresh.length > limit) {
        return { ok: false, used: have.size, limit };
      }
      if (fresh.length > 0) {
        const rows = fresh.map((eik) => ({ key_id: keyId, eik, first_used_at: at }));
        await tx`INSERT INTO key_eiks ${tx(rows)} ON CONFLICT DO NOTHING`;
      }
      return { ok: true };
    });
  }

  async keyEiks(keyId: string): Promise<string[]> {
    const rows = await this.#sql`SELECT eik FROM key_eiks WHERE key_id = ${keyId}
      ORDER BY first_used_at, eik`;
    return rows.map((r) => String(r.eik));
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    return (await this.#sql`SELECT * FROM signing_keys ORDER BY created_at, kid`).map(
      signingKeyFromRow,
    );
  }

  async saveSigningKey(k: SigningKeyRecord): Promise<void> {
    await this.#sql`INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, retired_at)
      VALUES (${k.kid}, ${k.privateJwk}, ${k.publicJwk}, ${k.createdAt}, ${k.retiredAt})
      ON CONFLICT DO NOTHING`;
  }

  async retireSigningKey(kid: string, at: number): Promise<void> {
    await this.#sql`UPDATE signing_keys SET retired_at = ${at}
      WHERE kid = ${kid} AND retired_at IS NULL`;
  }

  async hasActiveContract(integratorId: string, at: number): Promise<boolean> {
    return (await K.contractStatePg(this.#sql, integratorId, at)).active !== null;
  }
  contractState(integratorId: string, at: number) {
    return K.contractStatePg(this.#sql, integratorId, at);
  }
  createApplication(a: ApplicationRecord) {
    return K.createApplicationPg(this.#sql, a);
  }
  getApplication(id: string) {
    return K.getApplicationPg(this.#sql, id);
  }
  listApplications(f: { status?: ApplicationStatus; integratorId?: string } = {}) {
    return K.listApplicationsPg(this.#sql, f);
  }
  approveApplication(id: string, contract: ContractRecord, at: number, note: string | null) {
    return K.approveApplicationPg(this.#sql, id, contract, at, note);
  }
  rejectApplication(id: string, at: number, note: string | null) {
    return K.rejectApplicationPg(this.#sql, id, at, note);
  }
  getContract(id: string) {
    return K.getContractPg(this.#sql, id);
  }
  listContracts(f: { integratorId?: string } = {}) {
    return K.listContractsPg(this.#sql, f);
  }
  terminateContract(
    id: string,
    at: number,
    reason: string | null,
    fallbackMs: number,
    notice: (c: ContractRecord) => NoticeDraft,
  ) {
    return K.terminateContractPg(this.#sql, id, at, reason, fallbackMs, notice);
  }
  expireContracts(at: number, fallbackMs: number) {
    return K.expireContractsPg(this.#sql, at, fallbackMs);
  }
  keysExpiringWithin(from: number, to: number) {
    return K.keysExpiringWithinPg(this.#sql, from, to);
  }
  contractsEndingWithin(from: number, to: number) {
    return K.contractsEndingWithinPg(this.#sql, from, to);
  }
  enqueueNotice(n: NoticeDraft) {
    return N.insertNoticePg(this.#sql, n);
  }
  claimNotices(o: ClaimNoticesOptions) {
    return N.claimNoticesPg(this.#sql, o);
  }
  completeNotice(id: string, owner: string, outcome: NoticeOutcome) {
    return N.completeNoticePg(this.#sql, id, owner, outcome);
  }
  listNotices(f: { kind?: string; subjectId?: string } = {}) {
    return N.listNoticesPg(this.#sql, f);
  }
  async addUsage(rows: readonly UsageRow[]): Promise<void> {
    if (rows.length <= 500) return N.addUsagePg(this.#sql, rows);
    await this.#sql.begin((tx) => N.addUsagePg(tx, rows));
  }
  listUsage(f: UsageFilter = {}) {
    return N.listUsagePg(this.#sql, f);
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }
}

async function insertKey(q: K.Q, k: ApiKeyRecord): Promise<void> {
  const allowed = k.allowedEiks == null ? null : JSON.stringify(k.allowedEiks);
  const origins = k.allowedOrigins == null ? null : JSON.stringify(k.allowedOrigins);
  await q`INSERT INTO api_keys (id, integrator_id, mode, secret_hash, label, created_at,
    expires_at, revoked_at, allowed_eiks, rotated_from, allowed_origins) VALUES (${k.id},
    ${k.integratorId}, ${k.mode}, ${k.secretHash}, ${k.label}, ${k.createdAt}, ${k.expiresAt},
    ${k.revokedAt}, ${allowed}, ${k.rotatedFrom ?? null}, ${origins})`;
}
