/**
 * PostgreSQL side of {@link NoticeStore} and {@link UsageStore}: notices unique on
 * (kind, subject_id, due_at), claimed with `FOR UPDATE SKIP LOCKED` and a lease, so concurrent
 * instances never claim the same notice; usage counters added with a sorted multi-row UPSERT
 * (a consistent lock order, so two instances flushing together cannot deadlock).
 * @module
 */
import type postgres from "postgres";
import type {
  ClaimNoticesOptions,
  NoticeDraft,
  NoticeOutcome,
  NoticeRecord,
  UsageFilter,
  UsageRow,
} from "./records.ts";
import { noticeFromRow, usageFromRow } from "./rows.ts";
import type { Q } from "./pg_contracts.ts";

/**
 * Insert a notice unless (kind, subject_id, due_at) exists.
 * @param q pool or transaction
 * @param n the draft
 * @returns true when inserted
 */
export async function insertNoticePg(q: Q, n: NoticeDraft): Promise<boolean> {
  const rows = await q`INSERT INTO notices (id, kind, subject_id, due_at, integrator_id,
    recipient, locale, params, status, attempts, next_attempt_at, created_at) VALUES (${n.id},
    ${n.kind}, ${n.subjectId}, ${n.dueAt}, ${n.integratorId}, ${n.recipient}, ${n.locale},
    ${JSON.stringify(n.params)}, ${n.recipient ? "pending" : "skipped"}, 0, ${n.dueAt},
    ${n.createdAt}) ON CONFLICT DO NOTHING RETURNING id`;
  return rows.length > 0;
}

/**
 * PostgreSQL implementation of `NoticeStore.claimNotices` (parameters, result and failures as
 * documented there).
 * @see NoticeStore.claimNotices
 */
export async function claimNoticesPg(q: Q, o: ClaimNoticesOptions): Promise<NoticeRecord[]> {
  const rows = await q`UPDATE notices n SET status = 'sending', claimed_by = ${o.owner},
    lease_until = ${o.at + o.leaseMs}, attempts = n.attempts + 1
    FROM (SELECT id FROM notices WHERE (status = 'pending' AND next_attempt_at <= ${o.at})
      OR (status = 'sending' AND lease_until <= ${o.at})
      ORDER BY next_attempt_at, id LIMIT ${o.limit} FOR UPDATE SKIP LOCKED) c
    WHERE n.id = c.id RETURNING n.*`;
  return rows.map(noticeFromRow).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
}

/**
 * PostgreSQL implementation of `NoticeStore.completeNotice` (parameters, result and failures as
 * documented there).
 * @see NoticeStore.completeNotice
 */
export async function completeNoticePg(
  q: Q,
  id: string,
  owner: string,
  o: NoticeOutcome,
): Promise<boolean> {
  const res = o.status === "pending"
    ? await q`UPDATE notices SET status = 'pending', next_attempt_at = ${o.retryAt},
      last_error = ${o.error}, lease_until = NULL
      WHERE id = ${id} AND claimed_by = ${owner} AND status = 'sending'`
    : await q`UPDATE notices SET status = ${o.status},
      sent_at = ${o.status === "sent" ? o.at : null},
      last_error = ${o.status === "sent" ? null : o.error}, lease_until = NULL
      WHERE id = ${id} AND claimed_by = ${owner} AND status = 'sending'`;
  return res.count > 0;
}

/**
 * PostgreSQL implementation of `NoticeStore.listNotices` (parameters, result and failures as
 * documented there).
 * @see NoticeStore.listNotices
 */
export async function listNoticesPg(
  q: Q,
  f: { kind?: string; subjectId?: string },
): Promise<NoticeRecord[]> {
  const k = f.kind ?? null, s = f.subjectId ?? null;
  const rows = await q`SELECT * FROM notices WHERE (${k}::text IS NULL OR kind = ${k})
    AND (${s}::text IS NULL OR subject_id = ${s}) ORDER BY due_at, id`;
  return rows.map(noticeFromRow);
}

const usageOrder = (r: UsageRow) =>
  [r.month, r.integratorId, r.contractId, r.keyId, r.typeId, r.eik].join("\u0000");

/**
 * PostgreSQL implementation of `UsageStore.addUsage` (parameters, result and failures as
 * documented there).
 * @see UsageStore.addUsage
 */
export async function addUsagePg(q: Q, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => (usageOrder(a) < usageOrder(b) ? -1 : 1));
  for (let i = 0; i < sorted.length; i += 500) {
    const chunk = sorted.slice(i, i + 500).map((r) => ({
      month: r.month,
      integrator_id: r.integratorId,
      contract_id: r.contractId,
      key_id: r.keyId,
      mode: r.mode,
      type_id: r.typeId,
      eik: r.eik,
      count: r.count,
    }));
    const sql = q as postgres.Sql;
    await q`INSERT INTO usage_monthly ${sql(chunk)}
      ON CONFLICT (month, integrator_id, contract_id, key_id, type_id, eik)
      DO UPDATE SET count = usage_monthly.count + excluded.count`;
  }
}

/**
 * PostgreSQL implementation of `UsageStore.listUsage` (parameters, result and failures as
 * documented there).
 * @see UsageStore.listUsage
 */
export async function listUsagePg(q: Q, f: UsageFilter): Promise<UsageRow[]> {
  const m = f.month ?? null, i = f.integratorId ?? null;
  const c = f.contractId ?? null, k = f.keyId ?? null;
  const rows = await q`SELECT * FROM usage_monthly WHERE (${m}::text IS NULL OR month = ${m})
    AND (${i}::text IS NULL OR integrator_id = ${i}) AND (${c}::text IS NULL OR contract_id = ${c})
    AND (${k}::text IS NULL OR key_id = ${k})
    ORDER BY month, integrator_id, contract_id, key_id, type_id, eik`;
  return rows.map(usageFromRow);
}
