/**
 * {@link NoticeStore} and {@link BillingCountStore} on the one query layer. Notices are unique on
 * (kind, subject_id, due_at) and claimed with a lease by one UPDATE whose subquery picks the due
 * rows `FOR UPDATE SKIP LOCKED` on PostgreSQL (concurrent instances never claim the same
 * notice; on SQLite the statement holds the write lock). Usage counters are added with sorted
 * multi-row UPSERTs, each chunk one statement on its own (autocommit): its row locks are held
 * for that statement only, never across a round trip to a busy instance, and the sorted order
 * means two instances flushing together cannot deadlock (BENCHMARKS.md § Token issuance at
 * scale, revocation under load).
 * @module
 */
import { BillingCountWriteError, type NoticeDraft, type UsageRow } from "./records.ts";
import { noticeFromRow, usageFromRow } from "./rows.ts";
import { type Db, type Sql, sql, tableReads, tuples } from "./sql.ts";
import type { BillingCountStore, NoticeStore } from "./store.ts";

/**
 * The INSERT of a notice that does nothing when (kind, subject_id, due_at) exists (run alone by
 * `enqueueNotice`, or inside a termination's transaction).
 * @param n the draft
 * @returns the query; it changes 1 row when inserted, 0 otherwise
 */
export function insertNotice(n: NoticeDraft): Sql {
  return sql`INSERT INTO notices (id, kind, subject_id, due_at, integrator_id,
    recipient, locale, params, status, attempts, next_attempt_at, created_at) VALUES (${n.id},
    ${n.kind}, ${n.subjectId}, ${n.dueAt}, ${n.integratorId}, ${n.recipient}, ${n.locale},
    ${JSON.stringify(n.params)}, ${n.recipient ? "pending" : "skipped"}, 0, ${n.dueAt},
    ${n.createdAt}) ON CONFLICT DO NOTHING`;
}

/** Rows per INSERT of a usage flush (8 parameters each). */
const USAGE_CHUNK = 500;

const usageOrder = (r: UsageRow) =>
  [r.month, r.integratorId, r.contractId, r.keyId, r.typeId, r.eik].join("\u0000");

/**
 * The notice and usage side of the token store.
 * @param db the database
 * @returns the methods, as documented on {@link NoticeStore} and {@link BillingCountStore}
 */
export function noticeQueries(db: Db): NoticeStore & BillingCountStore {
  const notices = tableReads(db, "notices", "due_at, id", noticeFromRow);
  const usage = tableReads(
    db,
    "usage_monthly",
    "month, integrator_id, contract_id, key_id, type_id, eik",
    usageFromRow,
  );
  return {
    enqueueNotice: async (n) => await db.run(insertNotice(n)) > 0,
    async claimNotices(o) {
      const rows = await db.all(sql`UPDATE notices SET status = 'sending',
        claimed_by = ${o.owner}, lease_until = ${o.at + o.leaseMs}, attempts = attempts + 1
        FROM (SELECT id FROM notices WHERE (status = 'pending' AND next_attempt_at <= ${o.at})
          OR (status = 'sending' AND lease_until <= ${o.at})
          ORDER BY next_attempt_at, id LIMIT ${o.limit} FOR UPDATE SKIP LOCKED) AS due
        WHERE notices.id = due.id RETURNING *`);
      return rows.map(noticeFromRow).sort((a, b) =>
        a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1)
      );
    },
    async completeNotice(id, owner, o) {
      const n = o.status === "pending"
        ? await db.run(sql`UPDATE notices SET status = 'pending',
          next_attempt_at = ${o.retryAt}, last_error = ${o.error}, lease_until = NULL
          WHERE id = ${id} AND claimed_by = ${owner} AND status = 'sending'`)
        : await db.run(sql`UPDATE notices SET status = ${o.status},
          sent_at = ${o.status === "sent" ? o.at : null},
          last_error = ${o.status === "sent" ? null : o.error}, lease_until = NULL
          WHERE id = ${id} AND claimed_by = ${owner} AND status = 'sending'`);
      return n > 0;
    },
    listNotices: (f = {}) =>
      notices.list({ kind: f.kind, subject_id: f.subjectId, integrator_id: f.integratorId }),
    async addBillingCounts(rows) {
      const sorted = [...rows].sort((a, b) => (usageOrder(a) < usageOrder(b) ? -1 : 1));
      for (let i = 0; i < sorted.length; i += USAGE_CHUNK) {
        const values = tuples(
          sorted.slice(i, i + USAGE_CHUNK).map((r) => [
            r.month,
            r.integratorId,
            r.contractId,
            r.keyId,
            r.mode,
            r.typeId,
            r.eik,
            r.count,
          ]),
        );
        try {
          await db.run(sql`INSERT INTO usage_monthly (month, integrator_id, contract_id, key_id,
            mode, type_id, eik, count) VALUES ${values}
            ON CONFLICT (month, integrator_id, contract_id, key_id, type_id, eik)
            DO UPDATE SET count = usage_monthly.count + excluded.count`);
        } catch (e) {
          throw new BillingCountWriteError(sorted.slice(i), e);
        }
      }
    },
    listBillingCounts: (f = {}) =>
      usage.list({
        month: f.month,
        integrator_id: f.integratorId,
        contract_id: f.contractId,
        key_id: f.keyId,
      }),
  };
}
