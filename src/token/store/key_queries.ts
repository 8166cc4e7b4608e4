/**
 * {@link CredentialStore} on the one query layer: integrators, keys (hash only), the per-key EIK
 * set and the signing keys, for SQLite and PostgreSQL alike. The EIK claim is one transaction that
 * locks the key row (PostgreSQL) or the database (SQLite), so instances claiming for the same key
 * never exceed its limit together.
 * @module
 */
import { integratorFromRow, keyForIssueFromRow, keyFromRow, signingKeyFromRow } from "./rows.ts";
import { type Db, sql, type Step, tableReads, tuples } from "./sql.ts";
import type { ApiKeyRecord, ClaimResult, CredentialStore } from "./store.ts";

/** What {@link keyQueries} implements: all of {@link CredentialStore} but opening and closing. */
export type KeyQueries = Omit<CredentialStore, "migrate" | "close" | "createIntegratorWithUser">;

const json = (v: readonly string[] | null | undefined) => (v == null ? null : JSON.stringify(v));

const insertKey = (k: ApiKeyRecord) =>
  sql`INSERT INTO api_keys (id, integrator_id, mode, secret_hash, label, created_at,
    expires_at, revoked_at, allowed_eiks, rotated_from, allowed_origins) VALUES (${k.id},
    ${k.integratorId}, ${k.mode}, ${k.secretHash}, ${k.label}, ${k.createdAt}, ${k.expiresAt},
    ${k.revokedAt}, ${json(k.allowedEiks)}, ${k.rotatedFrom ?? null}, ${json(k.allowedOrigins)})`;

/**
 * The key side of the token store.
 * @param db the database
 * @returns the methods, as documented on {@link CredentialStore}
 */
export function keyQueries(db: Db): KeyQueries {
  const keys = tableReads(db, "api_keys", "created_at, id", keyFromRow);
  return {
    ...integratorQueries(db),
    ...signingKeyQueries(db),
    async createKey(k) {
      await db.run(insertKey(k));
    },
    async findKeyByHash(secretHash) {
      const r = await db.get(sql`SELECT k.*, i.name AS integrator_name,
          i.allowed_origins AS integrator_origins,
          i.verified_name AS integrator_verified_name, i.verified_eik AS integrator_verified_eik
        FROM api_keys k JOIN integrators i ON i.id = k.integrator_id
        WHERE k.secret_hash = ${secretHash}`);
      return r ? keyFromRow(r) : null;
    },
    async findKeyForIssue(secretHash, at) {
      // The issuance path's one round trip: the key, its integrator's name and origins and the
      // integrator's latest-started contract (columns prefixed c_).
      const r = await db.get(sql`SELECT k.*, i.name AS integrator_name,
          i.allowed_origins AS integrator_origins,
          i.verified_name AS integrator_verified_name, i.verified_eik AS integrator_verified_eik, c.id AS c_id, c.status AS c_status,
          c.starts_at AS c_starts_at, c.ends_at AS c_ends_at, c.terminated_at AS c_terminated_at
        FROM api_keys k JOIN integrators i ON i.id = k.integrator_id
        LEFT JOIN contracts c ON c.id = (SELECT id FROM contracts
          WHERE integrator_id = k.integrator_id AND starts_at <= ${at}
          ORDER BY starts_at DESC, created_at DESC LIMIT 1)
        WHERE k.secret_hash = ${secretHash}`);
      return r ? keyForIssueFromRow(r, at) : null;
    },
    getKey: (id) => keys.get(id),
    listKeys: (f = {}) => keys.list({ integrator_id: f.integratorId }),
    async revokeKey(id, at) {
      const r = await db.get(sql`UPDATE api_keys SET revoked_at = ${at}
        WHERE id = ${id} AND (revoked_at IS NULL OR revoked_at > ${at}) RETURNING *`);
      return r ? keyFromRow(r) : null;
    },
    async setAllowedEiks(id, allowedEiks) {
      return await db.run(
        sql`UPDATE api_keys SET allowed_eiks = ${json(allowedEiks)} WHERE id = ${id}`,
      ) > 0;
    },
    async setAllowedOrigins(id, origins) {
      return await db.run(
        sql`UPDATE api_keys SET allowed_origins = ${json(origins)} WHERE id = ${id}`,
      ) > 0;
    },
    rotateKey(oldId, fresh, oldRevokedAt, at) {
      return db.tx(function* (tx) {
        const n = yield* tx.run(sql`UPDATE api_keys SET revoked_at = ${oldRevokedAt}
          WHERE id = ${oldId} AND (revoked_at IS NULL OR revoked_at > ${at})`);
        if (n === 0) return false;
        yield* tx.run(insertKey(fresh));
        yield* tx.run(sql`INSERT INTO key_eiks (key_id, eik, first_used_at)
          SELECT ${fresh.id}, eik, first_used_at FROM key_eiks WHERE key_id = ${oldId}`);
        return true;
      });
    },
    claimEiks: (keyId, eiks, limit, at) => claimEiks(db, keyId, eiks, limit, at),
    async keyEiks(keyId) {
      const rows = await db.all(sql`SELECT eik FROM key_eiks WHERE key_id = ${keyId}
        ORDER BY first_used_at, eik`);
      return rows.map((r) => String(r.eik));
    },
  };
}

/** The integrators (companies with keys). */
function integratorQueries(
  db: Db,
): Pick<KeyQueries, "createIntegrator" | "getIntegrator" | "listIntegrators" | "updateIntegrator"> {
  const integrators = tableReads(db, "integrators", "created_at, id", integratorFromRow);
  return {
    async createIntegrator(i) {
      await db.run(sql`INSERT INTO integrators (id, name, email, locale, allowed_origins,
        created_at) VALUES (${i.id}, ${i.name}, ${i.email}, ${i.locale ?? "bg"},
        ${JSON.stringify(i.allowedOrigins)}, ${i.createdAt})`);
    },
    getIntegrator: (id) => integrators.get(id),
    listIntegrators: () => integrators.list(),
    async updateIntegrator(id, p) {
      const cur = await integrators.get(id);
      if (!cur) return null;
      const v = p.verified === undefined ? cur.verified ?? null : p.verified;
      const r = await db.get(sql`UPDATE integrators SET name = ${p.name ?? cur.name},
        email = ${p.email === undefined ? cur.email : p.email},
        locale = ${p.locale ?? cur.locale ?? "bg"},
        allowed_origins = ${JSON.stringify(p.allowedOrigins ?? cur.allowedOrigins)},
        verified_name = ${v === null ? null : v.legalName}, verified_eik = ${v?.eik ?? null},
        verified_at = ${v?.at ?? null}, verified_by = ${v?.by ?? null}
        WHERE id = ${id} RETURNING *`);
      return r ? integratorFromRow(r) : null;
    },
  };
}

/** The token service's own signing keys (EdDSA, the JWKS). */
function signingKeyQueries(
  db: Db,
): Pick<
  KeyQueries,
  "listSigningKeys" | "saveSigningKey" | "retireSigningKey" | "replaceSigningKeyPrivate"
> {
  return {
    async listSigningKeys() {
      const rows = await db.all(sql`SELECT * FROM signing_keys ORDER BY created_at, kid`);
      return rows.map(signingKeyFromRow);
    },
    async saveSigningKey(k) {
      // The partial unique index keeps one current key; a racing first start inserts nothing.
      await db.run(sql`INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at,
        retired_at) VALUES (${k.kid}, ${k.privateJwk}, ${k.publicJwk}, ${k.createdAt},
        ${k.retiredAt}) ON CONFLICT DO NOTHING`);
    },
    async retireSigningKey(kid, at) {
      await db.run(sql`UPDATE signing_keys SET retired_at = ${at}
        WHERE kid = ${kid} AND retired_at IS NULL`);
    },
    async replaceSigningKeyPrivate(kid, from, to) {
      return await db.run(sql`UPDATE signing_keys SET private_jwk = ${to}
        WHERE kid = ${kid} AND private_jwk = ${from}`) > 0;
    },
  };
}

/** Add EIKs to a key's set within its limit, in one transaction that locks the key (the module
 * comment; {@link CredentialStore.claimEiks}). */
function claimEiks(
  db: Db,
  keyId: string,
  eiks: readonly string[],
  limit: number | null,
  at: number,
): Promise<ClaimResult> {
  const wanted = [...new Set(eiks)];
  return db.tx(function* (tx): Generator<Step, ClaimResult, unknown> {
    // The limit is the integrator's (all its live keys together): its row is the lock, so two
    // keys of one integrator claim one after the other.
    yield* tx.lock(sql`SELECT i.id FROM integrators i JOIN api_keys k ON k.integrator_id = i.id
      WHERE k.id = ${keyId} FOR UPDATE OF i`);
    const rows = yield* tx.all(sql`SELECT DISTINCT e.eik AS eik FROM key_eiks e
      JOIN api_keys k ON k.id = e.key_id
      WHERE k.mode = 'live' AND k.integrator_id =
        (SELECT integrator_id FROM api_keys WHERE id = ${keyId})`);
    const have = new Set(rows.map((r) => String(r.eik)));
    const fresh = wanted.filter((e) => !have.has(e));
    if (limit !== null && have.size + fresh.length > limit) {
      return { ok: false, used: have.size, limit };
    }
    // The key's own set records what it used (the profile shows it); EIKs another key of the
    // integrator covered are added to it too, free.
    if (wanted.length > 0) {
      const values = tuples(wanted.map((eik) => [keyId, eik, at]));
      yield* tx.run(sql`INSERT INTO key_eiks (key_id, eik, first_used_at) VALUES ${values}
          ON CONFLICT DO NOTHING`);
    }
    return { ok: true };
  });
}
