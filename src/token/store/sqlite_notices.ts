/**
 * SQLite side of {@link NoticeStore} and {@link UsageStore}: notices unique on
 * (kind, subject_id, due_at) and claimed with a lease inside a write transaction; monthly usage
 * counters added with an UPSERT.
 * @module
 */
import type {
  ClaimNoticesOptions,
  NoticeDraft,
  NoticeOutcome,
  NoticeRecord,
  UsageFilter,
  UsageRow,
} from "./records.ts";
import { noticeFromRow, type Row, usageFromRow } from "./rows.ts";
import type { SqliteConn } from "./sqlite_conn.ts";

/**
 * Insert a notice unless (kind, subject_id, due_at) exists (no transaction of its own).
 * @param c connection
 * @param n the draft
 * @returns true when inserted
 */
export function insertNoticeSqlite(c: SqliteConn, n: NoticeDraft): boolean {
  const res = c.prep(
    `INSERT INTO notices (id, kind, subject_id, due_at, integrator_id, recipient, locale, params,
      status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
      ON CONFLICT DO NOTHING`,
  ).run(
    n.id,
    n.kind,
    n.subjectId,
    n.dueAt,
    n.integratorId,
    n.recipient,
    n.locale,
    JSON.stringify(n.params),
    n.recipient ? "pending" : "skipped",
    n.dueAt,
    n.createdAt,
  );
  return Number(res.changes) > 0;
}

/**
 * SQLite implementation of `NoticeStore.claimNotices` (parameters, result and failures as
 * documented there).
 * @see NoticeStore.claimNotices
 */
export function claimNoticesSqlite(c: SqliteConn, o: ClaimNoticesOptions): NoticeRecord[] {
  return c.tx(() => {
    const rows = c.prep(
      `SELECT id FROM notices WHERE (status = 'pending' AND next_attempt_at <= ?)
        OR (status = 'sending' AND lease_until <= ?) ORDER BY next_attempt_at, id LIMIT ?`,
    ).all(o.at, o.at, o.limit) as Row[];
    const upd = c.prep(
      `UPDATE notices SET status = 'sending', claimed_by = ?, lease_until = ?,
        attempts = attempts + 1 WHERE id = ? RETURNING *`,
    );
    return rows.map((r) =>
      noticeFromRow(upd.get(o.owner, o.at + o.leaseMs, r.id as string) as Row)
    );
  });
}

/**
 * SQLite implementation of `NoticeStore.completeNotice` (parameters, result and failures as
 * documented there).
 * @see NoticeStore.completeNotice
 */
export function completeNoticeSqlite(
  c: SqliteConn,
  id: string,
  owner: string,
  o: NoticeOutcome,
): boolean {
  const res = o.status === "pending"
    ? c.prep(
      `UPDATE notices SET status = 'pending', next_attempt_at = ?, last_error = ?,
        lease_until = NULL WHERE id = ? AND claimed_by = ? AND status = 'sending'`,
    ).run(o.retryAt, o.error, id, owner)
    : c.prep(
      `UPDATE notices SET status = ?, sent_at = ?, last_error = ?, lease_until = NULL
        WHERE id = ? AND claimed_by = ? AND status = 'sending'`,
    ).run(
      o.status,
      o.status === "sent" ? o.at : null,
      o.status === "sent" ? null : o.error,
      id,
      owner,
    );
  return Number(res.changes) > 0;
}

/**
 * SQLite implementation of `NoticeStore.listNotices` (parameters, result and failures as
 * documented there).
 * @see NoticeStore.listNotices
 */
export function listNoticesSqlite(
  c: SqliteConn,
  f: { kind?: string; subjectId?: string },
): NoticeRecord[] {
  const rows = c.prep(
    `SELECT * FROM notices WHERE (? IS NULL OR kind = ?) AND (? IS NULL OR subject_id = ?)
      ORDER BY due_at, id`,
  ).all(f.kind ?? null, f.kind ?? null, f.subjectId ?? null, f.subjectId ?? null);
  return (rows as Row[]).map(noticeFromRow);
}

/**
 * SQLite implementation of `UsageStore.addUsage` (parameters, result and failures as
 * documented there).
 * @see UsageStore.addUsage
 */
export function addUsageSqlite(c: SqliteConn, rows: readonly UsageRow[]): void {
  if (rows.length === 0) return;
  const up = c.prep(
    `INSERT INTO usage_monthly (month, integrator_id, contract_id, key_id, mode, type_id, eik, count)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (month, integrator_id, contract_id, key_id, type_id, eik)
      DO UPDATE SET count = count + excluded.count`,
  );
  c.tx(() => {
    for (const r of rows) {
      up.run(r.month, r.integratorId, r.contractId, r.keyId, r.mode, r.typeId, r.eik, r.count);
    }
  });
}

/**
 * SQLite implementation of `UsageStore.listUsage` (parameters, result and failures as
 * documented there).
 * @see UsageStore.listUsage
 */
export function listUsageSqlite(c: SqliteConn, f: UsageFilter): UsageRow[] {
  const rows = c.prep(
    `SELECT * FROM usage_monthly WHERE (? IS NULL OR month = ?) AND (? IS NULL OR integrator_id = ?)
      AND (? IS NULL OR contract_id = ?) AND (? IS NULL OR key_id = ?)
      ORDER BY month, integrator_id, contract_id, key_id, type_id, eik`,
  ).all(
    f.month ?? null,
    f.month ?? null,
    f.integratorId ?? null,
    f.integratorId ?? null,
    f.contractId ?? null,
    f.contractId ?? null,
    f.keyId ?? null,
    f.keyId ?? null,
  );
  return (rows as Row[]).map(usageFromRow);
}
