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
import { bi } from "../../contract/mod.ts";
import { Hono } from "hono";
import { html } from "hono/html";
import type { LogEntry, LogLevel } from "../../log.ts";
import { logWords } from "../texts/mod.ts";
import type { DoctorCheck } from "../doctor/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, count, csrfField, headRow, type Markup, say, w, when } from "./layout.ts";
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

/** A log line in the chosen language: local time, the level and the message in words (the
 * line's fields, as logged, inside a "details" disclosure). */
function logLine(e: LogEntry): Markup {
  const { t: at, level, msg, requestId, ...rest } = e;
  const fields = Object.entries(rest);
  return html`
    <tr class="log-line" data-level="${level}" data-msg="${msg}">
      <td class="small nowrap">${when(at, true)}</td>
      <td class="${LEVEL_CLASS[level]}">${w(`level.${level}`)}</td>
      <td>${logWords(msg)}${fields.length
        ? html`<details class="small muted"><summary>${w("tools.log_details")}</summary>${
          fields.map(([k, v]) =>
            html`<div><code>${k}</code>: ${typeof v === "string" ? v : JSON.stringify(v)}</div>`
          )
        }</details>`
        : ""}</td>
      <td class="mono small">${requestId ? String(requestId) : ""}</td>
    </tr>
  `;
}

/** An ISO 8601 UTC time the doctor writes (`2027-01-31T22:00:00.000Z`). */
const ISO_UTC = /\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z\b/g;

/**
 * A doctor's sentence with its UTC times in the computer's local time and offset, as every
 * console page shows times (texts/words.ts `when`); the CLI's report keeps them as they are.
 * @param text the sentence
 * @returns the sentence, each time replaced
 */
export const localTimes = (text: string): string => text.replace(ISO_UTC, (iso) => when(iso));

/** The diagnostics' checks: mark, check, result and how to fix, in the page's language. */
function checksTable(checks: readonly DoctorCheck[]): Markup {
  return html`
    <table id="doctor">${headRow(
      null,
      "tools.check",
      "tools.result",
      "tools.how_to_fix",
    )}${checks.map((k) =>
      html`
        <tr data-check="${k.id}" data-ok="${String(k.ok)}">
          <td class="${k.ok === true ? "ok" : k.ok === "warn" ? "warn" : "bad"}">${k.ok === true
            ? "✓"
            : k.ok === "warn"
            ? "!"
            : "✗"}</td>
          <td>${say(bi(k.titleBg, k.title))}</td>
          <td>${localTimes(say(bi(k.detailBg, k.detail)))}</td>
          <td>${k.fix ? localTimes(say(bi(k.fixBg ?? k.fix, k.fix))) : ""}</td>
        </tr>
      `
    )}</table>
  `;
}

/**
 * `GET|POST /console/diagnostics`: the page with its button; on POST (`run`), the checks run and
 * their summary, the table open when one needs attention (502 with the error when they cannot run).
 */
async function diagnosticsPage(ctx: ConsoleContext, c: ConsoleC, run: boolean): Promise<Response> {
  const title = both("tools.diagnostics");
  const csrf = c.get("session").csrf;
  const form = html`<form method="post" action="/console/diagnostics">${csrfField(csrf)}
<button class="primary" id="run-doctor">${w("tools.run_the_checks")}</button></form>`;
  if (!run || !ctx.console?.doctor) {
    return sendPage(
      c,
      "diagnostics",
      title,
      html`<p>${w("tools.checks_the_port_the")}</p>${form}`,
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
        ? count("count.checks_failed", failed)
        : warned
        ? w("tools.all_working_warnings", { warnings: count("count.warnings", warned) })
        : w("tools.all_checks_passed")}</p>
      <details id="doctor-details" ${failed || warned ? "open" : ""}>
        <summary>${w("tools.every_check")}</summary>
        ${checksTable(checks)}
      </details>
    `;
    return sendPage(c, "diagnostics", title, body);
  } catch (e) {
    return sendPage(c, "diagnostics", title, form, 502, errorFlash(e, title));
  }
}

/** `GET /console/log`: the recent log lines, newest first, filtered by level and request id. */
function logPage(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const q = logQuery(c);
  const lines = (ctx.console?.logs?.lines(q) ?? []).reverse();
  const params = new URLSearchParams({ level: q.minLevel, ...q });
  params.delete("minLevel");
  const body = html`
    <form method="get" action="/console/log" class="filters">
    <label>${w("tools.lowest_level")}<select name="level" id="log-level">${LEVELS.map((l) =>
      html`<option value="${l}" ${l === q.minLevel ? "selected" : ""}>${l}</option>`
    )}</select></label>
    <label>${w(
      "tools.request_id",
    )}<input name="requestId" id="log-request" value="${q.requestId ?? ""}" size="38"></label>
    <button id="log-filter">${w("tools.show")}</button>
    <a class="button" id="log-download" href="/console/log/download?${params}">${w(
      "tools.download",
    )}</a></form>
    <p class="muted small">${count("count.rows", lines.length)}. ${w("tools.log_note")}</p>
    <table id="log">${headRow(
      "tools.time",
      "tools.level",
      "tools.message",
      "tools.request",
    )}${lines.map(logLine)}</table>
    ${lines.length ? "" : html`<p class="muted empty" id="log-empty">${w("tools.log_empty")}</p>`}
  `;
  return sendPage(c, "log", both("tools.log"), body);
}

/** `GET /console/log/download`: the same lines as JSON Lines, oldest first. */
function logDownload(ctx: ConsoleContext, c: ConsoleC): Response {
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
}

/**
 * The Diagnostics and Log routes.
 * @param ctx the console's context
 * @returns `GET|POST /console/diagnostics`, `GET /console/log`, `GET /console/log/download`
 */
export function toolsRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get("/console/diagnostics", (c) => diagnosticsPage(ctx, c, false));
  r.post("/console/diagnostics", (c) => diagnosticsPage(ctx, c, true));
  r.get("/console/log", (c) => logPage(ctx, c));
  r.get("/console/log/download", (c) => logDownload(ctx, c));
  return r;
}
