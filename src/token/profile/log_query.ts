/**
 * The request log's query (docs/token-service.md § What an integrator sees): the filters of the
 * log page and its CSV export read from the URL, the store's filter they make, and the words of
 * a row (its time, its error code's text from the catalog).
 * @module
 */
import { ERROR_CATALOG, type ErrorCode, type KeyMode } from "../../contract/mod.ts";
import { REQUEST_LOG_DAYS } from "../request_log/mod.ts";
import type { ApiKeyRecord, RequestLogFilter } from "../store/mod.ts";

const DAY_MS = 86_400_000;
/** The log's query as read: each field valid, or absent. */
export interface LogQuery {
  /** `YYYY-MM-DD` (UTC), the first day shown. */
  readonly from?: string;
  /** `YYYY-MM-DD` (UTC), the last day shown. */
  readonly to?: string;
  readonly status?: number | "errors" | "ok";
  /** One of the integrator's keys. */
  readonly key?: string;
  readonly mode?: KeyMode;
  /** A request id (as its answer's `X-Request-Id` / `requestId`). */
  readonly id?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayStart = (d: string) => Date.parse(`${d}T00:00:00Z`);

/**
 * Read the log's query: `from`, `to` (`YYYY-MM-DD`), `status` (`errors`, `ok` or an HTTP status),
 * `key` (one of `keys`), `mode` (`test`, `live`), `id` (a request id). A value of another shape,
 * or another integrator's key, is left out (the page shows everything then), never an error.
 * @param q the query parameters
 * @param keys the signed-in integrator's keys
 * @returns the query
 * @example
 * ```ts
 * import { logQuery } from "./log_query.ts";
 * const q = logQuery({ status: "401", from: "2026-11-01", key: "key_x", id: " r1 " }, []);
 * if (q.status !== 401 || q.from !== "2026-11-01" || q.key !== undefined || q.id !== "r1") {
 *   throw new Error(JSON.stringify(q));
 * }
 * ```
 */
export function logQuery(
  q: Readonly<Record<string, string | undefined>>,
  keys: readonly ApiKeyRecord[],
): LogQuery {
  const day = (v: string | undefined) => v && DAY.test(v) && !isNaN(dayStart(v)) ? v : undefined;
  const status = q.status === "errors" || q.status === "ok"
    ? q.status
    : /^[1-5][0-9]{2}$/.test(q.status ?? "")
    ? Number(q.status)
    : undefined;
  const id = q.id?.trim();
  const out: Record<string, unknown> = {
    from: day(q.from),
    to: day(q.to),
    status,
    key: keys.some((k) => k.id === q.key) ? q.key : undefined,
    mode: q.mode === "test" || q.mode === "live" ? q.mode : undefined,
    id: id && /^[\x21-\x7e]{1,100}$/.test(id) ? id : undefined,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as LogQuery;
}

/**
 * The store's filter of a query: at most the last {@link REQUEST_LOG_DAYS} days.
 * @param integratorId the signed-in integrator
 * @param q the query ({@link logQuery})
 * @param keys the integrator's keys (for `mode`)
 * @param now epoch ms
 * @param limit rows at most
 * @returns the filter
 */
export function logFilter(
  integratorId: string,
  q: LogQuery,
  keys: readonly ApiKeyRecord[],
  now: number,
  limit: number,
): RequestLogFilter {
  const oldest = now - REQUEST_LOG_DAYS * DAY_MS;
  return {
    integratorId,
    since: Math.max(oldest, q.from ? dayStart(q.from) : oldest),
    ...(q.to ? { until: dayStart(q.to) + DAY_MS } : {}),
    ...(q.key ? { keyId: q.key } : {}),
    ...(q.mode ? { keyIds: keys.filter((k) => k.mode === q.mode).map((k) => k.id) } : {}),
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.id ? { requestId: q.id } : {}),
    limit,
  };
}

/** `YYYY-MM-DD hh:mm:ss.mmm` (UTC). */
export const logTime = (ms: number): string =>
  new Date(ms).toISOString().slice(0, 23).replace("T", " ");

/**
 * The text of an error code from the catalog (`""` for none or a code it does not know).
 * @param code the logged `errorCode`
 * @returns its description
 */
export function errorText(code: string | null): string {
  return code && code in ERROR_CATALOG ? ERROR_CATALOG[code as ErrorCode].description : "";
}
