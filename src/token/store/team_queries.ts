/**
 * {@link TeamStore} on the one query layer (sql.ts). Removing a person, changing a role and
 * removing a passkey are one transaction each; the rows counted for "at least one owner" / "at
 * least one administrator" / "the last passkey" are locked first (`FOR UPDATE` on PostgreSQL;
 * SQLite's write transaction locks the file), so two instances never both remove the last one.
 * @module
 */
import { type Db, type Row, sql } from "./sql.ts";
import type { TeamResult, TeamStore } from "./team_store.ts";
import type { MemberRole, WebSession, WebUser } from "./web_store.ts";

/** A person from a `web_users` row. */
export const webUserFromRow = (r: Row): WebUser => ({
  id: String(r.id),
  role: r.role === "admin" ? "admin" : "integrator",
  email: String(r.email),
  integratorId: r.integrator_id == null ? null : String(r.integrator_id),
  createdAt: Number(r.created_at),
  createdBy: r.created_by == null ? null : String(r.created_by),
  memberRole: (r.member_role ?? "owner") as MemberRole,
});

const sessionFromRow = (r: Row): WebSession => ({
  idHash: String(r.id_hash),
  userId: String(r.user_id),
  csrf: String(r.csrf),
  createdAt: Number(r.created_at),
  lastSeen: Number(r.last_seen),
  device: String(r.device ?? ""),
});

const refused = (reason: "not_found" | "last_owner" | "last_admin" | "last_passkey") =>
  ({ ok: false, reason }) as const;
const OK: TeamResult = { ok: true };

/**
 * The team side of the token store.
 * @param db the database
 * @returns the {@link TeamStore} methods
 */
export function teamQueries(db: Db): TeamStore {
  return {
    async getWebUser(id) {
      const r = await db.get(sql`SELECT * FROM web_users WHERE id = ${id}`);
      return r ? webUserFromRow(r) : null;
    },
    listMembers: async (integratorId) =>
      (await db.all(sql`SELECT * FROM web_users WHERE role = 'integrator'
        AND integrator_id = ${integratorId} ORDER BY created_at, id`)).map(webUserFromRow),
    setMemberRole(integratorId, userId, role) {
      return db.tx(function* (tx) {
        yield* tx.lock(sql`SELECT id FROM web_users WHERE role = 'integrator'
          AND integrator_id = ${integratorId} FOR UPDATE`);
        const team = yield* tx.all(sql`SELECT id, member_role FROM web_users
          WHERE role = 'integrator' AND integrator_id = ${integratorId}`);
        const me = team.find((r) => String(r.id) === userId);
        if (!me) return refused("not_found");
        const owners = team.filter((r) => r.member_role === "owner").length;
        if (me.member_role === "owner" && role !== "owner" && owners <= 1) {
          return refused("last_owner");
        }
        yield* tx.run(sql`UPDATE web_users SET member_role = ${role} WHERE id = ${userId}`);
        return OK;
      });
    },
    removeWebUser(userId, integratorId) {
      return db.tx(function* (tx) {
        const team = integratorId === null
          ? sql`role = 'admin'`
          : sql`role = 'integrator' AND integrator_id = ${integratorId}`;
        yield* tx.lock(sql`SELECT id FROM web_users WHERE ${team} FOR UPDATE`);
        const people = yield* tx.all(sql`SELECT id, member_role FROM web_users WHERE ${team}`);
        const me = people.find((r) => String(r.id) === userId);
        if (!me) return refused("not_found");
        if (integratorId === null && people.length <= 1) return refused("last_admin");
        if (
          integratorId !== null && me.member_role === "owner" &&
          people.filter((r) => r.member_role === "owner").length <= 1
        ) return refused("last_owner");
        yield* tx.run(sql`DELETE FROM web_sessions WHERE user_id = ${userId}`);
        yield* tx.run(sql`DELETE FROM web_passkeys WHERE user_id = ${userId}`);
        yield* tx.run(sql`DELETE FROM web_users WHERE id = ${userId}`);
        return OK;
      });
    },
    listSessions: async (userId) =>
      (await db.all(sql`SELECT * FROM web_sessions WHERE user_id = ${userId}
        ORDER BY last_seen DESC, id_hash`)).map(sessionFromRow),
    endSession: async (userId, idHash) =>
      await db.run(sql`DELETE FROM web_sessions WHERE user_id = ${userId}
        AND id_hash = ${idHash}`) > 0,
    removePasskey(userId, credentialId, keepOne) {
      return db.tx(function* (tx) {
        yield* tx.lock(sql`SELECT credential_id FROM web_passkeys WHERE user_id = ${userId}
          FOR UPDATE`);
        const mine = yield* tx.all(sql`SELECT credential_id FROM web_passkeys
          WHERE user_id = ${userId}`);
        if (!mine.some((r) => String(r.credential_id) === credentialId)) {
          return refused("not_found");
        }
        if (keepOne && mine.length <= 1) return refused("last_passkey");
        yield* tx.run(sql`DELETE FROM web_passkeys WHERE credential_id = ${credentialId}
          AND user_id = ${userId}`);
        return OK;
      });
    },
  };
}
