/**
 * The desk's reports (docs/token-service.md § The administrator's desk): monthly statements of
 * every contract (a table per month, CSV to download), tokens per integrator over the last 90
 * days, and the audit log (every change made through the desk, the profile or the admin API:
 * who, what, when, the request id).
 * @module
 */
import type { Context, Hono } from "hono";
import { html, raw } from "hono/html";
import { t, tableOr } from "../../web_page.ts";
import { buildStatement, monthOf, requireMonth, statementCsv } from "../contracts/mod.ts";
import { bi } from "../../contract/mod.ts";
import type { WebC, WebEnv } from "../web/mod.ts";
import type { DeskContext } from "./deps.ts";

/** Audit rows the desk shows at most. */
const AUDIT_ROWS = 300;
/**
 * The report routes.
 * @param r the desk's router
 * @param ctx store, clock
 */
export function reportRoutes(r: Hono<WebEnv>, ctx: DeskContext): void {
  r.get("/statements", (c) => statementsPage(ctx, c));
  r.get(
    "/statements/:contractId/:file{[0-9]{4}-[0-9]{2}\\.csv}",
    (c) => statementCsvHandler(ctx, c),
  );
  r.get("/usage", (c) => usagePage(ctx, c));
  r.get("/audit", (c) => auditPage(ctx, c));
}

/**
 * GET /statements: tokens per contract in one month (query `month`, `YYYY-MM`; anything else
 * means the current month), each with a CSV link.
 * @returns the HTML page (200); store errors propagate to the app's error handler
 */
async function statementsPage(ctx: DeskContext, c: WebC): Promise<Response> {
  await ctx.flushUsage?.();
  const q = c.req.query("month");
  const month = q && /^[0-9]{4}-(0[1-9]|1[0-2])$/.test(q) ? q : monthOf(ctx.clock.now());
  const rows = await ctx.store.listBillingCounts({ month });
  const byContract = new Map<string, { integratorId: string; tokens: number }>();
  for (const u of rows) {
    const k = u.contractId || "—";
    const cur = byContract.get(k) ?? { integratorId: u.integratorId, tokens: 0 };
    cur.tokens += u.count;
    byContract.set(k, cur);
  }
  return ctx.app.page(
    c,
    "statements",
    bi("Месечни справки", "Monthly statements"),
    html`<form class="filters" method="get" action="${ctx.app.base}/statements">
        <label>${
      t("Месец", "Month")
    }<input type="month" name="month" id="month" value="${month}"></label>
        <button>${t("Покажи", "Show")}</button></form>
      ${
      tableOr(
        "statements",
        [["Договор", "Contract"], ["Интегратор", "Integrator"], ["Токени", "Tokens"], null],
        [...byContract.entries()].map(([contractId, v]) =>
          html`
            <tr>
              <td class="mono">${contractId}</td>
              <td class="mono">${v.integratorId}</td>
              <td>${v.tokens}</td>
              <td>${contractId === "—"
                ? t("без договор", "no contract")
                : html`<a href="${ctx.app.base}/statements/${contractId}/${month}.csv">CSV</a>`}</td>
            </tr>
          `
        ),
        t("Няма токени за този месец.", "No tokens this month."),
      )
    }`,
  );
}

/**
 * GET /statements/{contractId}/{YYYY-MM}.csv: one contract's monthly statement as CSV.
 * @returns the CSV download; the statement's errors (a bad month, an unknown contract) go to
 * the app's error page
 */
async function statementCsvHandler(
  ctx: DeskContext,
  c: Context<WebEnv, "/statements/:contractId/:file{[0-9]{4}-[0-9]{2}\\.csv}">,
): Promise<Response> {
  await ctx.flushUsage?.();
  const month = requireMonth(c.req.param("file").slice(0, 7));
  const s = await buildStatement(ctx.store, c.req.param("contractId"), month);
  return c.body(statementCsv(s), 200, {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="statement-${s.contractId}-${month}.csv"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
}

/**
 * GET /usage: tokens per integrator over the last 90 days.
 * @returns the HTML page (200)
 */
async function usagePage(ctx: DeskContext, c: WebC): Promise<Response> {
  const from = new Date(ctx.clock.now() - 89 * 86_400_000).toISOString().slice(0, 10);
  const [integrators, totals] = await Promise.all([
    ctx.store.listIntegrators(),
    ctx.store.dailyUsageTotals(from),
  ]);
  const names = new Map(integrators.map((i) => [i.id, i.name]));
  return ctx.app.page(
    c,
    "usage",
    bi("Използване (90 дни)", "Usage (90 days)"),
    tableOr(
      "usage",
      [["Интегратор", "Integrator"], ["Име", "Name"], ["Токени", "Tokens"]],
      totals.map((x) =>
        html`
          <tr>
            <td class="mono">${x.integratorId}</td>
            <td>${names.get(x.integratorId) ?? ""}</td>
            <td>${x.tokens}</td>
          </tr>
        `
      ),
      t("Още няма издадени токени.", "No tokens issued yet."),
    ),
  );
}

/**
 * GET /audit: the last {@link AUDIT_ROWS} audit entries, optionally of one integrator (query
 * `integrator`; an id of another shape is ignored).
 * @returns the HTML page (200)
 */
async function auditPage(ctx: DeskContext, c: WebC): Promise<Response> {
  const q = c.req.query("integrator");
  const list = await ctx.store.listAudit({
    integratorId: q && /^[A-Za-z0-9_-]{1,64}$/.test(q) ? q : undefined,
    limit: AUDIT_ROWS,
  });
  return ctx.app.page(
    c,
    "audit",
    bi("Одит", "Audit log"),
    html`<p class="muted small">${
      t(
        `Последните ${AUDIT_ROWS} промени през бюрото, профилите и admin API.`,
        `The last ${AUDIT_ROWS} changes through the desk, the profiles and the admin API.`,
      )
    }</p>
      ${
      tableOr(
        "audit",
        [
          ["Време (UTC)", "Time (UTC)"],
          ["Кой", "Who"],
          ["Какво", "What"],
          ["Върху", "On"],
          [
            "Интегратор",
            "Integrator",
          ],
          ["Подробности", "Details"],
          ["requestId", "requestId"],
        ],
        list.map((e) =>
          html`
            <tr data-action="${e.action}">
              <td>${new Date(e.at).toISOString().slice(0, 19).replace("T", " ")}</td>
              <td>${e.actorKind}: ${e.actor}</td>
              <td class="mono">${e.action}</td>
              <td class="mono">${e.target}</td>
              <td class="mono">${e.integratorId ?? ""}</td>
              <td class="mono small">${e.detail === "{}" ? "" : e.detail}</td>
              <td class="mono small">${e.requestId}</td>
            </tr>
          `
        ),
        t("Още няма промени.", "No changes yet."),
      )
    }${raw("")}`,
  );
}
