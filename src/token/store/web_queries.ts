/**
 * {@link WebStore} on the one query layer (sql.ts): people, one-time links (taken by one
 * `UPDATE … RETURNING`, so a link works once across instances), sessions, passkeys, the audit
 * log, and the request log with the daily usage counters (request_log_queries.ts).
 * @module
 */
import { requestLogQueries } from "./request_log_queries.ts";
import { webUserFromRow } from "./team_queries.ts";
import { type Db, type Row, sql } from "./sql.ts";
import type {
  AuditEntry,
  PasskeyRecord,
  WebLink,
  WebRole,
  WebSession,
  WebStore,
  WebUser,
} from "./web_store.ts";
import type { CredentialStore } from "./store.ts";

const userFromRow = webUserFromRow;

const linkFromRow = (r: Row): WebLink => ({
  codeHash: String(r.code_hash),
  purpose: String(r.purpose) as WebLink["purpose"],
  email: String(r.email),
  payload: JSON.parse(String(r.payload)),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at == null ? null : Number(r.used_at),
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
  sql`INSERT INTO web_users (id, role, email, integrator_id, created_at, created_by,
    member_role) VALUES (${u.id}, ${u.role}, ${u.email}, ${u.integratorId}, ${u.createdAt},
    ${u.createdBy}, ${u.memberRole ?? "owner"}) ON CONFLICT DO NOTHING`;

/** Thrown inside a transaction to roll it back when the person exists. */
class Exists extends Error {}

/**
 * The web side of the token store.
 * @param db the database
 * @returns the {@link WebStore} methods
 */
export function webQueries(
  db: Db,
): Omit<WebStore, "requestLogWriter"> & Pick<CredentialStore, "createIntegratorWithUser"> {
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
  WebStore & CredentialStore,
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
      await db.run(sql`INSERT INTO web_sessions (id_hash, user_id, csrf, created_at, last_seen,
        device) VALUES (${s.idHash}, ${s.userId}, ${s.csrf}, ${s.createdAt}, ${s.lastSeen},
        ${s.device ?? ""})`);
    },
    async getSession(idHash) {
      const r = await db.get(sql`SELECT s.id_hash, s.user_id, s.csrf, s.created_at AS s_created,
        s.last_seen, s.device, u.* FROM web_sessions s JOIN web_users u ON u.id = s.user_id
        WHERE s.id_hash = ${idHash}`);
      if (!r) return null;
      return {
        session: {
          idHash: String(r.id_hash),
          userId: String(r.user_id),
          csrf: String(r.csrf),
          createdAt: Number(r.s_created),
          lastSeen: Number(r.last_seen),
          device: String(r.device ?? ""),
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
