/**
 * SQLite side of {@link ContractStore}: applications and contracts, with the key changes of
 * interface-spec.md § Access phases done in the same transaction (approval lifts the expiry of
 * live keys; termination and expiry give them the pre-contract rules again).
 * @module
 */
import type {
  ApplicationRecord,
  ApplicationStatus,
  ContractRecord,
  ContractState,
  NoticeDraft,
} from "./records.ts";
import {
  applicationFromRow,
  contractFromRow,
  contractStateFromRow,
  keyFromRow,
  type Row,
} from "./rows.ts";
import type { SqliteConn } from "./sqlite_conn.ts";
import type { ApiKeyRecord, ApproveResult, ContractFailure, TerminateResult } from "./store.ts";
import { insertNoticeSqlite } from "./sqlite_notices.ts";

const IN_FORCE = "status = 'active' AND starts_at <= ? AND (ends_at IS NULL OR ends_at > ?)";

/**
 * SQLite implementation of `ContractStore.contractState` (parameters, result and failures as
 * documented there).
 * @see ContractStore.contractState
 */
export function contractStateSqlite(
  c: SqliteConn,
  integratorId: string,
  at: number,
): ContractState {
  const r = c.prep(
    `SELECT * FROM contracts WHERE integrator_id = ? AND starts_at <= ?
      ORDER BY starts_at DESC, created_at DESC LIMIT 1`,
  ).get(integratorId, at) as Row | undefined;
  return contractStateFromRow(r, at);
}

/**
 * SQLite implementation of `ContractStore.createApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.createApplication
 */
export function createApplicationSqlite(
  c: SqliteConn,
  a: ApplicationRecord,
): { ok: true } | { ok: false; reason: ContractFailure } {
  const res = c.prep(
    `INSERT INTO applications (id, integrator_id, company, contact_email, intended_use, status,
      submitted_at, decided_at, decision_note, contract_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING`,
  ).run(
    a.id,
    a.integratorId,
    a.company,
    a.contactEmail,
    a.intendedUse,
    a.status,
    a.submittedAt,
    a.decidedAt,
    a.decisionNote,
    a.contractId,
  );
  return Number(res.changes) > 0 ? { ok: true } : { ok: false, reason: "pending_exists" };
}

/**
 * SQLite implementation of `ContractStore.getApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.getApplication
 */
export function getApplicationSqlite(c: SqliteConn, id: string): ApplicationRecord | null {
  const r = c.prep("SELECT * FROM applications WHERE id = ?").get(id) as Row | undefined;
  return r ? applicationFromRow(r) : null;
}

/**
 * SQLite implementation of `ContractStore.listApplications` (parameters, result and failures as
 * documented there).
 * @see ContractStore.listApplications
 */
export function listApplicationsSqlite(
  c: SqliteConn,
  f: { status?: ApplicationStatus; integratorId?: string },
): ApplicationRecord[] {
  const rows = c.prep(
    `SELECT * FROM applications WHERE (? IS NULL OR status = ?) AND (? IS NULL OR integrator_id = ?)
      ORDER BY submitted_at, id`,
  ).all(f.status ?? null, f.status ?? null, f.integratorId ?? null, f.integratorId ?? null);
  return (rows as Row[]).map(applicationFromRow);
}

/**
 * SQLite implementation of `ContractStore.approveApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.approveApplication
 */
export function approveApplicationSqlite(
  c: SqliteConn,
  applicationId: string,
  contract: ContractRecord,
  at: number,
  note: string | null,
): ApproveResult {
  return c.tx((): ApproveResult => {
    const app = getApplicationSqlite(c, applicationId);
    if (!app) return { ok: false, reason: "not_found" };
    if (app.status !== "pending") return { ok: false, reason: "not_pending" };
    const current = c.prep(`SELECT id FROM contracts WHERE integrator_id = ? AND ${IN_FORCE}`)
      .get(app.integratorId, at, at) as Row | undefined;
    if (current) {
      c.prep("UPDATE contracts SET status = 'superseded', terminated_at = ? WHERE id = ?")
        .run(at, String(current.id));
    }
    // An active contract whose end passed but the scheduler has not processed yet.
    c.prep(
      `UPDATE contracts SET status = 'expired' WHERE integrator_id = ? AND status = 'active'
        AND ends_at IS NOT NULL AND ends_at <= ?`,
    ).run(app.integratorId, at);
    c.prep(
      `INSERT INTO contracts (id, integrator_id, application_id, company, contact_email, status,
        starts_at, ends_at, terminated_at, termination_reason, created_at)
        VALUES (?, ?, ?, ?, ?, 'active', ?, ?, NULL, NULL, ?)`,
    ).run(
      contract.id,
      contract.integratorId,
      contract.applicationId,
      contract.company,
      contract.contactEmail,
      contract.startsAt,
      contract.endsAt,
      contract.createdAt,
    );
    c.prep(
      `UPDATE applications SET status = 'approved', decided_at = ?, decision_note = ?,
        contract_id = ? WHERE id = ?`,
    ).run(at, note, contract.id, applicationId);
    const lifted = c.prep(
      `UPDATE api_keys SET expires_at = NULL WHERE integrator_id = ? AND mode = 'live'
        AND expires_at IS NOT NULL AND expires_at > ?`,
    ).run(app.integratorId, at);
    c.prep("UPDATE integrators SET email = ? WHERE id = ? AND email IS NULL")
      .run(contract.contactEmail, app.integratorId);
    return {
      ok: true,
      contract,
      supersededId: current ? String(current.id) : null,
      liftedKeys: Number(lifted.changes),
    };
  });
}

/**
 * SQLite implementation of `ContractStore.rejectApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.rejectApplication
 */
export function rejectApplicationSqlite(
  c: SqliteConn,
  applicationId: string,
  at: number,
  note: string | null,
): { ok: true; application: ApplicationRecord } | { ok: false; reason: ContractFailure } {
  const res = c.prep(
    `UPDATE applications SET status = 'rejected', decided_at = ?, decision_note = ?
      WHERE id = ? AND status = 'pending'`,
  ).run(at, note, applicationId);
  const app = getApplicationSqlite(c, applicationId);
  if (!app) return { ok: false, reason: "not_found" };
  if (Number(res.changes) === 0) return { ok: false, reason: "not_pending" };
  return { ok: true, application: app };
}

/**
 * SQLite implementation of `ContractStore.getContract` (parameters, result and failures as
 * documented there).
 * @see ContractStore.getContract
 */
export function getContractSqlite(c: SqliteConn, id: string): ContractRecord | null {
  const r = c.prep("SELECT * FROM contracts WHERE id = ?").get(id) as Row | undefined;
  return r ? contractFromRow(r) : null;
}

/**
 * SQLite implementation of `ContractStore.listContracts` (parameters, result and failures as
 * documented there).
 * @see ContractStore.listContracts
 */
export function listContractsSqlite(
  c: SqliteConn,
  f: { integratorId?: string },
): ContractRecord[] {
  const rows = c.prep(
    "SELECT * FROM contracts WHERE (? IS NULL OR integrator_id = ?) ORDER BY starts_at, id",
  ).all(f.integratorId ?? null, f.integratorId ?? null);
  return (rows as Row[]).map(contractFromRow);
}

function fallBack(c: SqliteConn, k: ContractRecord, endedAt: number, fallbackMs: number): number {
  const fallback = endedAt + fallbackMs;
  const res = c.prep(
    `UPDATE api_keys SET expires_at = ? WHERE integrator_id = ? AND mode = 'live'
      AND (expires_at IS NULL OR (expires_at > ? AND expires_at < ?))`,
  ).run(fallback, k.integratorId, k.startsAt, fallback);
  return Number(res.changes);
}

/**
 * SQLite implementation of `ContractStore.terminateContract` (parameters, result and failures as
 * documented there).
 * @see ContractStore.terminateContract
 */
export function terminateContractSqlite(
  c: SqliteConn,
  id: string,
  at: number,
  reason: string | null,
  fallbackMs: number,
  notice: (k: ContractRecord) => NoticeDraft,
): TerminateResult {
  return c.tx((): TerminateResult => {
    const k = getContractSqlite(c, id);
    if (!k) return { ok: false, reason: "not_found" };
    if (k.status !== "active" || k.startsAt > at || (k.endsAt !== null && k.endsAt <= at)) {
      return { ok: false, reason: "not_in_force" };
    }
    c.prep(
      "UPDATE contracts SET status = 'terminated', terminated_at = ?, termination_reason = ? WHERE id = ?",
    ).run(at, reason, id);
    const ended: ContractRecord = {
      ...k,
      status: "terminated",
      terminatedAt: at,
      terminationReason: reason,
    };
    const fallenBackKeys = fallBack(c, k, at, fallbackMs);
    insertNoticeSqlite(c, notice(ended));
    return { ok: true, contract: ended, fallenBackKeys };
  });
}

/**
 * SQLite implementation of `ContractStore.expireContracts` (parameters, result and failures as
 * documented there).
 * @see ContractStore.expireContracts
 */
export function expireContractsSqlite(
  c: SqliteConn,
  at: number,
  fallbackMs: number,
): ContractRecord[] {
  const due = (c.prep(
    "SELECT * FROM contracts WHERE status = 'active' AND ends_at IS NOT NULL AND ends_at <= ?",
  ).all(at) as Row[]).map(contractFromRow);
  const changed: ContractRecord[] = [];
  for (const k of due) {
    c.tx(() => {
      const res = c.prep(
        "UPDATE contracts SET status = 'expired' WHERE id = ? AND status = 'active'",
      )
        .run(k.id);
      if (Number(res.changes) === 0) return;
      changed.push({ ...k, status: "expired" });
      const other = c.prep(`SELECT 1 FROM contracts WHERE integrator_id = ? AND ${IN_FORCE}`)
        .get(k.integratorId, at, at);
      if (!other) fallBack(c, k, k.endsAt!, fallbackMs);
    });
  }
  return changed;
}

/**
 * SQLite implementation of `ContractStore.keysExpiringWithin` (parameters, result and failures as
 * documented there).
 * @see ContractStore.keysExpiringWithin
 */
export function keysExpiringWithinSqlite(c: SqliteConn, from: number, to: number): ApiKeyRecord[] {
  const rows = c.prep(
    `SELECT * FROM api_keys WHERE expires_at > ? AND expires_at <= ?
      AND (revoked_at IS NULL OR revoked_at > expires_at) ORDER BY expires_at, id`,
  ).all(from, to);
  return (rows as Row[]).map(keyFromRow);
}

/**
 * SQLite implementation of `ContractStore.contractsEndingWithin` (parameters, result and failures as
 * documented there).
 * @see ContractStore.contractsEndingWithin
 */
export function contractsEndingWithinSqlite(
  c: SqliteConn,
  from: number,
  to: number,
): ContractRecord[] {
  const rows = c.prep(
    `SELECT * FROM contracts WHERE status = 'active' AND ends_at > ? AND ends_at <= ?
      ORDER BY ends_at, id`,
  ).all(from, to);
  return (rows as Row[]).map(contractFromRow);
}
