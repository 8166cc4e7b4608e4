/**
 * A person's passkeys, to see and to take back (docs/token-service.md § Taking access back),
 * for the profile and the desk alike: the list (created, last used) with a remove button on
 * each, and the removal. Any passkey but the last goes at once; the last one only through a
 * fresh one-time link mailed to the person's address (so that a borrowed session alone cannot
 * lock its owner out of their passkey sign-in, and a lost passkey is not a dead end for
 * integrators, who then sign in by mail). A removed passkey stops working at once on every
 * instance: each passkey sign-in looks it up in the store (web/passkeys.ts), nothing caches it.
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, bi } from "../../contract/mod.ts";
import { type Markup, pageLang, t, tableOr } from "../../web_page.ts";
import type { Clock } from "../../clock.ts";
import { newId, type RandomBytes } from "../access/mod.ts";
import { auditBy } from "./audit_by.ts";
import type { AppLog } from "../deps.ts";
import type { Mailer } from "../notices/mod.ts";
import type { PasskeyRecord, TokenStore, WebUser } from "../store/mod.ts";
import { countAttempt, formOf, signedInOf, WEB_LIMITS, type WebC, type WebEnv } from "./guard.ts";
import { mailedLinkPage, takePostedLink } from "./mailed_link.ts";
import { type Flash, postForm, type WebApp } from "./layout.ts";
import { peopleMail } from "./people_mail.ts";
import type { WebAuth } from "./sessions.ts";

/** What the credential pages need (the profile's and the desk's contexts have it all). */
export interface CredentialDeps {
  readonly store: TokenStore;
  readonly clock: Clock;
  readonly auth: WebAuth;
  readonly app: WebApp;
  readonly mailer: Mailer | null;
  readonly publicUrl: () => string;
  readonly log: AppLog;
  readonly random?: RandomBytes | undefined;
}

/** The path of the mailed confirmation (open: the link itself is the proof). */
export const PASSKEY_REMOVE_LINK = "/passkey/remove";

const when = (ms: number | null) =>
  ms === null ? "—" : new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/**
 * Record a change to a person's credentials (audit/audit_log.ts).
 * @param d store, clock, app
 * @param c the request
 * @param user who acted
 * @param action e.g. `passkey.remove`
 * @param target on what
 */
export function auditCredential(
  d: CredentialDeps,
  c: WebC,
  user: WebUser,
  action: string,
  target: string,
): Promise<void> {
  return auditBy(d, c, user, { action, target, integratorId: user.integratorId });
}

/**
 * The table of a person's passkeys with a remove button each.
 * @param c the request (its CSRF token goes into the forms)
 * @param app the application (form actions)
 * @param list the passkeys
 * @returns the markup (`#passkeys`, a row `tr[data-passkey]` each)
 */
export function passkeyTable(c: WebC, app: WebApp, list: readonly PasskeyRecord[]): Markup {
  return tableOr(
    "passkeys",
    [["Passkey", "Passkey"], ["Създаден (UTC)", "Created (UTC)"], [
      "Последен вход (UTC)",
      "Last sign-in (UTC)",
    ], null],
    list.map((p) =>
      html`
        <tr data-passkey="${p.credentialId}">
          <td class="mono">${p.credentialId.slice(0, 16)}…</td>
          <td>${when(p.createdAt)}</td>
          <td>${when(p.lastUsedAt)}</td>
          <td>
            ${postForm(
              c,
              `${app.base}/passkeys/remove`,
              html`
                <input type="hidden" name="credential" value="${p.credentialId}">
                <button class="danger passkey-remove">${list.length > 1
                  ? t("Премахни", "Remove")
                  : t("Премахни (с писмо)", "Remove (by mail)")}</button>
              `,
            )}
          </td>
        </tr>
      `
    ),
    t("Още нямате passkey.", "No passkey yet."),
  );
}

/**
 * Add the removal routes: `POST {base}/passkeys/remove` (signed in, form `credential`), and the
 * mailed confirmation `GET|POST {base}/passkey/remove` (open; form `code`).
 * @param r the router (its guard must let {@link PASSKEY_REMOVE_LINK} through without a session)
 * @param d store, clock, sessions, app, mailer
 * @param back where the person goes after a removal (their passkeys page)
 */
export function passkeyRemovalRoutes(r: Hono<WebEnv>, d: CredentialDeps, back: string): void {
  r.post("/passkeys/remove", (c) => removeHandler(d, c, back));
  r.get(PASSKEY_REMOVE_LINK, (c) => confirmPage(d, c));
  r.post(PASSKEY_REMOVE_LINK, (c) => confirmHandler(d, c));
}

/**
 * POST /passkeys/remove: remove one of the signed-in person's passkeys; for the last one mail a
 * confirmation link instead.
 * @returns 303 to `back`; for the last passkey a "check your mail" page
 * @throws AppError NOT_FOUND (not the person's passkey), CONFLICT (the last one and no SMTP),
 *   RATE_LIMITED (past the link limit per e-mail)
 */
async function removeHandler(d: CredentialDeps, c: WebC, back: string): Promise<Response> {
  const user = signedInOf(c).user;
  const credential = (await formOf(c)).credential ?? "";
  const res = await d.store.removePasskey(user.id, credential, true);
  if (res.ok) {
    await auditCredential(d, c, user, "passkey.remove", credential.slice(0, 16));
    return c.redirect(back, 303);
  }
  if (res.reason !== "last_passkey") throw new AppError("NOT_FOUND", "No such passkey of yours");
  if (!d.mailer) {
    throw new AppError("CONFLICT", "The last passkey is removed through a mailed link; no SMTP", {
      reason: "no_smtp",
    });
  }
  await countAttempt(d.store, d.clock, [[`link:e:${user.email}`, WEB_LIMITS.mailPerEmail]]);
  const code = await d.auth.newLink("passkey-remove", user.email, {
    userId: user.id,
    credentialId: credential,
  });
  const url = `${d.publicUrl()}${d.app.base}${PASSKEY_REMOVE_LINK}?code=${code}`;
  d.mailer.send(peopleMail("passkey-remove", user.email, url, newId("lnk", d.random), pageLang()))
    .catch((
      e,
    ) => d.log("warn", "passkey removal mail failed", { error: String(e) }));
  return d.app.page(
    c,
    null,
    bi("Проверете пощата си", "Check your mail"),
    html`
      <div class="card" id="check-mail">
        <p>${t(
          "Това е последният ви passkey: премахва се с връзката, която изпратихме на адреса ви (важи веднъж, 30 минути).",
          "This is your last passkey: it is removed through the link we sent to your address (it works once, for 30 minutes).",
        )}</p>
      </div>
    `,
  );
}

/** GET /passkey/remove (query `code`): a page with one button, so opening the link uses
 * nothing. */
function confirmPage(d: CredentialDeps, c: WebC): Promise<Response> {
  return mailedLinkPage(c, d.app, {
    title: { bg: "Премахване на последния passkey", en: "Removing your last passkey" },
    action: `${d.app.base}${PASSKEY_REMOVE_LINK}`,
    code: c.req.query("code") ?? "",
    say: t("Натиснете, за да премахнете passkey.", "Press to remove the passkey."),
    button: html`<button class="danger" id="confirm-remove">${t("Премахни", "Remove")}</button>`,
  });
}

/**
 * POST /passkey/remove (form `code`): take the mailed link and remove the passkey it names.
 * @returns a page saying it was removed (200), or 400 when the link was used or has expired
 * @throws AppError RATE_LIMITED past the sign-in attempts per address
 */
async function confirmHandler(d: CredentialDeps, c: WebC): Promise<Response> {
  const link = await takePostedLink(d, c);
  const user = link?.purpose === "passkey-remove"
    ? await d.store.getWebUser(link.payload.userId ?? "")
    : null;
  // non-null: user is set only when link is (the line above)
  const done = user && user.email === link!.email &&
    // non-null: user is set only when link is (the line above)
    (await d.store.removePasskey(user.id, link!.payload.credentialId ?? "", false)).ok;
  const flash: Flash = done
    ? { kind: "ok", bg: "Passkey е премахнат.", en: "The passkey was removed." }
    : {
      kind: "error",
      bg: "Връзката вече е използвана или е изтекла.",
      en: "The link was used already or has expired.",
    };
  if (done) {
    // non-null: done implies link and a passkey removed by its credentialId
    await auditCredential(d, c, user, "passkey.remove", link!.payload.credentialId!.slice(0, 16));
  }
  return d.app.page(
    c,
    null,
    bi("Премахване на passkey", "Removing a passkey"),
    html`<p><a href="${d.app.base}">${t("Към началото", "Back to the start")}</a></p>`,
    done ? 200 : 400,
    flash,
  );
}
