/**
 * The profile's keys (docs/token-service.md § The profile, keys): a test key at once (its
 * secret shown once, with a copy button and the `curl` line that uses it), a live key under
 * phase 1's rules (7 days, at most 3 EIKs before a contract), each key's mode, phase, expiry,
 * EIKs used and page origins; editing the origins, rotation with a grace period, revocation.
 * Only the signed-in integrator's own keys: another's key id answers 404 as an unknown one.
 * Allowed EIKs stay an administrator's change.
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, isAppError } from "../../contract/mod.ts";
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
import { audit } from "../audit.ts";
import { csrfField, type Flash, formOf, sendWebPage, type WebC, type WebEnv } from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";

/** Record a change the signed-in person made (audit.ts). */
export function auditProfile(
  ctx: ProfileContext,
  c: WebC,
  action: string,
  target: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const user = c.get("signedIn")!.user;
  return audit(ctx.store, ctx.clock, c.req.raw, { kind: "integrator", name: user.email }, {
    action,
    target,
    integratorId: user.integratorId,
    detail,
  });
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
  r.get("/keys", (c) => keysPage(c, ctx, null, null));

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
    return keysPage(c, ctx, { secret: made.secret, key: made.key }, {
      kind: "ok",
      bg: "Ключът е създаден. Копирайте тайната сега: показва се само веднъж.",
      en: "The key was created. Copy the secret now: it is shown only once.",
    });
  });

  r.post("/keys/:id/origins", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    const lines = ((await formOf(c)).origins ?? "").split(/[\s,]+/).filter((l) => l !== "");
    return await flashed(c, ctx, async () => {
      await setKeyAllowedOrigins(ctx, k.id, lines.length ? lines : null);
      await auditProfile(ctx, c, "key.origins", k.id, { allowedOrigins: lines });
      return { kind: "ok", bg: "Адресите са записани.", en: "The origins were saved." };
    });
  });

  r.post("/keys/:id/rotate", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    const hours = Number((await formOf(c)).graceHours ?? "0");
    const grace = Number.isInteger(hours) && hours >= 0 && hours <= 720 ? hours : 0;
    const res = await rotateKeyNow(ctx, k.id, grace * 3600).catch((e) => e as Error);
    if (res instanceof Error) return keysPage(c, ctx, null, failure(res));
    await auditProfile(ctx, c, "key.rotate", k.id, { newKeyId: res.key.id, graceHours: grace });
    return keysPage(c, ctx, { secret: res.secret, key: res.key }, {
      kind: "ok",
      bg: `Новата тайна е показана веднъж; старата работи още ${grace} ч.`,
      en: `The new secret is shown once; the old one keeps working ${grace} h.`,
    });
  });

  r.post("/keys/:id/revoke", async (c) => {
    const k = await ownKey(ctx, c, c.req.param("id"));
    return await flashed(c, ctx, async () => {
      await revokeKeyNow(ctx, k.id);
      await auditProfile(ctx, c, "key.revoke", k.id);
      return { kind: "ok", bg: "Ключът е отменен.", en: "The key was revoked." };
    });
  });
}

const failure = (e: unknown): Flash => {
  if (!isAppError(e)) throw e;
  return { kind: "error", bg: `Неуспешно: ${e.message}`, en: e.code };
};

async function flashed(c: WebC, ctx: ProfileContext, act: () => Promise<Flash>) {
  let flash: Flash;
  try {
    flash = await act();
  } catch (e) {
    flash = failure(e);
  }
  return keysPage(c, ctx, null, flash, flash.kind === "ok" ? 200 : 400);
}

/** The secret of a key just made, shown once. */
interface Fresh {
  readonly secret: string;
  readonly key: KeyView;
}

async function keysPage(
  c: WebC,
  ctx: ProfileContext,
  fresh: Fresh | null,
  flash: Flash | null,
  status: 200 | 400 = 200,
): Promise<Response> {
  const integratorId = integratorOf(c);
  const integrator = await ctx.store.getIntegrator(integratorId);
  const keys = await Promise.all(
    (await ctx.store.listKeys({ integratorId })).reverse().map((k) => keyView(ctx, k)),
  );
  const base = ctx.app.base;
  return sendWebPage(
    c,
    ctx.app,
    "keys",
    { bg: "API ключове", en: "API keys" },
    html`
      ${fresh ? secretCard(ctx, fresh) : ""}
      <div class="card">
        <p>${t("Интегратор", "Integrator")}: <strong id="integrator-name">${integrator?.name ??
          ""}</strong>
          <span class="muted mono">${integratorId}</span></p>
        <form class="inline" method="post" action="${base}/keys">${csrfField(c)}
          <input type="hidden" name="mode" value="test">
          <label>${t(
            "Етикет",
            "Label",
          )} <input name="label" id="test-label" maxlength="200"></label>
          <button class="primary" id="create-test-key">${t(
            "Нов тестов ключ",
            "New test key",
          )}</button>
        </form>
        <form class="inline" method="post" action="${base}/keys">${csrfField(c)}
          <input type="hidden" name="mode" value="live">
          <button id="create-live-key">${t(
            "Нов реален ключ (7 дни, до 3 ЕИК)",
            "New live key (7 days, up to 3 EIKs)",
          )}</button>
        </form>
        <p class="muted small">${t(
          "Тестовите ключове важат 90 дни и стигат само до тестовия портал. Реален ключ преди договор важи 7 дни и за до 3 ЕИК; по договор — без срок и без ограничение.",
          "Test keys last 90 days and reach the test portal only. A live key before a contract lasts 7 days for up to 3 EIKs; under a contract, no expiry and no limit.",
        )}</p>
      </div>
      ${tableOr(
        "keys",
        [
          ["Ключ", "Key"],
          ["Вид", "Mode"],
          ["Фаза", "Phase"],
          ["Състояние", "Status"],
          ["Изтича", "Expires"],
          ["ЕИК", "EIKs used"],
          ["Адреси на страници", "Allowed origins"],
          null,
        ],
        keys.map((k) => keyRow(c, ctx, k)),
        t("Още нямате ключове.", "No keys yet."),
      )}
    `,
    status,
    flash,
  );
}

function keyRow(c: WebC, ctx: ProfileContext, k: KeyView): Markup {
  const base = `${ctx.app.base}/keys/${k.id}`;
  const phase = PHASES[k.phase] ?? [k.phase, k.phase];
  const open = k.status === "active";
  return html`
    <tr data-key="${k.id}">
      <td><span class="mono">${k.id}</span>${k.label ? html`<br>${k.label}` : ""}</td>
      <td>${k.mode === "live" ? t("реален", "live") : t("тестов", "test")}</td>
      <td>${t(phase[0], phase[1])}</td>
      <td class="status" data-status="${k.status}">${t(...STATUSES[k.status])}</td>
      <td>${when(k.expiresAt)}</td>
      <td>${k.eikLimit === null ? "—" : `${k.eiksUsed.length} / ${k.eikLimit}`}${k.allowedEiks
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
          <form class="inline" method="post" action="${base}/rotate">${csrfField(c)}
                <select name="graceHours" aria-label="grace"><option value="0">0 h</option>
                  <option value="24" selected>24 h</option><option value="168">7 d</option></select>
                <button class="rotate">${t("Смени тайната", "Rotate")}</button></form>
          <form class="inline" method="post" action="${base}/revoke">${csrfField(c)}
                <button class="danger revoke">${t("Отмени", "Revoke")}</button></form>
        `
        : ""}</td>
    </tr>
  `;
}

function secretCard(ctx: ProfileContext, f: Fresh): Markup {
  const curl =
    `curl -s -X POST ${ctx.publicUrl()}/api/v1/tokens/issue -H "Authorization: Bearer ${f.secret}" -H "Content-Type: application/json" -d '{"typeId":"vat","eik":"121212121"}'`;
  return html`
    <div class="card secret" id="fresh-key" data-key="${f.key.id}">
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
