/**
 * The profile's keys (docs/token-service.md § The profile, keys): a test key at once (its
 * secret shown once, with a copy button and the `curl` line that uses it), a live key under
 * phase 1's rules (7 days, at most 3 EIKs before a contract; the button and the note say so only
 * then), each with a label; each key's label, mode, phase, status, created and last-used times
 * (key_last_used.ts), expiry, EIKs used against its limit and page origins; editing the origins,
 * rotation with a grace period (the message says until when the old secret works), revocation
 * after a confirmation page. Every change answers 303 to the page (keys_flow.ts): a reload
 * makes no second key.
 * Only the signed-in integrator's own keys: another's key id answers 404 as an unknown one.
 * Allowed EIKs stay an administrator's change.
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, bi, isAppError, type KeyMode } from "../../contract/mod.ts";
import { type Markup, t, tableOr } from "../../web_page.ts";
import {
  createKeyFor,
  type KeyView,
  keyView,
  revokeKeyNow,
  rotateKeyNow,
  setKeyAllowedOrigins,
} from "../admin/mod.ts";
import type { ApiKeyRecord } from "../store/mod.ts";
import {
  auditBy,
  csrfField,
  errorWords,
  type Flash,
  formOf,
  postForm,
  signedInOf,
  type WebC,
  type WebEnv,
} from "../web/mod.ts";
import { resourcesCard } from "./resources.ts";
import type { ProfileContext } from "./deps.ts";
import { type FreshSecret, keepFresh, keysFlash, takeFresh } from "./keys_flow.ts";
import { type LastUsed, lastUsedOf } from "./key_last_used.ts";

/** Record a change the signed-in person made (audit/audit_log.ts). */
export function auditProfile(
  ctx: ProfileContext,
  c: WebC,
  action: string,
  target: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const user = signedInOf(c).user;
  return auditBy(ctx, c, user, { action, target, integratorId: user.integratorId, detail });
}

/** The signed-in integrator's id. */
export function integratorOf(c: WebC): string {
  const id = c.get("signedIn")?.user.integratorId;
  if (!id) throw new AppError("WEB_FORBIDDEN", "This page is for integrators");
  return id;
}

/**
 * One of the signed-in integrator's keys.
 * @throws AppError NOT_FOUND (404) for an unknown key or another integrator's
 */
export async function ownKey(ctx: ProfileContext, c: WebC, id: string): Promise<ApiKeyRecord> {
  const k = await ctx.store.getKey(id);
  if (!k || k.integratorId !== integratorOf(c)) {
    throw new AppError("NOT_FOUND", `No key "${id}"`, { keyId: id });
  }
  return k;
}

const when = (iso: string | null) => iso === null ? "—" : iso.slice(0, 16).replace("T", " ");

const PHASES: Record<string, [string, string]> = {
  testing: ["тест", "testing"],
  pre_contract: ["преди договор (фаза 1)", "before a contract (phase 1)"],
  contract: ["по договор (фаза 3)", "under a contract (phase 3)"],
};

const STATUSES: Record<KeyView["status"], [string, string]> = {
  active: ["действа", "active"],
  expired: ["изтекъл", "expired"],
  revoked: ["отменен", "revoked"],
  revoking: ["отменя се", "revoking"],
};

/**
 * The keys routes.
 * @param r the profile's router
 * @param ctx store, clock, random
 */
export function keysRoutes(r: Hono<WebEnv>, ctx: ProfileContext): void {
  const keysUrl = `${ctx.app.base}/keys`;
  r.get("/keys", async (c) => {
    const fresh = await takeFresh(c, ctx, integratorOf(c));
    return keysPage(c, ctx, fresh, keysFlash(fresh, c.req.query("done")));
  });

  // Every change answers 303 to the page (keys_flow.ts): a reload repeats nothing.
  r.post("/keys", async (c) => {
    const f = await formOf(c);
    const mode = f.mode === "live" ? "live" : "test";
    const label = (f.label ?? "").trim().slice(0, 200) || null;
    const made = await createKeyFor(ctx, {
      integratorId: integratorOf(c),
      mode,
      label,
      allowedEiks: null,
    });
    await auditProfile(ctx, c, "key.create", made.key.id, { mode, label });
    keepFresh(c, ctx, { keyId: made.key.id, secret: made.secret });
    return c.redirect(keysUrl, 303);
  });

  r.post("/keys/:id/origins", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    const lines = ((await formOf(c)).origins ?? "").split(/[\s,]+/).filter((l) => l !== "");
    return await changed(c, ctx, "origins", async () => {
      await setKeyAllowedOrigins(ctx, k.id, lines.length ? lines : null);
      await auditProfile(ctx, c, "key.origins", k.id, { allowedOrigins: lines });
    });
  });

  r.post("/keys/:id/rotate", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    const hours = Number((await formOf(c)).graceHours ?? "0");
    const grace = Number.isInteger(hours) && hours >= 0 && hours <= 720 ? hours : 0;
    const res = await rotateKeyNow(ctx, k.id, grace * 3600).catch((e) => e as Error);
    if (res instanceof Error) return keysPage(c, ctx, null, failure(res), 400);
    await auditProfile(ctx, c, "key.rotate", k.id, { newKeyId: res.key.id, graceHours: grace });
    const until = res.previous.revokedAt ? Date.parse(res.previous.revokedAt) : ctx.clock.now();
    keepFresh(c, ctx, { keyId: res.key.id, secret: res.secret, rotated: { from: k.id, until } });
    return c.redirect(keysUrl, 303);
  });

  // The revocation asks first, on a page of its own; its form makes it.
  r.get("/keys/:id/revoke", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    return revokePage(c, ctx, await keyView(ctx, k));
  });

  r.post("/keys/:id/revoke", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    return await changed(c, ctx, "revoked", async () => {
      await revokeKeyNow(ctx, k.id);
      await auditProfile(ctx, c, "key.revoke", k.id);
    });
  });
}

const failure = (e: unknown): Flash => {
  if (!isAppError(e)) throw e;
  const words = errorWords(e);
  return { kind: "error", bg: `Неуспешно: ${words.bg}`, en: `Failed: ${words.en}` };
};

/** Make a change: 303 to the page with `?done=<done>`, or the page with the error (400). */
async function changed(c: WebC, ctx: ProfileContext, done: string, act: () => Promise<void>) {
  try {
    await act();
  } catch (e) {
    return keysPage(c, ctx, null, failure(e), 400);
  }
  return c.redirect(`${ctx.app.base}/keys?done=${done}`, 303);
}

/** GET /keys/:id/revoke: what revoking the key does, and the button that does it. */
function revokePage(c: WebC, ctx: ProfileContext, k: KeyView): Promise<Response> {
  const open = k.status === "active" || k.status === "revoking";
  return ctx.app.page(
    c,
    "keys",
    bi("Отмяна на ключ", "Revoke a key"),
    html`
      <div class="card" id="revoke-confirm" data-key="${k.id}">
        <p><strong>${k.label ?? ""}</strong> <span class="mono">${k.id}</span> (${k.mode})</p>
        <p>${t(
          "Заявките с този ключ ще бъдат отказвани веднага, на всички инстанции, с 401 API_KEY_REVOKED. Отмяната е окончателна.",
          "Requests with this key will be refused at once, on every instance, with 401 API_KEY_REVOKED. A revocation cannot be undone.",
        )}</p>
        ${open
          ? html`
            ${postForm(
              c,
              `${ctx.app.base}/keys/${k.id}/revoke`,
              html`<button class="danger" id="confirm-revoke">${
                t("Да, отмени ключа", "Yes, revoke the key")
              }</button>`,
            )}
          `
          : html`<p class="muted">${t("Ключът вече не действа.", "The key no longer works.")}</p>`}
        <a href="${ctx.app.base}/keys" id="cancel-revoke">${t("Назад", "Back")}</a>
      </div>
    `,
  );
}

async function keysPage(
  c: WebC,
  ctx: ProfileContext,
  fresh: FreshSecret | null,
  flash: Flash | null,
  status: 200 | 400 = 200,
): Promise<Response> {
  await ctx.flushLog?.();
  const integratorId = integratorOf(c);
  const now = ctx.clock.now();
  const [integrator, records, contract] = await Promise.all([
    ctx.store.getIntegrator(integratorId),
    ctx.store.listKeys({ integratorId }),
    ctx.store.contractState(integratorId, now),
  ]);
  const keys = await Promise.all(records.reverse().map((k) => keyView(ctx, k)));
  const used = await lastUsedOf(ctx.store, integratorId, records, now);
  return ctx.app.page(
    c,
    "keys",
    bi("API ключове", "API keys"),
    html`
      ${fresh ? secretCard(ctx, fresh) : ""}
      ${createCard(c, ctx.app.base, integratorId, integrator?.name ?? "", contract.active !== null)}
      ${tableOr(
        "keys",
        [
          ["Ключ", "Key"],
          ["Вид", "Mode"],
          ["Фаза", "Phase"],
          ["Състояние", "Status"],
          ["Създаден", "Created"],
          ["Последно ползван", "Last used"],
          ["Изтича", "Expires"],
          ["ЕИК", "EIKs used"],
          ["Адреси на страници", "Allowed origins"],
          null,
        ],
        keys.map((k) => keyRow(c, ctx, k, used.get(k.id) ?? null)),
        t("Още нямате ключове.", "No keys yet."),
      )}
      ${resourcesCard()}
    `,
    status,
    flash,
  );
}

/** The integrator, and the two forms that make keys; the live key's words follow the phase. */
function createCard(
  c: WebC,
  base: string,
  integratorId: string,
  name: string,
  contract: boolean,
): Markup {
  const form = (mode: KeyMode, button: Markup) =>
    postForm(
      c,
      `${base}/keys`,
      html`
        <input type="hidden" name="mode" value="${mode}">
        <label>${t("Етикет", "Label")} <input name="label" id="${mode}-label" maxlength="200"
          placeholder="${mode === "test" ? "staging" : "production"}"></label>
        ${button}
      `,
    );
  return html`
    <div class="card" id="create-keys" data-contract="${contract ? "yes" : "no"}">
      <p>${t("Интегратор", "Integrator")}: <strong id="integrator-name">${name}</strong>
        <span class="muted mono">${integratorId}</span></p>
      ${form(
        "test",
        html`<button class="primary" id="create-test-key">${
          t("Нов тестов ключ", "New test key")
        }</button>`,
      )}
      ${form(
        "live",
        html`<button id="create-live-key">${
          contract
            ? t("Нов реален ключ", "New live key")
            : t("Нов реален ключ (7 дни, до 3 ЕИК)", "New live key (7 days, up to 3 EIKs)")
        }</button>`,
      )}
      <p class="muted small" id="key-limits">${contract
        ? t(
          "Тестовите ключове важат 90 дни и стигат само до тестовия портал. Реалните ключове по договора ви са без срок и без ограничение на ЕИК.",
          "Test keys last 90 days and reach the test portal only. Live keys under your contract have no expiry and no EIK limit.",
        )
        : t(
          "Тестовите ключове важат 90 дни и стигат само до тестовия портал. Реален ключ преди договор важи 7 дни и за до 3 ЕИК; по договор — без срок и без ограничение.",
          "Test keys last 90 days and reach the test portal only. A live key before a contract lasts 7 days for up to 3 EIKs; under a contract, no expiry and no limit.",
        )}</p>
    </div>
  `;
}

/** The words of a key's last use. */
const lastUsedWords = (u: LastUsed): Markup | string =>
  u === null ? t("никога", "never") : "at" in u ? when(new Date(u.at).toISOString()) : u.day;

function keyRow(c: WebC, ctx: ProfileContext, k: KeyView, used: LastUsed): Markup {
  const base = `${ctx.app.base}/keys/${k.id}`;
  const phase = PHASES[k.phase] ?? [k.phase, k.phase];
  const open = k.status === "active";
  return html`
    <tr data-key="${k.id}">
      <td>${k.label
        ? html`<strong class="key-label">${k.label}</strong><br>`
        : ""}<span class="mono">${k.id}</span></td>
      <td>${k.mode === "live" ? t("реален", "live") : t("тестов", "test")}</td>
      <td>${t(phase[0], phase[1])}</td>
      <td class="status" data-status="${k.status}">${t(
        ...STATUSES[k.status],
      )}${k.status === "revoking" && k.revokedAt
        ? html`<br><span class="small">${t("работи до", "works until")} ${
          when(k.revokedAt)
        } UTC</span>`
        : ""}</td>
      <td class="created">${when(k.createdAt)}</td>
      <td class="last-used">${lastUsedWords(used)}</td>
      <td>${when(k.expiresAt)}</td>
      <td class="eik-limit">${k.eikLimit === null
        ? "—"
        : `${k.eiksUsed.length} / ${k.eikLimit}`}${k.allowedEiks
        ? html`<br><span class="small muted">${k.allowedEiks.join(", ")}</span>`
        : ""}</td>
      <td>${open
        ? html`<form method="post" action="${base}/origins">${csrfField(c)}
      <input name="origins" class="origins" size="28" value="${(k.allowedOrigins ?? []).join(" ")}"
        placeholder="https://app.example.com">
      <button class="save-origins">${t("Запиши", "Save")}</button></form>`
        : (k.allowedOrigins ?? []).join(" ")}</td>
      <td>${open
        ? html`
          ${postForm(
            c,
            `${base}/rotate`,
            html`
              <label class="small">${t("старата тайна работи още", "old secret keeps working")}
              <select name="graceHours" class="grace"><option value="0">0 h</option>
                <option value="24" selected>24 h</option><option value="168">7 d</option></select></label>
              <button class="rotate">${t("Смени тайната", "Rotate")}</button>
            `,
          )}
          <a class="button danger revoke" href="${base}/revoke">${t("Отмени…", "Revoke…")}</a>
        `
        : ""}</td>
    </tr>
  `;
}

function secretCard(ctx: ProfileContext, f: FreshSecret): Markup {
  const curl =
    `curl -s -X POST ${ctx.publicUrl()}/api/v1/tokens/issue -H "Authorization: Bearer ${f.secret}" -H "Content-Type: application/json" -d '{"typeId":"vat","eik":"121212121"}'`;
  return html`
    <div class="card secret" id="fresh-key" data-key="${f.keyId}">
      <p><strong>${t(
        "Тайна на ключа (само сега)",
        "The key's secret (shown only now)",
      )}</strong></p>
      <p><code id="secret">${f.secret}</code>
          <button type="button" data-copy="secret" id="copy-secret">${t(
            "Копирай",
            "Copy",
          )}</button></p>
      <p>${t("Токен с него:", "A token with it:")}</p>
      <pre class="log" id="curl">${curl}</pre>
      <button type="button" data-copy="curl" id="copy-curl">${t("Копирай", "Copy")}</button>
    </div>
  `;
}
