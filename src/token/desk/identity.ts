/**
 * "Verify identity" on the desk (docs/token-service.md § Who asks): an administrator who has
 * checked an integrator's papers records its legal name and EIK. Only then do the agents'
 * confirmation pages show the integrator as verified (the token's `intgVerified` claim); before,
 * the name is the one the integrator typed at sign-up, shown as self-declared after the page's
 * origin. The same record is made when a contract is approved with an EIK. Audited as
 * `integrator.verify-identity` (and `integrator.unverify-identity` when taken back).
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, isValidEik } from "../../contract/mod.ts";
import type { Integrator, VerifiedIdentity } from "../store/mod.ts";
import { t } from "../../web_page.ts";
import { csrfField, formOf, signedInOf, type WebC, type WebEnv } from "../web/mod.ts";
import { auditDesk, type DeskContext } from "./deps.ts";

/** Longest legal name kept (characters). */
export const LEGAL_NAME_MAX = 200;

/**
 * The legal name and EIK of a form, checked.
 * @param legalName the name as typed (trimmed; 1–{@link LEGAL_NAME_MAX} characters)
 * @param eik the EIK as typed (9 or 13 digits with right check digits)
 * @returns both, trimmed
 * @throws AppError WEB_INPUT_INVALID (400) naming `legalName` or `eik`
 */
export function checkedIdentity(
  legalName: string | undefined,
  eik: string | undefined,
): { legalName: string; eik: string } {
  const name = (legalName ?? "").trim().replace(/\s+/g, " ");
  if (name === "" || name.length > LEGAL_NAME_MAX) {
    throw new AppError("WEB_INPUT_INVALID", "The legal name is missing or too long", {
      field: "legalName",
    });
  }
  const code = (eik ?? "").trim();
  if (!isValidEik(code)) {
    throw new AppError("WEB_INPUT_INVALID", "The EIK is not a valid EIK (9 or 13 digits)", {
      field: "eik",
    });
  }
  return { legalName: name, eik: code };
}

/**
 * Record a verified identity and audit it.
 * @param ctx store, clock
 * @param c the request (the signed-in administrator)
 * @param integratorId whose
 * @param identity legal name and EIK, already checked ({@link checkedIdentity})
 * @param via what the audit log names as the occasion ("desk" or "contract approval")
 * @returns the identity stored
 * @throws AppError NOT_FOUND (404) for an unknown integrator
 */
export async function verifyIdentity(
  ctx: DeskContext,
  c: WebC,
  integratorId: string,
  identity: { legalName: string; eik: string },
  via: "desk" | "contract approval",
): Promise<VerifiedIdentity> {
  const by = signedInOf(c).user.email;
  const verified: VerifiedIdentity = { ...identity, at: ctx.clock.now(), by };
  const done = await ctx.store.updateIntegrator(integratorId, { verified });
  if (!done) throw new AppError("NOT_FOUND", `No integrator "${integratorId}"`);
  await auditDesk(ctx, c, "integrator.verify-identity", integratorId, integratorId, {
    legalName: identity.legalName,
    eik: identity.eik,
    via,
  });
  return verified;
}

/**
 * The identity cell of an integrator's row on the integrators page: what was verified (and by
 * whom), and the form to verify or take it back.
 * @param ctx the desk (its base path)
 * @param c the request (CSRF field)
 * @param i the integrator
 * @returns the markup
 */
export function identityCell(ctx: DeskContext, c: WebC, i: Integrator) {
  const v = i.verified ?? null;
  return html`
    <div class="identity" data-verified="${v ? "yes" : "no"}">${v
      ? html`
        <strong>${v.legalName}</strong>, ${t("ЕИК", "EIK")} <span class="mono">${v
          .eik}</span><br><span
          class="small">${t("проверено от", "verified by")} ${v.by}, ${new Date(
            v.at,
          ).toISOString().slice(0, 10)}</span>
                  <form method="post"
          action="${ctx.app.base}/integrators/${i.id}/unverify-identity">${csrfField(
            c,
          )}<button class="danger unverify">${t("Отмени проверката", "Withdraw")}</button></form>
      `
      : html`<span class="muted">${
        t("непроверено (самодекларирано име)", "not verified (self-declared name)")
      }</span>`}
      <form class="verify" method="post" action="${ctx.app.base}/integrators/${i
        .id}/verify-identity">${csrfField(
          c,
        )}<input name="legalName" class="legal-name" maxlength="${LEGAL_NAME_MAX}" placeholder="Наименование / Legal name" value="${v
        ?.legalName ??
        ""}"> <input name="eik" class="eik" size="13" placeholder="ЕИК / EIK" value="${v?.eik ??
        ""}"> <button class="primary verify">${t(
          "Потвърди самоличността",
          "Verify identity",
        )}</button></form>
    </div>
  `;
}

/**
 * Add `POST /integrators/:id/verify-identity` (form `legalName`, `eik`) and
 * `POST /integrators/:id/unverify-identity`; both answer 303 to the integrators page.
 * @param r the desk's router
 * @param ctx store, clock
 */
export function identityRoutes(r: Hono<WebEnv>, ctx: DeskContext): void {
  r.post("/integrators/:id/verify-identity", async (c) => {
    const f = await formOf(c);
    const id = c.req.param("id");
    await verifyIdentity(ctx, c, id, checkedIdentity(f.legalName, f.eik), "desk");
    return c.redirect(`${ctx.app.base}/integrators`, 303);
  });
  r.post("/integrators/:id/unverify-identity", async (c) => {
    const id = c.req.param("id");
    const done = await ctx.store.updateIntegrator(id, { verified: null });
    if (!done) throw new AppError("NOT_FOUND", `No integrator "${id}"`);
    await auditDesk(ctx, c, "integrator.unverify-identity", id, id);
    return c.redirect(`${ctx.app.base}/integrators`, 303);
  });
}
