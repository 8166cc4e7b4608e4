/**
 * The profile's request log (docs/token-service.md § What an integrator sees): "what happened to
 * my request?". `GET /profile/log` lists the signed-in integrator's token requests of the last
 * {@link REQUEST_LOG_DAYS} days, newest first, filtered by dates, status, key, mode and request id
 * (the query of log_query.ts); `GET /profile/log/<requestId>` shows one request's detail with
 * its error code's text, page origin and latency; `GET /profile/log.csv` exports what the filters choose (log_csv.ts).
 * Only the signed-in integrator's rows are ever read (the integrator id comes from the session).
 * @module
 */
import type { Hono } from "hono";
import { html, raw } from "hono/html";
import { AppError, bi } from "../../contract/mod.ts";
import { type Markup, t, tableOr } from "../../web_page.ts";
import { REQUEST_LOG_DAYS } from "../request_log/mod.ts";
import type { ApiKeyRecord, RequestLogEntry } from "../store/mod.ts";
import type { WebC, WebEnv } from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";
import { integratorOf } from "./keys_page.ts";
import { logCsv } from "./log_csv.ts";
import { errorText, logFilter, type LogQuery, logQuery, logTime } from "./log_query.ts";

/** Rows the log page shows at most. */
export const LOG_PAGE_ROWS = 200;

/**
 * The request log's routes.
 * @param r the profile's router
 * @param ctx store, clock
 */
export function requestLogRoutes(r: Hono<WebEnv>, ctx: ProfileContext): void {
  r.get("/log", (c) => logPage(ctx, c));
  r.get("/log.csv", (c) => logCsv(ctx, c));
  r.get("/log/:requestId", (c) => detailPage(ctx, c));
}

/** GET /log: the filtered list (200); store errors propagate to the app's error handler. */
async function logPage(ctx: ProfileContext, c: WebC): Promise<Response> {
  await ctx.flushLog?.();
  const integratorId = integratorOf(c);
  const keys = await ctx.store.listKeys({ integratorId });
  const q = logQuery(c.req.query(), keys);
  const rows = await ctx.store.listRequestLog(
    logFilter(integratorId, q, keys, ctx.clock.now(), LOG_PAGE_ROWS),
  );
  const search = new URLSearchParams(q as Record<string, string>).toString();
  return ctx.app.page(
    c,
    "log",
    bi("Заявки за токени", "Token requests"),
    html`
      ${logFilterForm(ctx.app.base, q, keys)}
      <p class="muted small">${t(
        `Последните ${REQUEST_LOG_DAYS} дни, до ${LOG_PAGE_ROWS} реда, най-новите първи. Всяка заявка за токен, и отказаните (401 за оттеглен или изтекъл ключ). Тайни и токени не се записват.`,
        `The last ${REQUEST_LOG_DAYS} days, up to ${LOG_PAGE_ROWS} rows, newest first. Every token request, the refused ones too (401 for a revoked or expired key). Secrets and tokens are never recorded.`,
      )}
        <a id="log-csv" href="${ctx.app.base}/log.csv${search ? `?${search}` : ""}">${t(
          "Изтегли като CSV",
          "Download as CSV",
        )}</a></p>
      ${logTable(ctx.app.base, rows, keys)}
    `,
  );
}

/** The filter form: dates, status, key, mode, request id. */
function logFilterForm(base: string, q: LogQuery, keys: readonly ApiKeyRecord[]): Markup {
  const option = (v: string, label: Markup | string, chosen: string | undefined) =>
    html`<option value="${v}" ${chosen === v ? raw("selected") : ""}>${label}</option>`;
  const status = q.status === undefined ? "" : String(q.status);
  return html`
    <form class="filters" method="get" action="${base}/log" id="log-filter">
      <label>${t("Заявка (requestId)", "Request (requestId)")}
        <input name="id" id="filter-id" value="${q.id ?? ""}" size="38" autocomplete="off"></label>
      <label>${t("От", "From")}<input type="date" name="from" id="filter-from" value="${q.from ??
        ""}"></label>
      <label>${t("До", "To")}<input type="date" name="to" id="filter-to" value="${q.to ??
        ""}"></label>
      <label>${t("Отговор", "Status")}<select name="status" id="filter-status">
        ${option("", t("всички", "all"), status)}${option(
          "errors",
          t("грешки", "errors"),
          status,
        )}${option(
          "ok",
          t("успешни", "issued"),
          status,
        )}
        ${["200", "400", "401", "402", "403", "429"].map((v) => option(v, v, status))}
      </select></label>
      <label>${t("Ключ", "Key")}<select name="key" id="filter-key">
        ${option("", t("всички", "all"), q.key ?? "")}
        ${keys.map((k) => option(k.id, `${k.label ? `${k.label} · ` : ""}${k.id}`, q.key))}
      </select></label>
      <label>${t("Режим", "Mode")}<select name="mode" id="filter-mode">
        ${option("", t("всички", "all"), q.mode ?? "")}${option("test", "test", q.mode)}${option(
          "live",
          "live",
          q.mode,
        )}
      </select></label>
      <button id="apply-filter">${t("Покажи", "Show")}</button>
    </form>
  `;
}

/** A key's words in a row: its label (or id) and its mode. */
const keyWords = (keys: readonly ApiKeyRecord[], keyId: string) => {
  const k = keys.find((x) => x.id === keyId);
  return k ? `${k.label || k.id} (${k.mode})` : keyId;
};

/** The log's table; each request id opens its detail. */
function logTable(
  base: string,
  rows: readonly RequestLogEntry[],
  keys: readonly ApiKeyRecord[],
): Markup {
  return tableOr(
    "log",
    [
      ["Време (UTC)", "Time (UTC)"],
      ["Ключ", "Key"],
      ["typeId", "typeId"],
      ["ЕИК", "EIKs"],
      ["HTTP", "HTTP"],
      ["Код на грешка", "Error code"],
      ["requestId", "requestId"],
    ],
    rows.map((e) =>
      html`
        <tr class="${e.status >= 400 ? "refused" : "issued"}" data-status="${e
          .status}" data-key="${e.keyId}">
          <td>${logTime(e.at).slice(0, 19)}</td>
          <td class="mono" title="${e.keyId}">${keyWords(keys, e.keyId)}</td>
          <td class="mono">${e.typeId}</td>
          <td class="mono">${e.eiks}</td>
          <td class="${e.status >= 400 ? "bad" : "ok"}">${e.status}</td>
          <td class="mono">${e.errorCode ?? ""}</td>
          <td
            class="mono small"><a class="request-id" href="${base}/log/${encodeURIComponent(
              e.requestId,
            )}">${e.requestId}</a></td>
        </tr>
      `
    ),
    t("Няма заявки за този избор.", "No requests for this choice."),
  );
}

/** `1.234 ms`, or a dash when not recorded. */
const latencyWords = (ms: number | null | undefined) => ms == null ? "—" : `${ms.toFixed(3)} ms`;

/**
 * GET /log/:requestId: one request of the signed-in integrator's log.
 * @throws AppError NOT_FOUND (404) when no request of theirs in the last
 *   {@link REQUEST_LOG_DAYS} days has this id
 */
async function detailPage(ctx: ProfileContext, c: WebC): Promise<Response> {
  await ctx.flushLog?.();
  const integratorId = integratorOf(c);
  const id = c.req.param("requestId") ?? "";
  const keys = await ctx.store.listKeys({ integratorId });
  const [e] = await ctx.store.listRequestLog(
    logFilter(integratorId, { id }, keys, ctx.clock.now(), 1),
  );
  if (!e) throw new AppError("NOT_FOUND", `No request "${id.slice(0, 100)}" in your log`);
  const key = keys.find((k) => k.id === e.keyId);
  const row = (bg: string, en: string, id: string, value: Markup | string) =>
    html`
      <tr>
        <th>${t(bg, en)}</th>
        <td id="${id}">${value}</td>
      </tr>
    `;
  return ctx.app.page(
    c,
    "log",
    bi("Заявка", "Request"),
    html`
      <table id="request-detail" class="card" data-status="${e.status}">
        ${row(
          "requestId",
          "requestId",
          "detail-request-id",
          html`<span class="mono">${e.requestId}</span>`,
        )}
        ${row("Време (UTC)", "Time (UTC)", "detail-at", logTime(e.at))}
        ${row(
          "Ключ",
          "Key",
          "detail-key",
          html`<span class="mono">${e.keyId}</span>${
            key
              ? html`
                · ${key.label || "—"} · ${key.mode}${key.revokedAt !== null
                  ? html`
                    · ${t("оттеглен", "revoked")}
                  `
                  : ""}
              `
              : ""
          }`,
        )}
        ${row(
          "typeId",
          "typeId",
          "detail-type-id",
          html`<span class="mono">${e.typeId || "—"}</span>`,
        )}
        ${row("ЕИК", "EIKs", "detail-eiks", html`<span class="mono">${e.eiks || "—"}</span>`)}
        ${row(
          "Произход на страницата",
          "Page origin",
          "detail-origin",
          html`<span class="mono">${e.origin ?? "—"}</span>`,
        )}
        ${row("HTTP", "HTTP", "detail-status", String(e.status))}
        ${row(
          "Код на грешка",
          "Error code",
          "detail-error-code",
          html`<span class="mono">${e.errorCode ?? "—"}</span>`,
        )}
        ${row("Какво значи", "What it means", "detail-error-text", errorText(e.errorCode) || "—")}
        ${row("Време за отговор", "Latency", "detail-latency", latencyWords(e.latencyMs))}
      </table>
      <p><a href="${ctx.app.base}/log" id="back-to-log">${t(
        "Към всички заявки",
        "All requests",
      )}</a></p>
    `,
  );
}
