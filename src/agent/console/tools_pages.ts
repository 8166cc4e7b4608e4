/**
 * The console's Diagnostics and Log pages (docs/console.md § Diagnostics, § Log).
 *
 * - **Diagnostics** (`GET /console/diagnostics`, run with `POST`): the doctor's checks of this
 *   agent — port, token service and clock, data folder, agent.json, PKCS#11 middleware, each
 *   sender's key store, the portal — each with its fix, Bulgarian and English.
 * - **Log** (`GET /console/log?level=&requestId=`): the last 1,000 lines this agent logged,
 *   newest first, filtered by lowest level and request id; secrets and EGNs were redacted when
 *   the line was made (src/log.ts). `GET /console/log/download` gives the same lines as JSON
 *   lines (`svc-agent-log.jsonl`).
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { LogEntry, LogLevel } from "../../log.ts";
import type { ConsoleContext } from "./deps.ts";
import { csrfField, headRow, type Markup, t } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, errorFlash, sendPage } from "./respond.ts";

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** The log filters of a request (unknown values fall back to the defaults). */
function logQuery(c: ConsoleC): { minLevel: LogLevel; requestId?: string } {
  const level = c.req.query("level") as LogLevel | undefined;
  const requestId = (c.req.query("requestId") ?? "").trim().slice(0, 100);
  return {
    minLevel: level && LEVELS.includes(level) ? level : "info",
    ...(requestId ? { requestId } : {}),
  };
}

const LEVEL_CLASS: Record<LogLevel, string> = {
  debug: "muted",
  info: "",
  warn: "warn",
  error: "bad",
};

function logLine(e: LogEntry): Markup {
  const { t: at, level, msg, requestId, ...rest } = e;
  const extra = Object.keys(rest).length ? JSON.stringify(rest) : "";
  return html`
    <tr class="log-line" data-level="${level}">
      <td class="mono small">${at.replace("T", " ").slice(0, 19)}</td>
      <td class="${LEVEL_CLASS[level]}">${level}</td>
      <td>${msg}${extra ? html`<br><code class="small muted">${extra}</code>` : ""}</td>
      <td class="mono small">${requestId ? String(requestId) : ""}</td>
    </tr>
  `;
}

/**
 * The Diagnostics and Log routes.
 * @param ctx the console's context
 * @returns `GET|POST /console/diagnostics`, `GET /console/log`, `GET /console/log/download`
 */
export function toolsRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const title = { bg: "Диагностика", en: "Diagnostics" };

  const diagnostics = async (c: ConsoleC, run: boolean) => {
    const csrf = c.get("session").csrf;
    const form = html`<form method="post" action="/console/diagnostics">${csrfField(csrf)}
<button class="primary" id="run-doctor">${t("Провери сега", "Run the checks")}</button></form>`;
    if (!run || !ctx.console?.doctor) {
      return sendPage(
        c,
        "diagnostics",
        title,
        html`<p>${
          t(
            "Проверява порта, услугата за токени и часовника, папката с данни, настройките, средствата за подпис и портала, и казва какво да се поправи.",
            "Checks the port, the token service and the clock, the data folder, the settings, the signing middleware and the portal, and says what to fix.",
          )
        }</p>${form}`,
      );
    }
    try {
      const checks = await ctx.console.doctor();
      const failed = checks.filter((k) => k.ok === false).length;
      const warned = checks.filter((k) => k.ok === "warn").length;
      ctx.log("info", "console diagnostics", { failed, warned });
      const body = html`
        ${form}
        <p id="doctor-summary" class="${failed ? "bad" : warned ? "warn" : "ok"}">${failed
          ? t(`${failed} проверки не минаха`, `${failed} checks failed`)
          : warned
          ? t(`Всичко работи; ${warned} предупреждения`, `All working; ${warned} warnings`)
          : t("Всичко е наред", "All checks passed")}</p>
        <table id="doctor">${headRow(
          null,
          ["Проверка", "Check"],
          ["Резултат", "Result"],
          ["Как да се поправи", "How to fix"],
        )}${checks.map((k) =>
          html`
            <tr data-check="${k.id}" data-ok="${String(k.ok)}">
              <td class="${k.ok === true ? "ok" : k.ok === "warn" ? "warn" : "bad"}">${k.ok === true
                ? "✓"
                : k.ok === "warn"
                ? "!"
                : "✗"}</td>
              <td>${t(k.titleBg, k.title)}</td>
              <td>${k.detailBg}<br><span class="en">${k.detail}</span></td>
              <td>${k.fix ? html`${k.fixBg ?? ""}<br><span class="en">${k.fix}</span>` : ""}</td>
            </tr>
          `
        )}</table>
      `;
      return sendPage(c, "diagnostics", title, body);
    } catch (e) {
      return sendPage(c, "diagnostics", title, form, 502, errorFlash(e, title));
    }
  };
  r.get("/console/diagnostics", (c) => diagnostics(c, false));
  r.post("/console/diagnostics", (c) => diagnostics(c, true));

  r.get("/console/log", (c) => {
    const q = logQuery(c);
    const lines = (ctx.console?.logs?.lines(q) ?? []).reverse();
    const params = new URLSearchParams({ level: q.minLevel, ...q });
    params.delete("minLevel");
    const body = html`
      <form method="get" action="/console/log" class="filters">
      <label>${t("Ниво от", "Lowest level")}<select name="level" id="log-level">${LEVELS.map((l) =>
        html`<option value="${l}" ${l === q.minLevel ? "selected" : ""}>${l}</option>`
      )}</select></label>
      <label>${t(
        "Номер на заявка",
        "Request id",
      )}<input name="requestId" id="log-request" value="${q.requestId ?? ""}" size="38"></label>
      <button id="log-filter">${t("Покажи", "Show")}</button>
      <a class="button" id="log-download" href="/console/log/download?${params}">${t(
        "Изтегли",
        "Download",
      )}</a></form>
      <p class="muted small">${t(
        `${lines.length} реда (най-новите отгоре; пазят се последните 1000). Тайните и ЕГН са скрити.`,
        `${lines.length} lines (newest first; the last 1,000 are kept). Secrets and EGNs are hidden.`,
      )}</p>
      <table id="log">${headRow(
        ["Време (UTC)", "Time (UTC)"],
        ["Ниво", "Level"],
        ["Съобщение", "Message"],
        ["Заявка", "Request"],
      )}${lines.map(logLine)}</table>
    `;
    return sendPage(c, "log", { bg: "Дневник", en: "Log" }, body);
  });

  r.get("/console/log/download", (c) => {
    const lines = ctx.console?.logs?.lines(logQuery(c)) ?? [];
    return c.body(
      lines.map((l) => JSON.stringify(l)).join("\n") + (lines.length ? "\n" : ""),
      200,
      {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": 'attachment; filename="svc-agent-log.jsonl"',
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    );
  });
  return r;
}
