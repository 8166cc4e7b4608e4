/**
 * Folder-wide filings in the console (docs/console.md § Folder-wide filings): on top of the
 * Filings page, each running batch with a progress bar, the company being filed, what it waits
 * for ("the NRA asked to wait 30 s") and the time left — kept current by a small script that
 * reads `GET /console/batches.json` once a second — and each batch of the last 10 minutes with a
 * link to its page: one row per company with its outcome (filed, skipped, failed, unknown with
 * the way to resolve it) and a CSV of the same rows. Only counts, EIKs and journal ids: the
 * progress board (filing/batch_board.ts) holds no paths.
 *
 * Routes: `GET /console/batches.json`, `GET /console/batches/:batchId`,
 * `GET /console/batches/:batchId/export`.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { bi, declarationName, type KeyMode } from "../../contract/mod.ts";
import { toCsv } from "../../csv.ts";
import type { BatchEntryView, BatchOutcome, BatchProgressView, ScanView } from "../filing/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import {
  type Bilingual,
  both,
  headRow,
  type Markup,
  say,
  type TextKey,
  w,
  when,
} from "./layout.ts";
import { type Lang, type Vars, withLang } from "../texts/mod.ts";
import { type ConsoleC, type ConsoleEnv, notFoundPage, sendPage } from "./respond.ts";
import { scriptTag } from "../../web_assets.ts";
import { BATCHES_JS } from "./assets/mod.ts";
import { interruptedBody } from "./batches_interrupted.ts";

/** A batch's outcomes in accountants' words. */
const OUTCOME_WORDS: Record<BatchOutcome["outcome"], Bilingual & { cls: string }> = {
  submitted: { ...both("batches.outcome_submitted"), cls: "ok" },
  skipped: { ...both("batches.outcome_skipped"), cls: "muted" },
  failed: { ...both("batches.outcome_failed"), cls: "bad" },
  unknown: { ...both("batches.outcome_unknown"), cls: "warn" },
};

/** Seconds as people read them, in a language: "45 сек.", "3 min 20 s". */
export function duration(s: number, lang: Lang = "en"): string {
  return withLang(lang, () => {
    if (s < 60) return w("time.seconds", { n: s });
    const m = Math.floor(s / 60);
    return s % 60 ? w("time.minutes_seconds", { m, s: s % 60 }) : w("time.minutes", { m });
  });
}

/** How far a batch is: companies with an outcome of all found. */
const doneOf = (p: BatchProgressView) => p.filed + p.skipped + p.failed + p.unknown;

/** A catalog text in both languages, each with its own durations. */
const inBoth = (
  key: TextKey,
  vars: (lang: Lang) => Vars,
): Bilingual => (bi(
  withLang("bg", () => w(key, vars("bg"))),
  withLang("en", () => w(key, vars("en"))),
));

/** What a running batch waits for, or does, in both languages. */
export function batchStatusLine(p: BatchProgressView, company: string | null): Bilingual {
  if (p.state === "interrupted") {
    const left = p.remaining?.length ?? 0;
    return both("batches.interrupted", { left, count: left + p.filed });
  }
  if (p.state === "done") {
    return both("batches.finished", { filed: p.filed, failed: p.failed, unknown: p.unknown });
  }
  if (p.waiting) {
    const secs = p.waiting.retryAfterSeconds;
    return inBoth("batches.nra_asked_to_wait", (l) => ({ time: duration(secs, l) }));
  }
  if (p.total === 0) {
    return both("batches.waiting_for_the_confirmation");
  }
  const who = p.current ? `${p.current.eik}${company ? ` ${company}` : ""}` : "";
  return who ? both("batches.filing_who", { who }) : both("batches.filing");
}

/** The time left, in both languages. */
function leftLine(p: BatchProgressView): Bilingual {
  if (p.state !== "running") return bi("", "");
  const eta = p.etaSeconds;
  if (eta === null) return both("batches.time_left_working_it");
  return inBoth("batches.time_left", (l) => ({ time: duration(eta, l) }));
}

/** A long folder scan's line, in both languages. */
function scanLine(s: ScanView): Bilingual {
  return s.found === 0
    ? inBoth("batches.listing_files", (l) => ({ time: duration(s.seconds, l) }))
    : inBoth("batches.files_read", (l) => ({
      read: s.examined,
      found: s.found,
      time: duration(s.seconds, l),
    }));
}

/** The JSON the console's script reads: each batch's and long scan's numbers and texts. */
function consoleJson(ctx: ConsoleContext) {
  return {
    batches: batchesJson(ctx, ctx.batches?.list() ?? []),
    scans: (ctx.batches?.scans() ?? []).map((s) => ({
      done: s.examined,
      total: s.found,
      status: scanLine(s),
    })),
  };
}

/** Each batch's numbers and texts, nothing else. */
function batchesJson(ctx: ConsoleContext, list: readonly BatchEntryView[]) {
  const name = (eik: string, mode: KeyMode) => ctx.portals[mode]?.companyName?.(eik) ?? null;
  return list.map((b) => {
    const p = b.progress;
    return {
      batchId: p.batchId,
      state: p.state,
      done: doneOf(p),
      total: p.total,
      status: batchStatusLine(p, p.current ? name(p.current.eik, b.mode) : null),
      left: leftLine(p),
    };
  });
}

/**
 * The "Folder-wide filings" section of the Filings page (empty when none ran lately).
 * @param ctx the console's context (the board, the portals' company names)
 * @returns markup
 */
export function batchesPanel(ctx: ConsoleContext): Markup {
  const list = ctx.batches?.list() ?? [];
  const scans = ctx.batches?.scans() ?? [];
  if (list.length === 0 && scans.length === 0) return html``;
  const json = batchesJson(ctx, list);
  return html`
    <section class="card" id="batches">
      <h2>${w("batches.folder_wide_filings_and")}</h2>
      ${scans.map((s) =>
        html`
          <div class="batch" data-scan="1" data-state="running">
            <p><strong>${w("batches.reading_a_folder")}</strong> · ${say(
              declarationName(s.typeId),
            )} · <span class="muted small">${s.integrator}</span></p>
            <p><progress max="${Math.max(1, s.found)}" value="${s.examined}"></progress>
              <span class="count">${s.examined} / ${s.found}</span></p>
            <p class="status">${say(scanLine(s))}</p>
          </div>
        `
      )}
      ${list.map((b, i) => {
        const p = b.progress;
        // non-null: json has one entry per batch of list (built from it above)
        const j = json[i]!;
        return html`
          <div class="batch" data-batch="${p.batchId}" data-state="${p.state}">
            <p><strong>${say(declarationName(p.typeId))}</strong> · <span class="muted small">${w(
              "batches.started",
            )} ${when(p.startedAt, true)} · ${b.integrator}</span></p>
            <p><progress max="${Math.max(1, p.total)}" value="${doneOf(p)}"></progress>
              <span class="count">${doneOf(p)} / ${p.total}</span></p>
            <p class="status ${p.waiting ? "warn" : ""}">${say(j.status)}</p>
            <p class="left muted small">${say(j.left)}</p>
            ${p.state === "done"
              ? html`<p><a class="button" href="/console/batches/${p.batchId}">${
                w("batches.outcome_per_company")
              }</a></p>`
              : p.state === "interrupted"
              ? html`<p><a class="button primary" href="/console/batches/${p.batchId}">${
                w("batches.companies_not_filed")
              }</a></p>`
              : ""}
          </div>
        `;
      })}
    </section>
    ${scriptTag("", BATCHES_JS)}
  `;
}

/** A batch the board still keeps, by its id (null once it was swept). */
const findBatch = (ctx: ConsoleContext, id: string): BatchEntryView | null =>
  ctx.batches?.list().find((b) => b.progress.batchId === id) ?? null;

/** `GET /console/batches/:batchId/export`: the batch's outcome per company as CSV (404 when gone). */
function batchCsv(ctx: ConsoleContext, c: ConsoleC): Response {
  const b = findBatch(ctx, c.req.param("batchId") ?? "");
  if (!b) return c.text("", 404);
  const csv = toCsv(
    ["eik", "company", "outcome", "errorCode", "filingId", "documentId"],
    b.outcomes.map((o) => [
      o.eik,
      ctx.portals[b.mode]?.companyName?.(o.eik) ?? "",
      o.outcome === "submitted" ? "filed" : o.outcome,
      o.errorCode ?? "",
      o.filingId ?? "",
      o.documentId ?? "",
    ]),
  );
  return c.body(csv, 200, {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="batch-${b.progress.batchId}.csv"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
}

/** One company's outcome row: EIK, name, outcome in words, code, document, where to look next. */
function outcomeRow(ctx: ConsoleContext, b: BatchEntryView, o: BatchOutcome): Markup {
  const ow = OUTCOME_WORDS[o.outcome];
  const company = ctx.portals[b.mode]?.companyName?.(o.eik) ?? "";
  const how = o.outcome === "unknown" && o.filingId
    ? html`<a href="/console/filings?state=unknown&eik=${o.eik}#resolve-${o.filingId}">${
      w("batches.check_on_the_nra")
    }</a>`
    : o.filingId
    ? html`<a href="/console/filings?eik=${o.eik}">${w("batches.in_the_journal")}</a>`
    : "";
  return html`
    <tr class="outcome-${o.outcome}">
      <td class="mono">${o.eik}</td>
      <td>${company}</td>
      <td class="${ow.cls}">${say(ow)}</td>
      <td class="mono">${o.errorCode ?? ""}</td>
      <td class="mono">${o.documentId ?? ""}</td>
      <td>${how}</td>
    </tr>
  `;
}

/** `GET /console/batches/:batchId`: a finished batch's outcome per company, with its exports. */
function batchPage(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const title = both("batches.folder_wide_filing");
  const b = findBatch(ctx, c.req.param("batchId") ?? "");
  if (!b) {
    return notFoundPage(c, "filings", title, w("batches.no_such_filing_in"));
  }
  const p = b.progress;
  if (p.state === "interrupted") {
    return sendPage(
      c,
      "filings",
      title,
      html`
        <p>${say(declarationName(p.typeId))} · <span class="warn">${say(
          batchStatusLine(p, null),
        )}</span></p>
        ${interruptedBody(ctx, b)}
        <p><a class="button" href="/console/filings">${w("batches.back_to_filings")}</a></p>
      `,
    );
  }
  const rows = b.outcomes.map((o) => outcomeRow(ctx, b, o));
  return sendPage(
    c,
    "filings",
    title,
    html`
      <p>${say(declarationName(p.typeId))} · ${say(batchStatusLine(p, null))}</p>
      <p>${w("batches.outcome_per_company_2")}
        <a class="button" id="batch-csv" href="/console/batches/${p.batchId}/export">CSV</a> ·
        ${w("batches.the_batch_s_filings")}
        <a class="button" id="batch-filings-csv" href="/console/filings/export?batch=${p
          .batchId}&amp;format=csv">CSV</a>
        <a class="button" id="batch-filings-xlsx" href="/console/filings/export?batch=${p
          .batchId}&amp;format=xlsx">Excel</a>
        <a class="button" href="/console/filings">${w("batches.back_to_filings")}</a></p>
      <table id="batch-outcomes">${headRow(
        "batches.eik",
        "batches.company",
        "batches.outcome",
        "batches.code",
        "batches.document",
        null,
      )}${rows}</table>
    `,
  );
}

/**
 * The routes of the batches' pages.
 * @param ctx the console's context
 * @returns a Hono sub-app
 */
export function batchesRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get(
    "/console/batches.json",
    (c) => c.json(consoleJson(ctx), 200, { "cache-control": "no-store" }),
  );
  r.get("/console/batches/:batchId/export", (c) => batchCsv(ctx, c));
  r.get("/console/batches/:batchId", (c) => batchPage(ctx, c));
  return r;
}
