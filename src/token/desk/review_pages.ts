/**
 * The desk's review pages (docs/token-service.md § The administrator's desk): applications
 * waiting (approve with an end date and a note, reject with a note), integrators with their
 * keys (the allowed-EIKs editor: only administrators change it), contracts (terminate with a
 * reason). Every change goes through the same operations as the admin API (admin/,
 * contracts/contracts.ts) and is written to the audit log.
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, bi, isAppError } from "../../contract/mod.ts";
import { type Markup, pick, t, tableOr } from "../../web_page.ts";
import { keyView, setKeyAllowedEiks } from "../admin/mod.ts";
import {
  applicationViews,
  approveApplication,
  contractViews,
  rejectApplication,
  terminateContract,
} from "../contracts/mod.ts";
import {
  columnTable,
  csrfField,
  errorWords,
  type Flash,
  formOf,
  lead,
  stateText,
  type WebC,
  type WebEnv,
} from "../web/mod.ts";
import { auditDesk, type DeskContext, type DeskPage } from "./deps.ts";
import { checkedIdentity, identityCell, verifyIdentity } from "./identity.ts";
import { addRoutes, routeMaker } from "../../route_table.ts";

const iso = (s: string | null) => s === null ? "—" : s.slice(0, 10);
const note = (v: string | undefined) => (v ?? "").trim().slice(0, 2000) || null;
const route = routeMaker<DeskContext, WebEnv>();

/**
 * Run a desk action with the posted form, and show its outcome on `page`. A form that cannot be
 * read is the request's error (the error page); the action's own errors are the page's error
 * flash.
 */
async function act(
  ctx: DeskContext,
  c: WebC,
  page: DeskPage,
  run: (form: Record<string, string>) => Promise<Flash>,
): Promise<Response> {
  const form = await formOf(c);
  let flash: Flash;
  try {
    flash = await run(form);
  } catch (e) {
    if (!isAppError(e)) throw e;
    const words = errorWords(e);
    flash = { kind: "error", bg: `Неуспешно: ${words.bg}`, en: `Failed: ${words.en}` };
  }
  return page(ctx, c, flash);
}

/** A waiting application's two forms: approve (end date, note, EIK) and reject (note). */
const decisionForms = (ctx: DeskContext, c: WebC, id: string): Markup =>
  html`
    <form method="post" action="${ctx.app.base}/applications/${id}/approve">${csrfField(c)}
      <label>${t("До", "Until")} <input type="date" name="endsAt" class="ends-at"></label>
      <input name="note" class="note" placeholder="${pick(bi("бележка", "note"))}" maxlength="2000">
      <input name="eik" class="eik" size="13" placeholder="${pick(bi("ЕИК", "EIK"))}">
      <button class="primary approve">${t("Одобри", "Approve")}</button></form>
    <form method="post" action="${ctx.app.base}/applications/${id}/reject">${csrfField(c)}
      <input name="note" class="note" placeholder="${pick(bi("бележка", "note"))}" maxlength="2000">
      <button class="danger reject">${t("Откажи", "Reject")}</button></form>
  `;

/**
 * The applications page ({@link DeskPage}): those waiting (approve / reject forms) and the last 50
 * decided.
 */
const applicationsPage: DeskPage = async (ctx, c, flash = null) => {
  const list = (await applicationViews(ctx)).reverse();
  const pending = list.filter((a) => a.status === "pending");
  const decided = list.filter((a) => a.status !== "pending").slice(0, 50);
  return ctx.app.page(
    c,
    "applications",
    bi("Заявки за договор", "Contract applications"),
    html`
      <h2>${t("Чакащи", "Waiting")}</h2>
      ${columnTable("pending", {
        columns: [
          [["Заявка", "Application"], (a) => html`${a.id}<br>${iso(a.submittedAt)}`, "mono"],
          [
            ["Фирма", "Company"],
            (a) =>
              html`${a.company}<br><span class="small">${a.contactEmail}</span><br>
              <span class="mono small">${a.integratorId}</span>`,
          ],
          [["Употреба", "Intended use"], (a) => a.intendedUse],
          [null, (a) => decisionForms(ctx, c, a.id)],
        ],
        rows: pending,
        mark: (a) => ["data-application", a.id],
        empty: t("Няма чакащи заявки.", "No applications waiting."),
      })}
      <h2>${t("Решени (последните 50)", "Decided (the last 50)")}</h2>
      ${columnTable("decided", {
        columns: [
          [["Заявка", "Application"], (a) => a.id, "mono"],
          [["Фирма", "Company"], (a) => a.company],
          [["Решение", "Decision"], (a) => html`${stateText(a.status)} ${iso(a.decidedAt)}`],
          [["Бележка", "Note"], (a) => a.decisionNote ?? ""],
        ],
        rows: decided,
        empty: t("Няма.", "None."),
      })}
    `,
    200,
    flash,
  );
};

/**
 * POST /applications/:id/approve: approve with an optional end date (form `endsAt`, a date) and
 * a note, audit it and show the applications page with the outcome.
 * @returns the applications page; `WEB_INPUT_INVALID` (a bad date) and the approval's own
 * errors (unknown or decided application) are shown as the page's error flash
 */
const approve = route("post", "/applications/:id/approve", (ctx, c) => {
  const id = c.req.param("id");
  return act(ctx, c, applicationsPage, async (f) => {
    const endsAt = f.endsAt ? Date.parse(`${f.endsAt}T00:00:00Z`) : undefined;
    if (endsAt !== undefined && Number.isNaN(endsAt)) {
      throw new AppError("WEB_INPUT_INVALID", "The end date is not a date", { field: "endsAt" });
    }
    // An EIK given at approval verifies the integrator's identity, with the company's name as
    // the application gave it (docs/token-service.md § Who asks); checked before approving.
    const eik = (f.eik ?? "").trim();
    const app = eik ? await ctx.store.getApplication(id) : null;
    const identity = app ? checkedIdentity(app.company, eik) : null;
    const res = await approveApplication(ctx, id, { endsAt, note: note(f.note) });
    if (identity) {
      await verifyIdentity(ctx, c, res.contract.integratorId, identity, "contract approval");
    }
    await auditDesk(ctx, c, "application.approve", id, res.contract.integratorId, {
      contractId: res.contract.id,
      endsAt: res.contract.endsAt,
      note: note(f.note),
    });
    return {
      kind: "ok",
      bg: `Одобрена: договор ${res.contract.id}.`,
      en: `Approved: contract ${res.contract.id}.`,
    };
  });
});

/**
 * POST /applications/:id/reject: reject with a note, audit it and show the applications page.
 * @returns the applications page; the rejection's errors are shown as its error flash
 */
const reject = route("post", "/applications/:id/reject", (ctx, c) => {
  const id = c.req.param("id");
  return act(ctx, c, applicationsPage, async (f) => {
    const a = await rejectApplication(ctx, id, note(f.note));
    await auditDesk(ctx, c, "application.reject", id, a.integratorId, { note: note(f.note) });
    return { kind: "ok", bg: "Заявката е отказана.", en: "The application was rejected." };
  });
});

/**
 * The integrators page ({@link DeskPage}): each integrator with its keys in use and their
 * allowed-EIKs editor.
 */
const integratorsPage: DeskPage = async (ctx, c, flash = null) => {
  const [list, keys] = await Promise.all([ctx.store.listIntegrators(), ctx.store.listKeys()]);
  const views = await Promise.all(
    keys.filter((k) => k.revokedAt === null || k.revokedAt > ctx.clock.now()).map((k) =>
      keyView(ctx, k)
    ),
  );
  const rows: Markup[] = list.map((i) =>
    html`
      <tr data-integrator="${i.id}">
        <td class="mono">${i.id}</td>
        <td>${i.name}</td>
        <td>${i.email ?? ""}</td>
        <td>${identityCell(ctx, c, i)}</td>
        <td>${views.filter((k) => k.integratorId === i.id).map((k) =>
          html`
            <form class="eiks" method="post"
              action="${ctx.app.base}/keys/${k.id}/eiks">${csrfField(c)}<span class="mono">${k
                .id}</span> ${k.mode} ${k.status}
                        <input name="eiks" size="30" placeholder="${pick({
                          bg: "всеки",
                          en: "any",
                        })}" value="${(k
                          .allowedEiks ?? []).join(" ")}"> <button>${t(
                            "Запиши ЕИК",
                            "Save EIKs",
                          )}</button></form>
          `
        )}</td>
      </tr>
    `
  );
  return ctx.app.page(
    c,
    "integrators",
    bi("Интегратори и ключове", "Integrators and keys"),
    html`${
      lead(t(
        "Разрешените ЕИК на ключ (празно = всеки) се сменят само тук или през admin API.",
        "A key's allowed EIKs (empty = any) are changed only here or through the admin API.",
      ))
    }
      ${
      tableOr(
        "integrators",
        [["Интегратор", "Integrator"], ["Име", "Name"], ["Е-поща", "E-mail"], [
          "Самоличност",
          "Identity",
        ], [
          "Ключове (действащи)",
          "Keys (in use)",
        ]],
        rows,
        t("Няма интегратори.", "No integrators."),
      )
    }`,
    200,
    flash,
  );
};

/**
 * POST /keys/:id/eiks: set a key's allowed EIKs (form `eiks`, separated by spaces or commas;
 * empty = any), audit it and show the integrators page.
 * @returns the integrators page; `WEB_INPUT_INVALID` (an EIK not of 9 or 13 digits) and an
 * unknown key are shown as its error flash
 */
const saveKeyEiks = route("post", "/keys/:id/eiks", (ctx, c) => {
  const id = c.req.param("id");
  return act(ctx, c, integratorsPage, async (f) => {
    const list = (f.eiks ?? "").split(/[\s,]+/).filter((e) => e !== "");
    if (list.some((e) => !/^[0-9]{9}([0-9]{4})?$/.test(e))) {
      throw new AppError("WEB_INPUT_INVALID", "An EIK has 9 or 13 digits", { field: "eiks" });
    }
    const k = await setKeyAllowedEiks(ctx, id, list.length ? list : null);
    await auditDesk(ctx, c, "key.allowed-eiks", id, k.integratorId, { allowedEiks: list });
    return { kind: "ok", bg: "ЕИК са записани.", en: "The EIKs were saved." };
  });
});

/**
 * The contracts page ({@link DeskPage}): every contract, newest first, with a terminate form on
 * active ones.
 */
const contractsPage: DeskPage = async (ctx, c, flash = null) => {
  const list = (await contractViews(ctx)).reverse();
  return ctx.app.page(
    c,
    "contracts",
    bi("Договори", "Contracts"),
    tableOr(
      "contracts",
      [["Договор", "Contract"], ["Фирма", "Company"], ["Състояние", "State"], [
        "От – до",
        "From – until",
      ], null],
      list.map((v) =>
        html`
          <tr data-contract="${v.id}" data-status="${v.status}">
            <td class="mono">${v.id}<br>${v.integratorId}</td>
            <td>${v.company}</td>
            <td>${stateText(v.status)}${v.terminationReason
              ? html`<br>${v.terminationReason}`
              : ""}</td>
            <td>${iso(v.startsAt)} – ${iso(v.endsAt)}</td>
            <td>${v.status === "active"
              ? html`
                <form method="post"
                  action="${ctx.app.base}/contracts/${v.id}/terminate">${csrfField(
                    c,
                  )}<input name="reason" class="reason" placeholder="${pick({
                    bg: "причина",
                    en: "reason",
                  })}" required maxlength="2000">
                              <button class="danger terminate">${t(
                                "Прекрати",
                                "Terminate",
                              )}</button></form>
              `
              : ""}</td>
          </tr>
        `
      ),
      t("Няма договори.", "No contracts."),
    ),
    200,
    flash,
  );
};

/**
 * POST /contracts/:id/terminate: terminate with a reason (form `reason`), audit it and show
 * the contracts page.
 * @returns the contracts page; the termination's errors (unknown or not active contract) are
 * shown as its error flash
 */
const terminate = route("post", "/contracts/:id/terminate", (ctx, c) => {
  const id = c.req.param("id");
  return act(ctx, c, contractsPage, async (f) => {
    const reason = note(f.reason);
    const res = await terminateContract(ctx, id, reason);
    await auditDesk(ctx, c, "contract.terminate", id, res.contract.integratorId, { reason });
    return { kind: "ok", bg: "Договорът е прекратен.", en: "The contract was terminated." };
  });
});

/**
 * The review routes.
 * @param r the desk's router
 * @param ctx store, clock, random
 */
export function reviewRoutes(r: Hono<WebEnv>, ctx: DeskContext): void {
  addRoutes(r, ctx, [
    route("get", "/applications", applicationsPage),
    approve,
    reject,
    route("get", "/integrators", integratorsPage),
    saveKeyEiks,
    route("get", "/contracts", contractsPage),
    terminate,
  ]);
}
