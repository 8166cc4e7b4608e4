/**
 * {@link WebStore} on the one query layer (sql.ts): people, one-time links (taken by one
 * `UPDATE … RETURNING`, so a link works once across instances), sessions, the request log
 * (appended in chunks of multi-row INSERTs by the batching recorder, request_log.ts; on
 * PostgreSQL one array per column) and the daily usage counters (sorted multi-row UPSERTs, like
 * usage_monthly).
 * @module
 */
import { type Db, type Row, type Sql, sql, tuples } from "./sql.ts";
import type {
  AuditEntry,
  DailyUsageRow,
  PasskeyRecord,
  RequestLogEntry,
  WebLink,
  WebRole,
  WebSession,
  WebStore,
  WebUser,
} from "./web_store.ts";
import type { ApiKeyStore } from "./store.ts";

/** Rows per INSERT of a request log flush (8 parameters each). */
const LOG_CHUNK = 400;
/** Rows per INSERT of a request log flush on PostgreSQL (8 array parameters). */
const PG_LOG_CHUNK = 5000;

const userFromRow = (r: Row): WebUser => ({
  id: String(r.id),
  role: r.role === "admin" ? "admin" : "integrator",
  email: String(r.email),
  integratorId: r.integrator_id == null ? null : String(r.integrator_id),
  createdAt: Number(r.created_at),
  createdBy: r.created_by == null ? null : String(r.created_by),
});

const linkFromRow = (r: Row): WebLink => ({
  codeHash: String(r.code_hash),
  purpose: String(r.purpose) as WebLink["purpose"],
  email: String(r.email),
  payload: JSON.parse(String(r.payload)),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at == null ? null : Number(r.used_at),
});

const logFromRow = (r: Row): RequestLogEntry => ({
  at: Number(r.at),
  integratorId: String(r.integrator_id),
  keyId: String(r.key_id),
  typeId: String(r.type_id),
  eiks: String(r.eiks),
  status: Number(r.status),
  errorCode: r.error_code == null ? null : String(r.error_code),
  requestId: String(r.request_id),
});

const passkeyFromRow = (r: Row): PasskeyRecord => ({
  credentialId: String(r.credential_id),
  userId: String(r.user_id),
  publicKey: String(r.public_key),
  counter: Number(r.counter),
  transports: JSON.parse(String(r.transports)),
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at == null ? null : Number(r.last_used_at),
});

const insertUser = (u: WebUser) =>
  sql`INSERT INTO web_users (id, role, email, integrator_id, created_at, created_by)
    VALUES (${u.id}, ${u.role}, ${u.email}, ${u.integratorId}, ${u.createdAt}, ${u.createdBy})
    ON CONFLICT DO NOTHING`;

/** Thrown inside a transaction to roll it back when the person exists. */
class Exists extends Error {}

/**
 * The web side of the token store.
 * @param db the database
 * @returns the {@link WebStore} methods
 */
export function webQueries(
  db: Db,
): Omit<WebStore, "requestLogWriter"> & Pick<ApiKeyStore, "createIntegratorWithUser"> {
  return {
    ...peopleQueries(db),
    ...sessionQueries(db),
    ...passkeyQueries(db),
    ...auditQueries(db),
    ...requestLogQueries(db),
  };
}

/** The people of the pages: their accounts. */
function peopleQueries(db: Db): Pick<
  WebStore & ApiKeyStore,
  | "createIntegratorWithUser"
  | "createWebUser"
  | "findWebUser"
  | "listWebUsers"
> {
  return {
    async createIntegratorWithUser(i, u) {
      try {
        return await db.tx(function* (tx) {
          yield* tx.run(sql`INSERT INTO integrators (id, name, email, allowed_origins, created_at,
            locale) VALUES (${i.id}, ${i.name}, ${i.email}, ${JSON.stringify(i.allowedOrigins)},
            ${i.createdAt}, ${i.locale ?? "bg"})`);
          if ((yield* tx.run(insertUser(u))) === 0) throw new Exists();
          return true;
        });
      } catch (e) {
        if (e instanceof Exists) return false;
        throw e;
      }
    },
    createWebUser: async (u) => await db.run(insertUser(u)) > 0,
    async findWebUser(role: WebRole, email: string) {
      const r = await db.get(sql`SELECT * FROM web_users WHERE role = ${role}
        AND email = ${email}`);
      return r ? userFromRow(r) : null;
    },
    listWebUsers: async (role) =>
      (await db.all(sql`SELECT * FROM web_users WHERE role = ${role} ORDER BY created_at, id`))
        .map(userFromRow),
  };
}

/** The pages' one-time links and sessions. */
function sessionQueries(db: Db): Pick<
  WebStore,
  | "createLink"
  | "takeLink"
  | "createSession"
  | "getSession"
  | "touchSession"
  | "deleteSession"
  | "pruneWeb"
> {
  return {
    async createLink(l) {
      await db.run(sql`INSERT INTO web_links (code_hash, purpose, email, payload, created_at,
        expires_at) VALUES (${l.codeHash}, ${l.purpose}, ${l.email}, ${JSON.stringify(l.payload)},
        ${l.createdAt}, ${l.expiresAt})`);
    },
    async takeLink(codeHash, at) {
      const r = await db.get(sql`UPDATE web_links SET used_at = ${at}
        WHERE code_hash = ${codeHash} AND used_at IS NULL AND expires_at > ${at} RETURNING *`);
      return r ? linkFromRow(r) : null;
    },
    async createSession(s: WebSession) {
      await db.run(sql`INSERT INTO web_sessions (id_hash, user_id, csrf, created_at, last_seen)
        VALUES (${s.idHash}, ${s.userId}, ${s.csrf}, ${s.createdAt}, ${s.lastSeen})`);
    },
    async getSession(idHash) {
      const r = await db.get(sql`SELECT s.id_hash, s.user_id, s.csrf, s.created_at AS s_created,
        s.last_seen, u.* FROM web_sessions s JOIN web_users u ON u.id = s.user_id
        WHERE s.id_hash = ${idHash}`);
      if (!r) return null;
      return {
        session: {
          idHash: String(r.id_hash),
          userId: String(r.user_id),
          csrf: String(r.csrf),
          createdAt: Number(r.s_created),
          lastSeen: Number(r.last_seen),
        },
        user: userFromRow(r),
      };
    },
    async touchSession(idHash, at) {
      await db.run(sql`UPDATE web_sessions SET last_seen = ${at} WHERE id_hash = ${idHash}`);
    },
    async deleteSession(idHash) {
      await db.run(sql`DELETE FROM web_sessions WHERE id_hash = ${idHash}`);
    },
    async pruneWeb(idleBefore, expiredBefore) {
      return await db.run(sql`DELETE FROM web_sessions WHERE last_seen < ${idleBefore}`) +
        await db.run(sql`DELETE FROM web_links WHERE expires_at < ${expiredBefore}`) +
        await db.run(sql`DELETE FROM rate_limit_windows WHERE bucket LIKE 'w:%'
          AND window_start < ${expiredBefore}`);
    },
  };
}

/** The people's passkeys (WebAuthn credentials). */
function passkeyQueries(
  db: Db,
): Pick<WebStore, "addPasskey" | "findPasskey" | "listPasskeys" | "usePasskey"> {
  return {
    async addPasskey(p) {
      return await db.run(sql`INSERT INTO web_passkeys (credential_id, user_id, public_key,
        counter, transports, created_at) VALUES (${p.credentialId}, ${p.userId}, ${p.publicKey},
        ${p.counter}, ${JSON.stringify(p.transports)}, ${p.createdAt})
        ON CONFLICT DO NOTHING`) > 0;
    },
    async findPasskey(credentialId) {
      const r = await db.get(sql`SELECT p.credential_id, p.user_id, p.public_key, p.counter,
        p.transports, p.created_at AS p_created, p.last_used_at, u.* FROM web_passkeys p
        JOIN web_users u ON u.id = p.user_id WHERE p.credential_id = ${credentialId}`);
      if (!r) return null;
      return { passkey: passkeyFromRow({ ...r, created_at: r.p_created }), user: userFromRow(r) };
    },
    listPasskeys: async (userId) =>
      (await db.all(sql`SELECT * FROM web_passkeys WHERE user_id = ${userId}
        ORDER BY created_at, credential_id`)).map(passkeyFromRow),
    async usePasskey(credentialId, counter, at) {
      await db.run(sql`UPDATE web_passkeys SET counter = ${counter}, last_used_at = ${at}
        WHERE credential_id = ${credentialId}`);
    },
  };
}

/** The audit log of administrators' and integrators' changes. */
function auditQueries(db: Db): Pick<WebStore, "addAudit" | "listAudit"> {
  return {
    async addAudit(e) {
      await db.run(sql`INSERT INTO audit_log (at, actor_kind, actor, integrator_id, action,
        target, detail, request_id) VALUES (${e.at}, ${e.actorKind}, ${e.actor},
        ${e.integratorId}, ${e.action}, ${e.target}, ${e.detail}, ${e.requestId})`);
    },
    async listAudit(f) {
      const only = f.integratorId === undefined
        ? sql``
        : sql` WHERE integrator_id = ${f.integratorId}`;
      return (await db.all(sql`SELECT * FROM audit_log${only} ORDER BY at DESC
        LIMIT ${f.limit}`)).map((r): AuditEntry => ({
        at: Number(r.at),
        actorKind: String(r.actor_kind) as AuditEntry["actorKind"],
        actor: String(r.actor),
        integratorId: r.integrator_id == null ? null : String(r.integrator_id),
        action: String(r.action),
        target: String(r.target),
        detail: String(r.detail),
        requestId: String(r.request_id),
      }));
    },
  };
}

/** The request log of token requests and the daily usage totals. */
function requestLogQueries(db: Db): Pick<
  WebStore,
  | "addRequestLog"
  | "listRequestLog"
  | "pruneRequestLog"
  | "dailyUsageTotals"
  | "listDailyUsage"
> {
  return {
    addRequestLog: (entries, daily) => addRequestLog(db, entries, daily),
    async listRequestLog(f) {
      const key = f.keyId === undefined ? sql`` : sql` AND key_id = ${f.keyId}`;
      const status = f.status === undefined
        ? sql``
        : f.status === "errors"
        ? sql` AND status >= 400`
        : sql` AND status = ${f.status}`;
      return (await db.all(sql`SELECT * FROM request_log WHERE integrator_id = ${f.integratorId}
        AND at >= ${f.since}${key}${status} ORDER BY at DESC LIMIT ${f.limit}`)).map(logFromRow);
    },
    async pruneRequestLog(before, maxRows, dayBefore) {
      let n = await db.run(sql`DELETE FROM request_log WHERE at < ${before}`);
      const cut = await db.get(sql`SELECT at FROM request_log ORDER BY at DESC
        LIMIT 1 OFFSET ${maxRows}`);
      if (cut) n += await db.run(sql`DELETE FROM request_log WHERE at <= ${Number(cut.at)}`);
      await db.run(sql`DELETE FROM usage_daily WHERE day < ${dayBefore}`);
      return n;
    },
    async dailyUsageTotals(fromDay) {
      return (await db.all(sql`SELECT integrator_id, SUM(count) AS tokens FROM usage_daily
        WHERE day >= ${fromDay} GROUP BY integrator_id ORDER BY tokens DESC, integrator_id`))
        .map((r) => ({ integratorId: String(r.integrator_id), tokens: Number(r.tokens) }));
    },
    async listDailyUsage(integratorId, fromDay) {
      return (await db.all(sql`SELECT * FROM usage_daily WHERE integrator_id = ${integratorId}
        AND day >= ${fromDay} ORDER BY day, type_id, key_id`)).map((r) => ({
        day: String(r.day),
        integratorId: String(r.integrator_id),
        keyId: String(r.key_id),
        typeId: String(r.type_id),
        count: Number(r.count),
      }));
    },
  };
}

const dailyOrder = (d: DailyUsageRow) =>
  `${d.integratorId}\u0000${d.day}\u0000${d.keyId}\u0000${d.typeId}`;

/**
 * The daily counts as multi-row UPSERTs of {@link LOG_CHUNK} rows, sorted by their key (flushes of
 * several instances then lock the rows in one order).
 */
function dailyUpserts(daily: readonly DailyUsageRow[]): Sql[] {
  const sorted = [...daily].sort((a, b) =>
    dailyOrder(a) < dailyOrder(b) ? -1 : dailyOrder(a) > dailyOrder(b) ? 1 : 0
  );
  const out: Sql[] = [];
  for (let i = 0; i < sorted.length; i += LOG_CHUNK) {
    const rows = sorted.slice(i, i + LOG_CHUNK).map((d) => [
      d.day,
      d.integratorId,
      d.keyId,
      d.typeId,
      d.count,
    ]);
    out.push(sql`INSERT INTO usage_daily (day, integrator_id, key_id, type_id, count)
      VALUES ${tuples(rows)} ON CONFLICT (integrator_id, day, key_id, type_id)
      DO UPDATE SET count = usage_daily.count + excluded.count`);
  }
  return out;
}

/** Append request log entries and add their counts to the daily usage, in one transaction. */
async function addRequestLog(
  db: Db,
  entries: readonly RequestLogEntry[],
  daily: readonly DailyUsageRow[],
): Promise<void> {
  if (db.dialect === "postgres") return await addRequestLogPg(db, entries, daily);
  const statements: Sql[] = [];
  for (let i = 0; i < entries.length; i += LOG_CHUNK) {
    const rows = entries.slice(i, i + LOG_CHUNK).map((e) => [
      e.at,
      e.integratorId,
      e.keyId,
      e.typeId,
      e.eiks,
      e.status,
      e.errorCode,
      e.requestId,
    ]);
    statements.push(sql`INSERT INTO request_log (at, integrator_id, key_id, type_id, eiks,
      status, error_code, request_id) VALUES ${tuples(rows)}`);
  }
  statements.push(...dailyUpserts(daily));
  // One transaction: one commit (one WAL sync on SQLite) per flush, not one per chunk.
  await db.tx(function* (tx) {
    for (const q of statements) yield* tx.run(q);
  });
}

/**
 * {@link WebStore.addRequestLog} on PostgreSQL: the log rows as one array per column
 * (`unnest`), {@link PG_LOG_CHUNK} rows a statement, so that the driver encodes 8 arrays
 * instead of 8 parameters a row (about a third of the CPU time of multi-row VALUES in the
 * service's process, BENCHMARKS.md § The profile); the daily counts as sorted multi-row
 * UPSERTs. One transaction.
 * @throws the database's error (nothing written)
 */
async function addRequestLogPg(
  db: Db,
  entries: readonly RequestLogEntry[],
  daily: readonly DailyUsageRow[],
): Promise<void> {
  await db.tx(function* (tx) {
    for (let i = 0; i < entries.length; i += PG_LOG_CHUNK) {
      const part = entries.slice(i, i + PG_LOG_CHUNK);
      const col = <K extends keyof RequestLogEntry>(k: K) => part.map((e) => e[k]);
      yield* tx.run(sql`INSERT INTO request_log (at, integrator_id, key_id, type_id, eiks,
        status, error_code, request_id) SELECT * FROM unnest(${col("at")}::bigint[],
        ${col("integratorId")}::text[], ${col("keyId")}::text[], ${col("typeId")}::text[],
        ${col("eiks")}::text[], ${col("status")}::int[], ${col("errorCode")}::text[],
        ${col("requestId")}::text[])`);
    }
    for (const q of dailyUpserts(daily)) yield* tx.run(q);
  });
}
