/**
 * The store's side of an integrator's team and of taking access back (docs/token-service.md
 * § Team and roles, § Taking access back): the people of one integrator with their roles, a
 * person's sessions (with the device) and passkeys to list and end, and removing a person. The
 * rules that must hold however many instances act at once (an integrator keeps at least one
 * owner, the desk at least one administrator) are checked inside one transaction that locks the
 * people concerned. Times are epoch milliseconds.
 * @module
 */
import type { MemberRole, WebSession, WebUser } from "./web_store.ts";

/** Why a change to the team was refused. */
export type TeamRefusal = "not_found" | "last_owner" | "last_admin" | "last_passkey";

/** The answer of a team change. */
export type TeamResult = { readonly ok: true } | {
  readonly ok: false;
  readonly reason: TeamRefusal;
};

/** People of a team, sessions and passkeys to list and to end. */
export interface TeamStore {
  /** @returns the person with this id, or null */
  getWebUser(id: string): Promise<WebUser | null>;
  /** @returns the people of one integrator, oldest first */
  listMembers(integratorId: string): Promise<WebUser[]>;
  /**
   * Change a member's role; the integrator keeps at least one owner.
   * @returns ok, or `not_found` (no such member of this integrator), `last_owner`
   */
  setMemberRole(integratorId: string, userId: string, role: MemberRole): Promise<TeamResult>;
  /**
   * Remove a person with their sessions and passkeys, at once for every instance. For an
   * integrator's member (`integratorId` given) the integrator keeps at least one owner; for an
   * administrator (`integratorId` null) the desk keeps at least one administrator.
   * @returns ok, or `not_found`, `last_owner`, `last_admin`
   */
  removeWebUser(userId: string, integratorId: string | null): Promise<TeamResult>;
  /** @returns a person's live sessions, the most recently seen first */
  listSessions(userId: string): Promise<WebSession[]>;
  /** End one of a person's sessions. @returns false when it is not theirs (or gone) */
  endSession(userId: string, idHash: string): Promise<boolean>;
  /**
   * Remove one of a person's passkeys.
   * @param keepOne refuse (`last_passkey`) when it is the person's only one
   * @returns ok, or `not_found`, `last_passkey`
   */
  removePasskey(userId: string, credentialId: string, keepOne: boolean): Promise<TeamResult>;
}
