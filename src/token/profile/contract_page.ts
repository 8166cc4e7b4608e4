/**
 * The profile's contract page (docs/token-service.md § The profile, contract): the phase the
 * integrator is in (1: keys only; 2: an application waits for an administrator; 3: a contract
 * in force), the application form, its state and the administrator's note, the contracts'
 * dates, the e-mail notices sent, and the monthly statements of each contract (a table, and
 * CSV to download). Only the signed-in integrator's own records.
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, ApplicationSubmit, bi } from "../../contract/mod.ts";
import { type Markup, t } from "../../web_page.ts";
import { parseInput } from "../admin/mod.ts";
import { type ContractView, contractViews, submitApplication } from "../contracts/mod.ts";
import { buildStatement, requireMonth, statementCsv } from "../contracts/mod.ts";
import type { ApplicationRecord, NoticeRecord, UsageRow } from "../store/mod.ts";
import {
  columnTable,
  csrfField,
  errorWords,
  type Flash,
  formOf,
  signedInOf,
  stateText as state,
  type WebC,
  type WebEnv,
} from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";
import { auditProfile, integratorOf } from "./keys_page.ts";
import { applicationHistory } from "./application_history.ts";

const day = (ms: number | null) => ms === null ? "—" : new Date(ms).toISOString().slice(0, 10);
const iso = (s: string | null) => s === null ? "—" : s.slice(0, 10);

/**
 * The contract routes.
 * @param r the profile's router
 * @param ctx store, clock, random
 */
export function contractRoutes(r: Hono<WebEnv>, ctx: ProfileContext): void {
  r.get("/contract", (c) =>
    contractPage(
      c,
      ctx,
      c.req.query("applied") === "1"
        ? {
          kind: "ok",
          bg: "Заявката е подадена; администратор ще я прегледа.",
          en: "The application was sent; an administrator will review it.",
        }
        : null,
    ));

  r.post("/contract/apply", async (c) => {
    const f = await formOf(c);
    try {
      const input = parseInput(ApplicationSubmit, {
        company: (f.company ?? "").trim(),
        contactEmail: (f.contactEmail ?? "").trim(),
        intendedUse: (f.intendedUse ?? "").trim(),
      });
      const a = await submitApplication(ctx, integratorOf(c), input);
      await auditProfile(ctx, c, "application.submit", a.id, { company: a.company });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return contractPage(c, ctx, {
        kind: "error",
        bg: `Заявката не е подадена: ${errorWords(e).bg}`,
        en: `The application was not sent: ${errorWords(e).en}`,
      });
    }
    // After a post, a redirect: a reload of the page never sends the application twice.
    return c.redirect(`${ctx.app.base}/contract?applied=1`, 303);
  });

  r.get("/contract/statements/:contractId/:file{[0-9]{4}-[0-9]{2}\\.csv}", async (c) => {
    const contract = await ctx.store.getContract(c.req.param("contractId"));
    if (!contract || contract.integratorId !== integratorOf(c)) {
      throw new AppError("NOT_FOUND", "No such contract");
    }
    const month = requireMonth(c.req.param("file").slice(0, 7));
    await ctx.flushUsage?.();
    const s = await buildStatement(ctx.store, contract.id, month);
    return c.body(statementCsv(s), 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="statement-${contract.id}-${month}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
  });
}

/**
 * The contract page: the integrator's phase, the application form (only while neither an
 * application waits nor a contract is in force), their applications, contracts, monthly
 * statements and the notices sent to them.
 * @param c the request (signed in: the profile guard let it through)
 * @param ctx store, clock, usage flush
 * @param flash the outcome of an action just taken, if any
 * @returns the HTML page (200); store errors propagate to the app's error handler
 */
async function contractPage(c: WebC, ctx: ProfileContext, flash: Flash | null) {
  const integratorId = integratorOf(c);
  await ctx.flushUsage?.();
  const [integrator, applications, contracts, notices, usage, audit] = await Promise.all([
    ctx.store.getIntegrator(integratorId),
    ctx.store.listApplications({ integratorId }),
    contractViews(ctx, { integratorId }),
    ctx.store.listNotices({ integratorId }),
    ctx.store.listBillingCounts({ integratorId }),
    ctx.store.listAudit({ integratorId, limit: 200 }),
  ]);
  const views = contracts.reverse();
  const inForce = views.find((v) => v.status === "active");
  const pending = applications.find((a) => a.status === "pending");
  const phase = inForce ? 3 : pending ? 2 : 1;
  const base = ctx.app.base;
  const user = signedInOf(c).user;
  return ctx.app.page(
    c,
    "contract",
    bi("Договор", "Contract"),
    html`
      <div class="card">
        <p id="phase" data-phase="${phase}"><strong>${phaseText(phase, inForce)}</strong></p>
      </div>
      ${pending || inForce ? "" : applyForm(c, base, integrator?.name ?? "", user.email)}
      <h2>${t("Заявки", "Applications")}</h2>
      ${applicationsTable(applications)}
      <h2>${t("История на заявките", "Applications' history")}</h2>
      ${applicationHistory(audit, notices)}
      <h2>${t("Договори", "Contracts")}</h2>
      ${contractsTable(views)}
      <h2>${t("Месечни справки", "Monthly statements")}</h2>
      ${statementsTable(base, usage)}
      <h2>${t("Изпратени известия", "Notices sent")}</h2>
      ${noticesTable(notices)}
    `,
    200,
    flash,
  );
}

/**
 * The phase line: 1 keys without a contract, 2 an application waits, 3 a contract in force.
 * @param phase the integrator's phase
 * @param inForce the contract in force (phase 3)
 * @returns the line in both languages
 */
function phaseText(phase: 1 | 2 | 3, inForce: ContractView | undefined): Markup {
  return {
    1: t(
      "Фаза 1: ключове без договор (реален ключ — 7 дни, до 3 ЕИК).",
      "Phase 1: keys without a contract (a live key: 7 days, up to 3 EIKs).",
    ),
    2: t("Фаза 2: заявката чака преглед.", "Phase 2: the application awaits review."),
    3: t(
      `Фаза 3: договор ${inForce?.id ?? ""} до ${
        iso(inForce?.endsAt ?? null)
      } — без срок и ограничение на ключовете.`,
      `Phase 3: contract ${inForce?.id ?? ""} until ${
        iso(inForce?.endsAt ?? null)
      } — keys without expiry or limit.`,
    ),
  }[phase];
}

/**
 * The application form (POST `{base}/contract/apply`), prefilled with the company and e-mail.
 * @param c the request (for the CSRF field)
 * @param base the profile's base path
 * @param company the integrator's name
 * @param email the signed-in person's e-mail
 * @returns the form's card
 */
function applyForm(c: WebC, base: string, company: string, email: string): Markup {
  return html`
    <div class="card">
      <h2>${t("Заявка за договор", "Apply for a contract")}</h2>
      <form class="stack" method="post" action="${base}/contract/apply" id="apply-form">${csrfField(
        c,
      )}
              <label>${t(
                "Фирма",
                "Company",
              )}<br><input name="company" id="apply-company" required maxlength="200" value="${company}"></label>
              <label>${t(
                "Е-поща за договора",
                "E-mail for the contract",
              )}<br><input type="email" name="contactEmail" id="apply-email" required value="${email}"></label>
              <label>${t(
                "За какво ще ползвате услугата",
                "What you will use the service for",
              )}<br>
                <textarea name="intendedUse" id="apply-use" required maxlength="4000" rows="3" cols="60"></textarea></label>
              <button class="primary" id="apply">${t("Подай заявка", "Apply")}</button>
            </form>
    </div>
  `;
}

/**
 * The applications table, newest first.
 * @param applications the integrator's applications, oldest first
 * @returns the table, or a "none" line
 */
function applicationsTable(applications: readonly ApplicationRecord[]): Markup {
  return columnTable("applications", {
    columns: [
      [["Заявка", "Application"], (a) => a.id, "mono"],
      [["Подадена", "Submitted"], (a) => day(a.submittedAt)],
      [["Състояние", "State"], (a) => state(a.status)],
      [["Решение", "Decided"], (a) => day(a.decidedAt)],
      [["Бележка", "Note"], (a) => a.decisionNote ?? ""],
    ],
    rows: [...applications].reverse(),
    mark: (a) => ["data-status", a.status],
    empty: t("Няма заявки.", "No applications."),
  });
}

/**
 * The contracts table.
 * @param views the integrator's contracts as seen now, newest first
 * @returns the table, or a "none" line
 */
function contractsTable(views: readonly ContractView[]): Markup {
  return columnTable("contracts", {
    columns: [
      [["Договор", "Contract"], (v) => v.id, "mono"],
      [["Състояние", "State"], (v) => state(v.status)],
      [["От", "From"], (v) => iso(v.startsAt)],
      [["До", "Until"], (v) => iso(v.endsAt)],
      [
        ["Прекратен", "Terminated"],
        (v) => html`${iso(v.terminatedAt)} ${v.terminationReason ?? ""}`,
      ],
    ],
    rows: views,
    mark: (v) => ["data-status", v.status],
    empty: t("Няма договори.", "No contracts."),
  });
}

/**
 * The monthly statements table: tokens per contract and month, with a CSV link each.
 * @param base the profile's base path
 * @param usage the integrator's usage rows (rows without a contract are left out)
 * @returns the table, or a "none" line
 */
function statementsTable(base: string, usage: readonly UsageRow[]): Markup {
  const months = new Map<string, { contractId: string; month: string; n: number }>();
  for (const u of usage) {
    if (u.contractId === "") continue;
    const id = `${u.contractId}\u0000${u.month}`;
    const row = months.get(id) ?? { contractId: u.contractId, month: u.month, n: 0 };
    row.n += u.count;
    months.set(id, row);
  }
  return columnTable("statements", {
    columns: [
      [["Договор", "Contract"], (m) => m.contractId, "mono"],
      [["Месец", "Month"], (m) => m.month],
      [["Токени", "Tokens"], (m) => m.n],
      [
        null,
        (m) => html`<a href="${base}/contract/statements/${m.contractId}/${m.month}.csv">CSV</a>`,
      ],
    ],
    rows: [...months.values()],
    empty: t("Още няма справки.", "No statements yet."),
  });
}

/**
 * The table of e-mail notices sent to the integrator.
 * @param notices the integrator's notices
 * @returns the table, or a "none" line
 */
function noticesTable(notices: readonly NoticeRecord[]): Markup {
  return columnTable("notices", {
    columns: [
      [["Известие", "Notice"], (n) => n.kind],
      [["За", "About"], (n) => n.subjectId, "mono"],
      [["Състояние", "State"], (n) => n.status],
      [["Изпратено", "Sent"], (n) => day(n.sentAt)],
    ],
    rows: notices,
    empty: t("Няма известия.", "No notices."),
  });
}
