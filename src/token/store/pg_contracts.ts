/**
 * PostgreSQL side of {@link ContractStore}: applications and contracts, with the key changes of
 * interface-spec.md § Access phases done in the same transaction. The integrator row is locked
 * (`FOR UPDATE`) while its contracts change, so concurrent approvals and terminations on several
 * instances serialise.
 * @module
 */
import type postgres from "postgres";
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
import { insertNoticePg } from "./pg_notices.ts";
import type { ApiKeyRecord, ApproveResult, ContractFailure, TerminateResult } from "./store.ts";

/** A connection pool or a transaction. */
export type Q = postgres.Sql | postgres.TransactionSql;

/**
 * PostgreSQL implementation of `ContractStore.contractState` (parameters, result and failures as
 * documented there).
 * @see ContractStore.contractState
 */
export async function contractStatePg(
  q: Q,
  integratorId: string,
  at: number,
): Promise<ContractState> {
  const [r] = await q`SELECT * FROM contracts WHERE integrator_id = ${integratorId}
    AND starts_at <= ${at} ORDER BY starts_at DESC, created_at DESC LIMIT 1`;
  return contractStateFromRow(r as Row | undefined, at);
}

/**
 * PostgreSQL implementation of `ContractStore.createApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.createApplication
 */
export async function createApplicationPg(
  q: Q,
  a: ApplicationRecord,
): Promise<{ ok: true } | { ok: false; reason: ContractFailure }> {
  const rows = await q`INSERT INTO applications (id, integrator_id, company, contact_email,
    intended_use, status, submitted_at, decided_at, decision_note, contract_id) VALUES (${a.id},
    ${a.integratorId}, ${a.company}, ${a.contactEmail}, ${a.intendedUse}, ${a.status},
    ${a.submittedAt}, ${a.decidedAt}, ${a.decisionNote}, ${a.contractId})
    ON CONFLICT DO NOTHING RETURNING id`;
  return rows.length > 0 ? { ok: true } : { ok: false, reason: "pending_exists" };
}

/**
 * PostgreSQL implementation of `ContractStore.getApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.getApplication
 */
export async function getApplicationPg(q: Q, id: string): Promise<ApplicationRecord | null> {
  const [r] = await q`SELECT * FROM applications WHERE id = ${id}`;
  return r ? applicationFromRow(r) : null;
}

/**
 * PostgreSQL implementation of `ContractStore.listApplications` (parameters, result and failures as
 * documented there).
 * @see ContractStore.listApplications
 */
export async function listApplicationsPg(
  q: Q,
  f: { status?: ApplicationStatus; integratorId?: string },
): Promise<ApplicationRecord[]> {
  const s = f.status ?? null, i = f.integratorId ?? null;
  const rows = await q`SELECT * FROM applications WHERE (${s}::text IS NULL OR status = ${s})
    AND (${i}::text IS NULL OR integrator_id = ${i}) ORDER BY submitted_at, id`;
  return rows.map(applicationFromRow);
}

/**
 * PostgreSQL implementation of `ContractStore.approveApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.approveApplication
 */
export function approveApplicationPg(
  sql: postgres.Sql,
  applicationId: string,
  k: ContractRecord,
  at: number,
  note: string | null,
): Promise<ApproveResult> {
  return sql.begin(async (tx): Promise<ApproveResult> => {
    const app = await getApplicationPg(tx, applicationId);
    if (!app) return { ok: false, reason: "not_found" };
    await tx`SELECT id FROM integrators WHERE id = ${app.integratorId} FOR UPDATE`;
    const [fresh] =
      await tx`SELECT status FROM applications WHERE id = ${applicationId} FOR UPDATE`;
    if (fresh?.status !== "pending") return { ok: false, reason: "not_pending" };
    const [current] = await tx`UPDATE contracts SET status = 'superseded', terminated_at = ${at}
      WHERE integrator_id = ${app.integratorId} AND status = 'active' AND starts_at <= ${at}
      AND (ends_at IS NULL OR ends_at > ${at}) RETURNING id`;
    await tx`UPDATE contracts SET status = 'expired' WHERE integrator_id = ${app.integratorId}
      AND status = 'active' AND ends_at IS NOT NULL AND ends_at <= ${at}`;
    await tx`INSERT INTO contracts (id, integrator_id, application_id, company, contact_email,
      status, starts_at, ends_at, terminated_at, termination_reason, created_at) VALUES (${k.id},
      ${k.integratorId}, ${k.applicationId}, ${k.company}, ${k.contactEmail}, 'active',
      ${k.startsAt}, ${k.endsAt}, NULL, NULL, ${k.createdAt})`;
    await tx`UPDATE applications SET status = 'approved', decided_at = ${at},
      decision_note = ${note}, contract_id = ${k.id} WHERE id = ${applicationId}`;
    const lifted = await tx`UPDATE api_keys SET expires_at = NULL
      WHERE integrator_id = ${app.integratorId} AND mode = 'live' AND expires_at IS NOT NULL
      AND expires_at > ${at}`;
    await tx`UPDATE integrators SET email = ${k.contactEmail}
      WHERE id = ${app.integratorId} AND email IS NULL`;
    return {
      ok: true,
      contract: k,
      supersededId: current ? String(current.id) : null,
      liftedKeys: lifted.count,
    };
  });
}

/**
 * PostgreSQL implementation of `ContractStore.rejectApplication` (parameters, result and failures as
 * documented there).
 * @see ContractStore.rejectApplication
 */
export async function rejectApplicationPg(
  q: Q,
  applicationId: string,
  at: number,
  note: string | null,
): Promise<{ ok: true; application: ApplicationRecord } | { ok: false; reason: ContractFailure }> {
  const [r] = await q`UPDATE applications SET status = 'rejected', decided_at = ${at},
    decision_note = ${note} WHERE id = ${applicationId} AND status = 'pending' RETURNING *`;
  if (r) return { ok: true, application: applicationFromRow(r) };
  return {
    ok: false,
    reason: (await getApplicationPg(q, applicationId)) ? "not_pending" : "not_found",
  };
}

/**
 * PostgreSQL implementation of `ContractStore.getContract` (parameters, result and failures as
 * documented there).
 * @see ContractStore.getContract
 */
export async function getContractPg(q: Q, id: string): Promise<ContractRecord | null> {
  const [r] = await q`SELECT * FROM contracts WHERE id = ${id}`;
  return r ? contractFromRow(r) : null;
}

/**
 * PostgreSQL implementation of `ContractStore.listContracts` (parameters, result and failures as
 * documented there).
 * @see ContractStore.listContracts
 */
export async function listContractsPg(
  q: Q,
  f: { integratorId?: string },
): Promise<ContractRecord[]> {
  const i = f.integratorId ?? null;
  const rows = await q`SELECT * FROM contracts WHERE (${i}::text IS NULL OR integrator_id = ${i})
    ORDER BY starts_at, id`;
  return rows.map(contractFromRow);
}

async function fallBack(
  tx: Q,
  k: ContractRecord,
  endedAt: number,
  fallbackMs: number,
): Promise<number> {
  const fb = endedAt + fallbackMs;
  const res = await tx`UPDATE api_keys SET expires_at = ${fb}
    WHERE integrator_id = ${k.integratorId} AND mode = 'live'
    AND (expires_at IS NULL OR (expires_at > ${k.startsAt} AND expires_at < ${fb}))`;
  return res.count;
}

/**
 * PostgreSQL implementation of `ContractStore.terminateContract` (parameters, result and failures as
 * documented there).
 * @see ContractStore.terminateContract
 */
export function terminateContractPg(
  sql: postgres.Sql,
  id: string,
  at: number,
  reason: string | null,
  fallbackMs: number,
  notice: (c: ContractRecord) => NoticeDraft,
): Promise<TerminateResult> {
  return sql.begin(async (tx): Promise<TerminateResult> => {
    const [r] = await tx`SELECT * FROM contracts WHERE id = ${id} FOR UPDATE`;
    if (!r) return { ok: false, reason: "not_found" };
    const k = contractFromRow(r);
    if (k.status !== "active" || k.startsAt > at || (k.endsAt !== null && k.endsAt <= at)) {
      return { ok: false, reason: "not_in_force" };
    }
    await tx`UPDATE contracts SET status = 'terminated', terminated_at = ${at},
      termination_reason = ${reason} WHERE id = ${id}`;
    const ended: ContractRecord = {
      ...k,
      status: "terminated",
      terminatedAt: at,
      terminationReason: reason,
    };
    const fallenBackKeys = await fallBack(tx, k, at, fallbackMs);
    await insertNoticePg(tx, notice(ended));
    return { ok: true, contract: ended, fallenBackKeys };
  });
}

/**
 * PostgreSQL implementation of `ContractStore.expireContracts` (parameters, result and failures as
 * documented there).
 * @see ContractStore.expireContracts
 */
export async function expireContractsPg(
  sql: postgres.Sql,
  at: number,
  fallbackMs: number,
): Promise<ContractRecord[]> {
  const due = await sql`SELECT id FROM contracts WHERE status = 'active'
    AND ends_at IS NOT NULL AND ends_at <= ${at}`;
  const changed: ContractRecord[] = [];
  for (const { id } of due) {
    await sql.begin(async (tx) => {
      const [r] = await tx`UPDATE contracts SET status = 'expired'
        WHERE id = ${String(id)} AND status = 'active' RETURNING *`;
      if (!r) return;
      const k = contractFromRow(r);
      changed.push(k);
      const [other] = await tx`SELECT 1 FROM contracts WHERE integrator_id = ${k.integratorId}
        AND status = 'active' AND starts_at <= ${at} AND (ends_at IS NULL OR ends_at > ${at})`;
      if (!other) await fallBack(tx, k, k.endsAt!, fallbackMs);
    });
  }
  return changed;
}

/**
 * PostgreSQL implementation of `ContractStore.keysExpiringWithin` (parameters, result and failures as
 * documented there).
 * @see ContractStore.keysExpiringWithin
 */
export async function keysExpiringWithinPg(
  q: Q,
  from: number,
  to: number,
): Promise<ApiKeyRecord[]> {
  const rows = await q`SELECT * FROM api_keys WHERE expires_at > ${from} AND expires_at <= ${to}
    AND (revoked_at IS NULL OR revoked_at > expires_at) ORDER BY expires_at, id`;
  return rows.map(keyFromRow);
}

/**
 * PostgreSQL implementation of `ContractStore.contractsEndingWithin` (parameters, result and failures as
 * documented there).
 * @see ContractStore.contractsEndingWithin
 */
export async function contractsEndingWithinPg(
  q: Q,
  from: number,
  to: number,
): Promise<ContractRecord[]> {
  const rows = await q`SELECT * FROM contracts WHERE status = 'active' AND ends_at > ${from}
    AND ends_at <= ${to} ORDER BY ends_at, id`;
  return rows.map(contractFromRow);
}
