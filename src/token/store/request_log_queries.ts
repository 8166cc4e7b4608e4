/**
 * The request log of token requests and the daily usage counters on the one query layer
 * (sql.ts). The log is stored in blocks (request_log_blocks.ts, their bodies packed by
 * request_log_block_body.ts): appended as multi-row INSERTs on
 * SQLite and as one array per column on PostgreSQL, read newest block first, decoded and
 * filtered here; the daily counts are sorted multi-row UPSERTs, like usage_monthly.
 * docs/token-service.md § The request log.
 * @module
 */
import { blockEntries } from "./request_log_block_body.ts";
import { BLOCK_SPAN_MS, blockValues, requestLogBlocks } from "./request_log_blocks.ts";
import { type Db, type Sql, sql, tuples } from "./sql.ts";
import type {
  DailyUsageRow,
  LogBlock,
  RequestLogEntry,
  RequestLogFilter,
  WebStore,
} from "./web_store.ts";

/** Rows per multi-row INSERT or UPSERT (8 or 5 parameters each). */
const ROWS_PER_INSERT = 400;
/** Blocks read per query while listing. */
const BLOCKS_PER_READ = 64;

/**
 * The request log's and the daily usage's queries of a {@link WebStore}.
 * @param db the database
 * @returns the five methods
 */
export function requestLogQueries(db: Db): Pick<
  WebStore,
  | "addRequestLog"
  | "listRequestLog"
  | "pruneRequestLog"
  | "dailyUsageTotals"
  | "listDailyUsage"
> {
  return {
    addRequestLog: (blocks, daily) => addRequestLog(db, blocks, daily),
    listRequestLog: (f) => listRequestLog(db, f),
    pruneRequestLog: (before, maxEntries, dayBefore) =>
      pruneRequestLog(db, before, maxEntries, dayBefore),
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

/** A block's body as read: `packed` (bytes) when there is one, else the JSON text of `body`
 * (written so before schema version 9, or by an instance of that release since). */
const bodyOf = (b: Record<string, unknown>): Uint8Array | string =>
  b.packed instanceof Uint8Array ? b.packed : String(b.body);

const newestFirst = (a: RequestLogEntry, b: RequestLogEntry) => b.at - a.at;

/**
 * One integrator's entries, newest first: its blocks are read newest first (the index on
 * integrator_id, last_at), {@link BLOCKS_PER_READ} a query, and decoded until no block left can
 * hold an entry newer than the `limit`-th found. A status filter of errors skips blocks without
 * one; the time range, a key and the list of keys skip blocks before they are decoded.
 */
async function listRequestLog(db: Db, f: RequestLogFilter): Promise<RequestLogEntry[]> {
  if (f.limit <= 0) return [];
  const { status } = f;
  const key = f.keyId === undefined ? sql`` : sql` AND key_id = ${f.keyId}`;
  const errorsOnly = status === "errors" || (typeof status === "number" && status >= 400);
  const errors = errorsOnly ? sql` AND errors > 0` : sql``;
  const until = f.until ?? Number.MAX_SAFE_INTEGER;
  const before = f.until === undefined ? sql`` : sql` AND first_at < ${f.until}`;
  const keyIds = f.keyIds === undefined ? null : new Set(f.keyIds);
  const wanted = (e: RequestLogEntry) =>
    e.at >= f.since && e.at < until &&
    (f.requestId === undefined || e.requestId === f.requestId) &&
    (status === undefined ||
      (status === "errors"
        ? e.status >= 400
        : status === "ok"
        ? e.status < 400
        : e.status === status));
  const found: RequestLogEntry[] = [];
  for (let offset = 0;; offset += BLOCKS_PER_READ) {
    const blocks = await db.all(sql`SELECT key_id, last_at, body, packed FROM request_log_blocks
      WHERE integrator_id = ${f.integratorId} AND last_at >= ${f.since}${before}${key}${errors}
      ORDER BY last_at DESC, id DESC LIMIT ${BLOCKS_PER_READ} OFFSET ${offset}`);
    for (const b of blocks) {
      if (found.length >= f.limit) {
        found.sort(newestFirst).length = f.limit;
        // non-null: found was cut to f.limit entries on the line above
        if (Number(b.last_at) < found[f.limit - 1]!.at) return found;
      }
      if (keyIds !== null && !keyIds.has(String(b.key_id))) continue;
      const entries = blockEntries(f.integratorId, String(b.key_id), bodyOf(b));
      // The block's last written first: of equal times, the later request first.
      for (let i = entries.length - 1; i >= 0; i--) {
        // non-null: 0 <= i < entries.length
        if (wanted(entries[i]!)) found.push(entries[i]!);
      }
    }
    if (blocks.length < BLOCKS_PER_READ) break;
  }
  return found.sort(newestFirst).slice(0, f.limit);
}

/**
 * Delete the entries older than `before` (whole blocks, and the older part of a block that began
 * before it, rewritten), then the oldest blocks beyond `maxEntries` entries, then the daily usage
 * before `dayBefore`; one transaction.
 * @returns the entries deleted
 */
async function pruneRequestLog(
  db: Db,
  before: number,
  maxEntries: number,
  dayBefore: string,
): Promise<number> {
  return await db.tx(function* (tx) {
    const whole = yield* tx.get(sql`SELECT COALESCE(SUM(entries), 0) AS n
      FROM request_log_blocks WHERE last_at < ${before}`);
    let n = Number(whole?.n ?? 0);
    yield* tx.run(sql`DELETE FROM request_log_blocks WHERE last_at < ${before}`);
    // A block covers at most BLOCK_SPAN_MS: one that began before the bound ends within it.
    const cut = yield* tx.all(sql`SELECT id, integrator_id, key_id, entries, body, packed
      FROM request_log_blocks WHERE last_at < ${before + BLOCK_SPAN_MS}
      AND first_at < ${before}`);
    for (const b of cut) {
      const kept = blockEntries(String(b.integrator_id), String(b.key_id), bodyOf(b))
        .filter((e) => e.at >= before);
      n += Number(b.entries) - kept.length;
      if (kept.length === 0) { // only a damaged body reads as empty here
        yield* tx.run(sql`DELETE FROM request_log_blocks WHERE id = ${b.id}`);
        continue;
      }
      // The kept entries of one key within one minute: one block, encoded as every block is.
      const [, , firstAt, , entries, errors, body, packed] = blockValues(
        // non-null: kept is not empty (checked above), and its entries make at least one block
        requestLogBlocks(kept, BLOCK_SPAN_MS)[0]!,
      );
      yield* tx.run(sql`UPDATE request_log_blocks SET first_at = ${firstAt},
        entries = ${entries}, errors = ${errors}, body = ${body}, packed = ${packed}
        WHERE id = ${b.id}`);
    }
    const total = yield* tx.get(sql`SELECT COALESCE(SUM(entries), 0) AS n
      FROM request_log_blocks`);
    if (Number(total?.n ?? 0) > maxEntries) {
      // The newest block that no longer fits under the cap, counting from the newest.
      const over = yield* tx.get(sql`SELECT last_at, id FROM (SELECT last_at, id,
        SUM(entries) OVER (ORDER BY last_at DESC, id DESC) AS c FROM request_log_blocks) t
        WHERE c > ${maxEntries} ORDER BY last_at DESC, id DESC LIMIT 1`);
      if (over) {
        const older = sql`last_at < ${Number(over.last_at)}
          OR (last_at = ${Number(over.last_at)} AND id <= ${Number(over.id)})`;
        const gone = yield* tx.get(sql`SELECT COALESCE(SUM(entries), 0) AS n
          FROM request_log_blocks WHERE ${older}`);
        n += Number(gone?.n ?? 0);
        yield* tx.run(sql`DELETE FROM request_log_blocks WHERE ${older}`);
      }
    }
    yield* tx.run(sql`DELETE FROM usage_daily WHERE day < ${dayBefore}`);
    return n;
  });
}

/** Append request log blocks and add their counts to the daily usage, in one transaction.
 * @throws the database's error (nothing written) */
async function addRequestLog(
  db: Db,
  blocks: readonly LogBlock[],
  daily: readonly DailyUsageRow[],
): Promise<void> {
  const rows = blocks.map(blockValues);
  const statements: Sql[] = [];
  if (db.dialect === "postgres" && rows.length > 0) {
    // One array per column (`unnest`): the driver encodes 8 arrays instead of 8 parameters a row;
    // the packed bodies as hex texts (npm:postgres sends no array of bytes), decoded by the server.
    const col = (k: number) => rows.map((r) => r[k]);
    const packed = rows.map((r) => (r[7] as Uint8Array).toHex());
    statements.push(sql`INSERT INTO request_log_blocks (integrator_id, key_id, first_at,
      last_at, entries, errors, body, packed) SELECT i, k, f, l, n, e, b, decode(h, 'hex')
      FROM unnest(${col(0)}::text[], ${col(1)}::text[], ${col(2)}::bigint[],
      ${col(3)}::bigint[], ${col(4)}::int[], ${col(5)}::int[], ${col(6)}::text[],
      ${packed}::text[]) AS t(i, k, f, l, n, e, b, h)`);
  } else {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      statements.push(sql`INSERT INTO request_log_blocks (integrator_id, key_id, first_at,
        last_at, entries, errors, body, packed) VALUES ${
        tuples(rows.slice(i, i + ROWS_PER_INSERT))
      }`);
    }
  }
  statements.push(...dailyUpserts(daily));
  // One transaction: one commit (one WAL sync on SQLite) per flush.
  await db.tx(function* (tx) {
    for (const q of statements) yield* tx.run(q);
  });
}

const dailyOrder = (d: DailyUsageRow) =>
  `${d.integratorId}\u0000${d.day}\u0000${d.keyId}\u0000${d.typeId}`;

/**
 * The daily counts as multi-row UPSERTs of {@link ROWS_PER_INSERT} rows, sorted by their key
 * (flushes of several instances then lock the rows in one order).
 */
function dailyUpserts(daily: readonly DailyUsageRow[]): Sql[] {
  const sorted = [...daily].sort((a, b) =>
    dailyOrder(a) < dailyOrder(b) ? -1 : dailyOrder(a) > dailyOrder(b) ? 1 : 0
  );
  const out: Sql[] = [];
  for (let i = 0; i < sorted.length; i += ROWS_PER_INSERT) {
    const rows = sorted.slice(i, i + ROWS_PER_INSERT).map((d) => [
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
