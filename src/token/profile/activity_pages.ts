/**
 * The profile's usage and request log (docs/token-service.md § The profile): tokens per day
 * and per typeId over the last {@link USAGE_DAYS} days as a chart drawn on the server (SVG, no
 * script) with the numbers in a table beside it, then test and live apart and per key
 * (usage_by_key.ts); the request log's pages are
 * request_log_page.ts. Only the signed-in integrator's rows are ever read (the
 * integrator id comes from the session, never from the request).
 * @module
 */
import type { Hono } from "hono";
import { html, raw } from "hono/html";
import { type Markup, t, tableOr } from "../../web_page.ts";
import { USAGE_DAYS } from "../request_log/mod.ts";
import type { DailyUsageRow } from "../store/mod.ts";
import { bi } from "../../contract/mod.ts";
import type { WebC, WebEnv } from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";
import { integratorOf } from "./keys_page.ts";
import { requestLogRoutes } from "./request_log_page.ts";
import { usageByKeyCard } from "./usage_by_key.ts";

const DAY_MS = 86_400_000;
const COLORS = ["#123c69", "#0b6b2e", "#a15c00", "#7a2e8f", "#a11d00", "#2a7f9e", "#777777"];
/**
 * The usage and log routes.
 * @param r the profile's router
 * @param ctx store, clock
 */
export function activityRoutes(r: Hono<WebEnv>, ctx: ProfileContext): void {
  r.get("/usage", (c) => usagePage(ctx, c));
  requestLogRoutes(r, ctx);
}

/**
 * GET /usage: the signed-in integrator's tokens per day and typeId over the last
 * {@link USAGE_DAYS} days.
 * @returns the HTML page (200); store errors propagate to the app's error handler
 */
async function usagePage(ctx: ProfileContext, c: WebC): Promise<Response> {
  await ctx.flushLog?.();
  const now = ctx.clock.now();
  const from = new Date(now - (USAGE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const integratorId = integratorOf(c);
  const [rows, keys] = await Promise.all([
    ctx.store.listDailyUsage(integratorId, from),
    ctx.store.listKeys({ integratorId }),
  ]);
  return ctx.app.page(
    c,
    "usage",
    bi("Използване", "Usage"),
    html`${usageBody(rows, now)}${usageByKeyCard(rows, keys)}`,
  );
}

/** Tokens per day and series of the usage chart ({@link usageSeries}). */
interface UsageSeries {
  /** The days shown, oldest first (`YYYY-MM-DD`, UTC). */
  readonly days: readonly string[];
  /** Tokens per typeId over the whole period. */
  readonly byType: ReadonlyMap<string, number>;
  /** The series drawn: the busiest typeIds, then `…` for the rest when there are more. */
  readonly legend: readonly string[];
  /** Tokens per `day\u0000series`. */
  readonly cells: ReadonlyMap<string, number>;
  /** Tokens per day, in `days` order. */
  readonly totals: readonly number[];
}

/**
 * Group the daily rows into the chart's series: one per typeId for the {@link COLORS} less one
 * busiest, the rest together as `…`.
 * @param rows the integrator's daily usage
 * @param now the time now (ms), the last day shown
 * @returns the days, series and sums
 */
function usageSeries(rows: readonly DailyUsageRow[], now: number): UsageSeries {
  const days: string[] = [];
  for (let i = USAGE_DAYS - 1; i >= 0; i--) {
    days.push(new Date(now - i * DAY_MS).toISOString().slice(0, 10));
  }
  const byType = new Map<string, number>();
  for (const r of rows) byType.set(r.typeId, (byType.get(r.typeId) ?? 0) + r.count);
  const types = [...byType.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  const shown = types.slice(0, COLORS.length - 1);
  const series = (typeId: string) => shown.includes(typeId) ? typeId : "…";
  const cells = new Map<string, number>();
  for (const r of rows) {
    const id = `${r.day}\u0000${series(r.typeId)}`;
    cells.set(id, (cells.get(id) ?? 0) + r.count);
  }
  const legend = [...shown, ...(types.length > shown.length ? ["…"] : [])];
  const totals = days.map((d) =>
    legend.reduce((s, k) => s + (cells.get(`${d}\u0000${k}`) ?? 0), 0)
  );
  return { days, byType, legend, cells, totals };
}

/**
 * The usage chart: stacked bars per day, drawn on the server (no script).
 * @param s the series ({@link usageSeries})
 * @returns the SVG's text (its typeIds escaped)
 */
function usageChartSvg({ days, legend, cells, totals }: UsageSeries): string {
  const max = Math.max(1, ...totals);
  const W = 720, H = 220, left = 44, right = 8, top = 12, bottom = 24;
  const bw = (W - left - right) / days.length;
  const y = (v: number) => top + (H - bottom - top) * (1 - v / max);
  const bars = days.flatMap((d, i) => {
    let acc = 0;
    return legend.map((k, j) => {
      const v = cells.get(`${d}\u0000${k}`) ?? 0;
      if (v === 0) return "";
      const top = y(acc + v), h = y(acc) - y(acc + v);
      acc += v;
      return `<rect x="${(left + i * bw).toFixed(1)}" y="${top.toFixed(1)}" width="${
        Math.max(1, bw - 1).toFixed(1)
      }" height="${h.toFixed(1)}" fill="${COLORS[j]}"><title>${d} ${esc(k)}: ${v}</title></rect>`;
    });
  }).join("");
  const ticks = [0, 0.5, 1].map((f) => {
    const v = Math.round(max * f);
    return `<text x="${left - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>` +
      `<line x1="${left}" x2="${W - right}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`;
  }).join("");
  const labels = [0, 29, 59, days.length - 1].map((i, j) =>
    `<text x="${left + (i + (j === 3 ? 1 : 0)) * bw}" y="${H - 6}"${
      j === 3 ? ' text-anchor="end"' : ""
    }>${
      days[i]!.slice(5) /* non-null: i is 0, 29, 59 or the last index of USAGE_DAYS days */
    }</text>`
  ).join("");
  return `<svg class="chart" id="usage-chart" role="img" aria-label="tokens per day" viewBox="0 0 ${W} ${H}" width="100%">${ticks}${bars}${labels}</svg>`;
}

/**
 * The usage table: tokens per day and typeId, newest day first.
 * @param rows the integrator's daily usage
 * @returns the table, or a "none" line
 */
function usageTable(rows: readonly DailyUsageRow[]): Markup {
  const dayRows = [...rows].sort((a, b) => a.day < b.day ? 1 : a.day > b.day ? -1 : 0);
  const grouped = new Map<string, number>();
  for (const r of dayRows) {
    const id = `${r.day}\u0000${r.typeId}`;
    grouped.set(id, (grouped.get(id) ?? 0) + r.count);
  }
  return tableOr(
    "usage",
    [["Ден (UTC)", "Day (UTC)"], ["typeId", "typeId"], ["Токени", "Tokens"]],
    [...grouped.entries()].map(([id, n]) => {
      const [day, typeId] = id.split("\u0000");
      return html`
        <tr>
          <td>${day}</td>
          <td class="mono">${typeId}</td>
          <td>${n}</td>
        </tr>
      `;
    }),
    t("Още няма издадени токени.", "No tokens issued yet."),
  );
}

/** The chart and its table. */
function usageBody(rows: readonly DailyUsageRow[], now: number): Markup {
  const s = usageSeries(rows, now);
  const { legend, byType } = s;
  const total = s.totals.reduce((a, b) => a + b, 0);
  return html`
    <div class="two">
      <div class="card">
          <p>${t(
            `Токени за последните ${USAGE_DAYS} дни`,
            `Tokens in the last ${USAGE_DAYS} days`,
          )}:
            <strong id="usage-total">${total}</strong></p>
          ${raw(usageChartSvg(s))}
          <p class="small">${legend.map((k, j) =>
            html`
              <span><svg width="10" height="10"><rect width="10" height="10" fill="${COLORS[
                j
              ]}"/></svg> <code>${k}</code> ${k === "…" ? "" : byType.get(k)}</span>
            `
          )}</p>
        </div>
      <div class="card">
          ${usageTable(rows)}
        </div>
    </div>
  `;
}

const esc = (s: string) =>
  // non-null: the pattern matches only the four keys of the table
  s.replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]!);
