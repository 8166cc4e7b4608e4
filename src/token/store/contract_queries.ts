/**
 * {@link ContractStore} on the one query layer: applications and contracts, with the key
 * changes of docs/token-service.md § Access phases done in the same transaction (approval lifts the
 * expiry of live keys; termination and expiry give them the pre-contract rules again). On
 * PostgreSQL the integrator's row (approval) or the contract's row (termination) is locked
 * with `FOR UPDATE`, so concurrent approvals and terminations on several instances serialise;
 * on SQLite the write transaction locks the database.
 * @module
 */
import type { ContractRecord } from "./records.ts";
import { insertNotice } from "./notice_queries.ts";
import { applicationFromRow, contractFromRow, contractStateFromRow, keyFromRow } from "./rows.ts";
import { type Db, sql, type Step, tableReads, type Tx } from "./sql.ts";
import type { ApproveResult, ContractStore, TerminateResult } from "./store.ts";

/**
 * Give an integrator's live keys the pre-contract rules again: expiry `endedAt + fallbackMs`
 * for keys without expiry or expiring later than that (keys that expired before the contract
 * keep their expiry).
 * @returns how many keys changed
 */
function fallBack(tx: Tx, k: ContractRecord, endedAt: number, fallbackMs: number) {
  const fb = endedAt + fallbackMs;
  return tx.run(sql`UPDATE api_keys SET expires_at = ${fb}
    WHERE integrator_id = ${k.integratorId} AND mode = 'live'
    AND (expires_at IS NULL OR (expires_at > ${k.startsAt} AND expires_at < ${fb}))`);
}

/**
 * The contract side of the token store.
 * @param db the database
 * @returns the methods, as documented on {@link ContractStore}
 */
export function contractQueries(db: Db): ContractStore {
  const contracts = tableReads(db, "contracts", "starts_at, id", contractFromRow);
  const self: ContractStore = {
    ...applicationQueries(db),
    async hasActiveContract(integratorId, at) {
      return (await self.contractState(integratorId, at)).active !== null;
    },
    async contractState(integratorId, at) {
      const r = await db.get(sql`SELECT * FROM contracts WHERE integrator_id = ${integratorId}
        AND starts_at <= ${at} ORDER BY starts_at DESC, created_at DESC LIMIT 1`);
      return contractStateFromRow(r, at);
    },
    getContract: (id) => contracts.get(id),
    listContracts: (f = {}) => contracts.list({ integrator_id: f.integratorId }),
    terminateContract(id, at, reason, fallbackMs, notice) {
      return db.tx(function* (tx): Generator<Step, TerminateResult, unknown> {
        const r = yield* tx.get(sql`SELECT * FROM contracts WHERE id = ${id} FOR UPDATE`);
        if (!r) return { ok: false, reason: "not_found" };
        const k = contractFromRow(r);
        if (k.status !== "active" || k.startsAt > at || (k.endsAt !== null && k.endsAt <= at)) {
          return { ok: false, reason: "not_in_force" };
        }
        yield* tx.run(sql`UPDATE contracts SET status = 'terminated', terminated_at = ${at},
          termination_reason = ${reason} WHERE id = ${id}`);
        const ended: ContractRecord = {
          ...k,
          status: "terminated",
          terminatedAt: at,
          terminationReason: reason,
        };
        const fallenBackKeys = yield* fallBack(tx, k, at, fallbackMs);
        yield* tx.run(insertNotice(notice(ended)));
        return { ok: true, contract: ended, fallenBackKeys };
      });
    },
    async expireContracts(at, fallbackMs) {
      const due = await db.all(sql`SELECT id FROM contracts WHERE status = 'active'
        AND ends_at IS NOT NULL AND ends_at <= ${at} ORDER BY ends_at, id`);
      const changed: ContractRecord[] = [];
      for (const { id } of due) {
        await db.tx(function* (tx) {
          const r = yield* tx.get(sql`UPDATE contracts SET status = 'expired'
            WHERE id = ${String(id)} AND status = 'active' RETURNING *`);
          if (!r) return; // another instance expired it first
          const k = contractFromRow(r);
          changed.push(k);
          const other = yield* tx.get(sql`SELECT 1 FROM contracts
            WHERE integrator_id = ${k.integratorId} AND status = 'active'
            AND starts_at <= ${at} AND (ends_at IS NULL OR ends_at > ${at})`);
          // non-null: the contracts selected here are those whose end has come, so endsAt is set
          if (!other) yield* fallBack(tx, k, k.endsAt!, fallbackMs);
        });
      }
      return changed;
    },
    async keysExpiringWithin(from, to) {
      const rows = await db.all(sql`SELECT * FROM api_keys WHERE expires_at > ${from}
        AND expires_at <= ${to} AND (revoked_at IS NULL OR revoked_at > expires_at)
        ORDER BY expires_at, id`);
      return rows.map(keyFromRow);
    },
    async contractsEndingWithin(from, to) {
      const rows = await db.all(sql`SELECT * FROM contracts WHERE status = 'active'
        AND ends_at > ${from} AND ends_at <= ${to} ORDER BY ends_at, id`);
      return rows.map(contractFromRow);
    },
  };
  return self;
}

/** The integrators' applications for a contract, and their review (approval makes one). */
function applicationQueries(
  db: Db,
): Pick<
  ContractStore,
  | "createApplication"
  | "getApplication"
  | "listApplications"
  | "approveApplication"
  | "rejectApplication"
> {
  const applications = tableReads(db, "applications", "submitted_at, id", applicationFromRow);
  return {
    async createApplication(a) {
      const n = await db.run(sql`INSERT INTO applications (id, integrator_id, company,
        contact_email, intended_use, status, submitted_at, decided_at, decision_note,
        contract_id) VALUES (${a.id}, ${a.integratorId}, ${a.company}, ${a.contactEmail},
        ${a.intendedUse}, ${a.status}, ${a.submittedAt}, ${a.decidedAt}, ${a.decisionNote},
        ${a.contractId}) ON CONFLICT DO NOTHING`);
      return n > 0 ? { ok: true } : { ok: false, reason: "pending_exists" };
    },
    getApplication: (id) => applications.get(id),
    listApplications: (f = {}) =>
      applications.list({ status: f.status, integrator_id: f.integratorId }),
    approveApplication(applicationId, k, at, note) {
      return db.tx(function* (tx): Generator<Step, ApproveResult, unknown> {
        const app = yield* tx.get(sql`SELECT integrator_id FROM applications
          WHERE id = ${applicationId}`);
        if (!app) return { ok: false, reason: "not_found" };
        const integratorId = String(app.integrator_id);
        yield* tx.lock(sql`SELECT id FROM integrators WHERE id = ${integratorId} FOR UPDATE`);
        const fresh = yield* tx.get(sql`SELECT status FROM applications
          WHERE id = ${applicationId} FOR UPDATE`);
        if (fresh?.status !== "pending") return { ok: false, reason: "not_pending" };
        const current = yield* tx.get(sql`UPDATE contracts SET status = 'superseded',
          terminated_at = ${at} WHERE integrator_id = ${integratorId} AND status = 'active'
          AND starts_at <= ${at} AND (ends_at IS NULL OR ends_at > ${at}) RETURNING id`);
        // An active contract whose end passed but the scheduler has not processed yet.
        yield* tx.run(sql`UPDATE contracts SET status = 'expired'
          WHERE integrator_id = ${integratorId} AND status = 'active'
          AND ends_at IS NOT NULL AND ends_at <= ${at}`);
        yield* tx.run(sql`INSERT INTO contracts (id, integrator_id, application_id, company,
          contact_email, status, starts_at, ends_at, terminated_at, termination_reason,
          created_at) VALUES (${k.id}, ${k.integratorId}, ${k.applicationId}, ${k.company},
          ${k.contactEmail}, 'active', ${k.startsAt}, ${k.endsAt}, NULL, NULL, ${k.createdAt})`);
        yield* tx.run(sql`UPDATE applications SET status = 'approved', decided_at = ${at},
          decision_note = ${note}, contract_id = ${k.id} WHERE id = ${applicationId}`);
        const liftedKeys = yield* tx.run(sql`UPDATE api_keys SET expires_at = NULL
          WHERE integrator_id = ${integratorId} AND mode = 'live' AND expires_at IS NOT NULL
          AND expires_at > ${at}`);
        yield* tx.run(sql`UPDATE integrators SET email = ${k.contactEmail}
          WHERE id = ${integratorId} AND email IS NULL`);
        const supersededId = current ? String(current.id) : null;
        return { ok: true, contract: k, supersededId, liftedKeys };
      });
    },
    async rejectApplication(applicationId, at, note) {
      const r = await db.get(sql`UPDATE applications SET status = 'rejected',
        decided_at = ${at}, decision_note = ${note}
        WHERE id = ${applicationId} AND status = 'pending' RETURNING *`);
      if (r) return { ok: true, application: applicationFromRow(r) };
      const known = await applications.get(applicationId);
      return { ok: false, reason: known ? "not_pending" : "not_found" };
    },
  };
}
