/**
 * Reading the journal page by page for the accountant's console (docs/journal.md § Queries):
 * filters (EIK, period, state), newest first (`created_at DESC, id DESC`), keyset pagination
 * with an opaque cursor (no OFFSET: page 200 costs what page 1 costs), the number of matching
 * rows, the whole filtered view for an export, and who filed through this agent since a date.
 * Each filter has its own `(column, created_at, id, …)` index (journal_schema.ts: added at open, see ADDITIONS);
 * the query names the index of its most selective filter (EIK, then period, then state), so the
 * planner never sorts or walks another index. The `total` comes from the triggers' tally of
 * states when no EIK or period is given, else from the index alone.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { AppError } from "../../contract/mod.ts";
import { FILING_STATES, type FilingRecord, type FilingState, fromRow } from "./journal_schema.ts";

/** The filters of a journal view; an absent (or empty) one matches every row. */
export interface JournalFilter {
  /** The taxpayer: 9 to 13 digits (EIK, Bulstat, a natural person's EGN). */
  readonly eik?: string | undefined;
  /** `YYYY-MM` or `YYYY`, as the journal writes it. */
  readonly period?: string | undefined;
  /** One of the five states (docs/journal.md § States). */
  readonly state?: FilingState | undefined;
}

/** One page of a journal view. */
export interface JournalQuery extends JournalFilter {
  /** The `next` of the previous page (opaque); absent for the first (newest) page. */
  readonly before?: string | undefined;
  /** Rows per page: 1 to {@link JOURNAL_PAGE_MAX}, default {@link JOURNAL_PAGE_LIMIT}. */
  readonly limit?: number;
}

/** What {@link queryPage} answers. */
export interface JournalPage {
  /** The rows, newest first (`createdAt` descending, then `id` descending). */
  readonly rows: FilingRecord[];
  /** The cursor of the next older page (pass it as `before`), or null after the last row. */
  readonly next: string | null;
  /** How many rows match the filters (all pages, not only the ones after `before`). */
  readonly total: number;
}

/** One integrator that filed through this agent (the console's status page). */
export interface IntegratorActivity {
  /** The token's `intg` claim. */
  readonly integrator: string;
  /** When its newest row was written (ISO 8601 UTC). */
  readonly lastAt: string;
  /** How many rows it wrote since the date asked for (every state: attempts, not only filed). */
  readonly filings: number;
}

/** Rows per page when the query names no `limit`. */
export const JOURNAL_PAGE_LIMIT = 50;
/** The largest `limit` a page may ask for. */
export const JOURNAL_PAGE_MAX = 500;

type Row = Record<string, unknown>;

const EIK = /^[0-9]{9,13}$/;
const PERIOD = /^[0-9]{4}(-(0[1-9]|1[0-2]))?$/;
/** created_at as the journal writes it (toISOString; version-0 files may lack the ms). */
const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$/;
const CURSOR_MAX = 512;
const CURSOR_VERSION = 1;

/** The index each leading filter walks; every one ends in (created_at, id). */
const INDEX = {
  eik: "filings_eik_newest",
  period: "filings_period_newest",
  state: "filings_state_newest",
  none: "filings_newest",
} as const;

function invalid(field: string, message: string): never {
  throw new AppError("JOURNAL_QUERY_INVALID", message, { field });
}

/** A position in the newest-first order: the last row of a page. */
interface Position {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * The opaque cursor of a row's position: base64url of `[1, createdAt, id]`.
 * @param r the last row of a page
 * @returns the cursor
 */
export function encodeCursor(r: Position): string {
  return new TextEncoder().encode(JSON.stringify([CURSOR_VERSION, r.createdAt, r.id]))
    .toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Read a cursor made by {@link encodeCursor}.
 * @param s the cursor
 * @returns the position
 * @throws AppError JOURNAL_QUERY_INVALID (`details.field` "before") when it is not one
 */
export function decodeCursor(s: string): Position {
  const bad = () => invalid("before", "The page cursor is not one this journal gave out");
  if (s.length > CURSOR_MAX || !/^[A-Za-z0-9_-]+$/.test(s)) bad();
  let v: unknown;
  try {
    const bytes = Uint8Array.fromBase64(s, { alphabet: "base64url" });
    v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    bad();
  }
  if (
    !Array.isArray(v) || v.length !== 3 || v[0] !== CURSOR_VERSION ||
    typeof v[1] !== "string" || !INSTANT.test(v[1]) || typeof v[2] !== "string" || v[2] === ""
  ) bad();
  const [, createdAt, id] = v as [number, string, string];
  return { createdAt, id };
}

/** A checked query: filters, position and page size. */
interface Checked {
  readonly eik: string | null;
  readonly period: string | null;
  readonly state: FilingState | null;
  readonly before: Position | null;
  readonly limit: number;
}

const given = (v: unknown): boolean => v !== undefined && v !== null && v !== "";

/**
 * Check a query's filters, cursor and limit.
 * @param q the query (from the console: any shape)
 * @returns the checked query
 * @throws AppError JOURNAL_QUERY_INVALID with `details.field` naming the bad field
 */
export function checkQuery(q: JournalQuery): Checked {
  if (typeof q !== "object" || q === null) invalid("query", "The journal query is not an object");
  const { eik, period, state, before, limit } = q as Record<string, unknown>;
  if (given(eik) && (typeof eik !== "string" || !EIK.test(eik))) {
    invalid("eik", "The EIK filter must be 9 to 13 digits");
  }
  if (given(period) && (typeof period !== "string" || !PERIOD.test(period))) {
    invalid("period", "The period filter must be YYYY-MM or YYYY");
  }
  if (given(state) && !FILING_STATES.includes(state as FilingState)) {
    invalid("state", `The state filter must be one of ${FILING_STATES.join(", ")}`);
  }
  if (given(before) && typeof before !== "string") {
    invalid("before", "The page cursor is not one this journal gave out");
  }
  let size = JOURNAL_PAGE_LIMIT;
  if (limit !== undefined && limit !== null) {
    if (
      !Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > JOURNAL_PAGE_MAX
    ) {
      invalid("limit", `The page size must be a whole number from 1 to ${JOURNAL_PAGE_MAX}`);
    }
    size = limit as number;
  }
  return {
    eik: given(eik) ? eik as string : null,
    period: given(period) ? period as string : null,
    state: given(state) ? state as FilingState : null,
    before: given(before) ? decodeCursor(before as string) : null,
    limit: size,
  };
}

/** The FROM and WHERE of a view (without its position), and their parameters. */
function view(c: Checked): { from: string; where: string[]; params: SQLInputValue[] } {
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  for (
    const [column, value] of [["eik", c.eik], ["period", c.period], ["state", c.state]] as const
  ) {
    if (value !== null) {
      where.push(`${column} = ?`);
      params.push(value);
    }
  }
  const index = c.eik !== null
    ? INDEX.eik
    : c.period !== null
    ? INDEX.period
    : c.state !== null
    ? INDEX.state
    : INDEX.none;
  return { from: `filings INDEXED BY ${index}`, where, params };
}

/**
 * The SQL of a page's rows (also read by the tests' EXPLAIN QUERY PLAN): the view, after the
 * cursor's position, newest first, one row more than the page to tell whether another follows.
 * @param c the checked query
 * @param paged false: every row after the position (an export), no LIMIT
 * @returns the statement and its parameters
 */
export function pageSql(c: Checked, paged = true): { sql: string; params: SQLInputValue[] } {
  const v = view(c);
  const where = [...v.where];
  const params = [...v.params];
  if (c.before) {
    where.push("(created_at, id) < (?, ?)");
    params.push(c.before.createdAt, c.before.id);
  }
  if (paged) params.push(c.limit + 1);
  return {
    sql: `SELECT * FROM ${v.from}${where.length ? ` WHERE ${where.join(" AND ")}` : ""}
      ORDER BY created_at DESC, id DESC${paged ? " LIMIT ?" : ""}`,
    params,
  };
}

/**
 * The SQL that counts a view's rows: the tally of states (journal_schema.ts) for no filter or a
 * state alone, else a count over the leading filter's index, which holds the other filters'
 * columns (no table row is read).
 * @param c the checked query (its position and limit are not used)
 * @returns the statement and its parameters
 */
export function countSql(c: Checked): { sql: string; params: SQLInputValue[] } {
  if (c.eik === null && c.period === null) {
    return c.state === null
      ? { sql: "SELECT COALESCE(SUM(n), 0) AS n FROM filings_tally", params: [] }
      : {
        sql: "SELECT COALESCE(SUM(n), 0) AS n FROM filings_tally WHERE state = ?",
        params: [c.state],
      };
  }
  const v = view(c);
  return {
    sql: `SELECT COUNT(*) AS n FROM ${v.from} WHERE ${v.where.join(" AND ")}`,
    params: v.params,
  };
}

/** Run `read` in one read transaction (rows and their count from the same snapshot). */
function snapshot<T>(db: DatabaseSync, read: () => T): T {
  db.exec("BEGIN");
  try {
    const out = read();
    db.exec("COMMIT");
    return out;
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}

/**
 * One page of a journal view.
 * @param db the journal's database (opened through migrateJournal: the indexes)
 * @param q filters, cursor and page size
 * @returns the rows, the next cursor and the number of matching rows
 * @throws AppError JOURNAL_QUERY_INVALID for a malformed filter, cursor or limit
 */
export function queryPage(db: DatabaseSync, q: JournalQuery): JournalPage {
  const c = checkQuery(q);
  const page = pageSql(c);
  const count = countSql(c);
  return snapshot(db, () => {
    const raw = db.prepare(page.sql).all(...page.params) as Row[];
    const more = raw.length > c.limit;
    const rows = (more ? raw.slice(0, c.limit) : raw).map(fromRow);
    const total = Number((db.prepare(count.sql).get(...count.params) as { n: number }).n);
    // non-null: more is true only when raw had more than c.limit rows, so rows is not empty
    return { rows, next: more ? encodeCursor(rows[rows.length - 1]!) : null, total };
  });
}

/**
 * Every row of a journal view, newest first: what the console exports (CSV or JSON through
 * `exportJournal`).
 * @param db the journal's database
 * @param f the filters
 * @returns the rows
 * @throws AppError JOURNAL_QUERY_INVALID for a malformed filter
 */
export function queryAll(db: DatabaseSync, f: JournalFilter): FilingRecord[] {
  const c = checkQuery(f);
  const { sql, params } = pageSql(c, false);
  return (db.prepare(sql).all(...params) as Row[]).map(fromRow);
}

/**
 * Who filed through this agent since a date: one entry per integrator (rows without one are
 * left out), the most recently active first.
 * @param db the journal's database
 * @param since rows written at or after this instant
 * @returns integrator, its newest row's time and its number of rows
 * @throws AppError JOURNAL_QUERY_INVALID (`details.field` "since") for an invalid date
 */
export function queryIntegrators(db: DatabaseSync, since: Date): IntegratorActivity[] {
  if (!(since instanceof Date) || Number.isNaN(since.getTime())) {
    invalid("since", "The date to list integrators since is not a valid date");
  }
  const rows = db.prepare(
    `SELECT integrator, MAX(created_at) AS last_at, COUNT(*) AS n FROM filings
      INDEXED BY ${INDEX.none} WHERE created_at >= ? AND integrator IS NOT NULL
      GROUP BY integrator ORDER BY last_at DESC, integrator`,
  ).all(since.toISOString()) as Row[];
  return rows.map((r) => ({
    integrator: String(r.integrator),
    lastAt: String(r.last_at),
    filings: Number(r.n),
  }));
}
