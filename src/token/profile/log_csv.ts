/**
 * The request log as CSV, `GET /profile/log.csv` (docs/token-service.md § What an integrator
 * sees): the rows the log page's filters choose (log_query.ts), up to
 * {@link LOG_CSV_ROWS}, newest first, written with csv-stringify through src/csv.ts (RFC 4180,
 * formula cells guarded). Never a secret, never a token.
 * @module
 */
import { toCsv } from "../../csv.ts";
import type { WebC } from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";
import { integratorOf } from "./keys_page.ts";
import { errorText, logFilter, logQuery, logTime } from "./log_query.ts";

/** Rows one export holds at most. */
export const LOG_CSV_ROWS = 50_000;

/** The export's columns. */
export const LOG_CSV_HEADER = [
  "time_utc",
  "request_id",
  "key_id",
  "key_label",
  "mode",
  "type_id",
  "eiks",
  "status",
  "error_code",
  "error_text",
  "origin",
  "latency_ms",
] as const;

/**
 * GET /log.csv: the filtered log as a CSV attachment (`request-log-YYYY-MM-DD.csv`).
 * @param ctx store, clock
 * @param c the route's context (query as the log page's)
 * @returns 200 `text/csv; charset=utf-8`, not cached
 */
export async function logCsv(ctx: ProfileContext, c: WebC): Promise<Response> {
  await ctx.flushLog?.();
  const integratorId = integratorOf(c);
  const keys = await ctx.store.listKeys({ integratorId });
  const now = ctx.clock.now();
  const rows = await ctx.store.listRequestLog(
    logFilter(integratorId, logQuery(c.req.query(), keys), keys, now, LOG_CSV_ROWS),
  );
  const byId = new Map(keys.map((k) => [k.id, k]));
  const text = toCsv(
    LOG_CSV_HEADER,
    rows.map((e) => {
      const k = byId.get(e.keyId);
      return [
        logTime(e.at),
        e.requestId,
        e.keyId,
        k?.label ?? "",
        k?.mode ?? "",
        e.typeId,
        e.eiks,
        e.status,
        e.errorCode ?? "",
        errorText(e.errorCode),
        e.origin ?? "",
        e.latencyMs ?? "",
      ];
    }),
  );
  const day = new Date(now).toISOString().slice(0, 10);
  return c.body(text, 200, {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="request-log-${day}.csv"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
}
