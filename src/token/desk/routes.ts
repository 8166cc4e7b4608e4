/**
 * The administrator's desk at `{auth_url}/admin` (docs/token-service.md § The administrator's
 * desk): administrators are people with their own passkeys. The first one comes through a
 * one-time link printed by `token-service admin-invite --email …`; every other one through an
 * invitation an administrator makes on the desk (shown once there, and mailed when SMTP is
 * configured). An invitation's link signs its person in once; they then create a passkey and
 * sign in with it from then on. `SVC_ADMIN_TOKEN` is for automation (`/admin/v1`) and never
 * opens the desk; an integrator's session never does either (another cookie, and the guard
 * refuses any person who is not an administrator).
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import type { Clock } from "../../clock.ts";
import { pageLang, t, tableOr } from "../../web_page.ts";
import { newId } from "../access/mod.ts";
import type { TokenStore } from "../store/mod.ts";
import { AppError, bi } from "../../contract/mod.ts";
import { audit, type AuditActor } from "../audit/mod.ts";
import { linkMail } from "../profile/mod.ts";
import {
  DESK_APP,
  type Flash,
  formOf,
  mailedLinkPage,
  passkeyRemovalRoutes,
  passkeyRoutes,
  passkeyTable,
  postForm,
  sessionRoutes,
  signedInOf,
  takePostedLink,
  webAppAuth,
  webAppStart,
  type WebC,
  type WebEnv,
} from "../web/mod.ts";
import { auditDesk, type DeskContext, type DeskDeps } from "./deps.ts";
import { reportRoutes } from "./report_pages.ts";
import { adminPeopleRoutes } from "./admin_people.ts";
import { reviewRoutes } from "./review_pages.ts";
import { identityRoutes } from "./identity.ts";

export type { DeskDeps } from "./deps.ts";

/** The desk's session cookie (not the profile's). */
export const DESK_COOKIE = "svc_desk";

const deskAuth = (store: TokenStore, clock: Clock, publicUrl: () => string) =>
  webAppAuth({ store, clock, publicUrl }, DESK_COOKIE, DESK_APP);

/** Who made an invitation from the command line, as the audit log names it. */
const CLI_INVITER = { kind: "cli", name: "token-service admin-invite" } as const;

/**
 * A one-time invitation for a new administrator (`token-service admin-invite`, and the desk),
 * recorded in the audit log (`admin.invite`: who invited whom).
 * @param store the store
 * @param clock the clock
 * @param publicUrl the service's public URL
 * @param email the administrator's e-mail
 * @param by who invites (the command line when not given)
 * @returns the link, good once for 30 minutes
 * @throws AppError CONFLICT (409, `reason: "admin_exists"`) when the e-mail is an
 *   administrator's already: they sign in with their own passkey, never with a link
 */
export async function createAdminInvite(
  store: TokenStore,
  clock: Clock,
  publicUrl: string,
  email: string,
  by: AuditActor = CLI_INVITER,
): Promise<string> {
  const to = email.trim().toLowerCase();
  await refuseExistingAdmin(store, to);
  const code = await deskAuth(store, clock, () => publicUrl).newLink("admin-invite", to, {
    by: by.name,
  });
  await store.addAudit({
    at: clock.now(),
    actorKind: by.kind,
    actor: by.name,
    integratorId: null,
    action: "admin.invite",
    target: to,
    detail: "{}",
    requestId: "",
  });
  return `${publicUrl.replace(/\/$/, "")}${DESK_APP.base}/link?code=${code}`;
}

/** @throws AppError CONFLICT (`reason: "admin_exists"`) when `email` is an administrator's */
async function refuseExistingAdmin(store: TokenStore, email: string): Promise<void> {
  if (await store.findWebUser("admin", email)) {
    throw new AppError(
      "CONFLICT",
      "This e-mail is an administrator's already: they sign in with their own passkey",
      { reason: "admin_exists" },
    );
  }
}

/**
 * Build the desk's routes (mounted at `/admin` of the token app, after the admin API, whose
 * `/admin/v1/*` requests it lets pass untouched).
 * @param deps store, clock, mailer, public URL, log
 * @returns the sub-app
 */ export function deskRoutes(deps: DeskDeps): Hono<WebEnv> {
  const auth = deskAuth(deps.store, deps.clock, deps.publicUrl);
  const { r, ctx } = webAppStart(DESK_APP, deps, auth, {
    role: "admin",
    skip: (p) => p.startsWith("/admin/v1/"),
  });

  r.get("/", (c) => {
    if (c.get("signedIn")) return c.redirect(`${DESK_APP.base}/applications`, 303);
    return signInPage(c, 200, null);
  });
  r.get("/link", (c) => invitationPage(c));
  r.post("/link", (c) => takeInvitationHandler(ctx, c));
  r.post("/sign-out", (c) => signOutHandler(ctx, c));
  passkeyRoutes(r, { ...deps, auth, role: "admin", home: `${DESK_APP.base}/applications` });
  r.get("/admins", (c) => adminsPage(ctx, c, null));
  r.post("/admins/invite", (c) => inviteAdminHandler(ctx, c));
  adminPeopleRoutes(r, ctx);
  passkeyRemovalRoutes(r, ctx, `${DESK_APP.base}/admins`);
  sessionRoutes(r, ctx);

  reviewRoutes(r, ctx);
  identityRoutes(r, ctx);
  reportRoutes(r, ctx);
  return r;
}

/**
 * GET /link: the page an invitation's link opens, with a button that posts its `code` (the
 * link is taken only by that POST).
 * @param c the request (query `code`)
 * @returns the HTML page (200)
 */
function invitationPage(c: WebC): Promise<Response> {
  return mailedLinkPage(c, DESK_APP, {
    title: { bg: "Покана за администратор", en: "Administrator invitation" },
    action: `${DESK_APP.base}/link`,
    code: c.req.query("code") ?? "",
    button: html`<button class="primary" id="continue">${t("Продължи", "Continue")}</button>`,
  });
}

/**
 * POST /link: take an administrator's invitation (form `code`), create the administrator on
 * first use, sign them in and send them to the admins page (303) to create a passkey.
 * @returns 303 to `/admin/admins`; the sign-in page with 400 when the invitation was used or
 * has expired; `RATE_LIMITED` (through the app's error page) past the sign-in attempts per address
 */
async function takeInvitationHandler(ctx: DeskContext, c: WebC): Promise<Response> {
  const link = await takePostedLink(ctx, c);
  if (!link || link.purpose !== "admin-invite") {
    return signInPage(c, 400, {
      kind: "error",
      bg: "Поканата вече е използвана или е изтекла.",
      en: "The invitation was used already or has expired.",
    });
  }
  // An invitation makes a new administrator only: an existing one signs in with their own
  // passkey (an invitation to their address, however it was made, opens nothing).
  const fresh = {
    id: newId("adm", ctx.random),
    role: "admin" as const,
    email: link.email,
    integratorId: null,
    createdAt: ctx.clock.now(),
    createdBy: link.payload.by ?? null,
  };
  if (!(await ctx.store.createWebUser(fresh))) {
    return signInPage(c, 400, {
      kind: "error",
      bg: "Този адрес вече е на администратор: влезте с вашия passkey.",
      en: "This address is an administrator's already: sign in with your passkey.",
    });
  }
  await ctx.auth.signIn(c, fresh);
  await audit(ctx.store, ctx.clock, c.req.raw, { kind: "admin", name: fresh.email }, {
    action: "admin.join",
    target: fresh.email,
    detail: { invitedBy: fresh.createdBy },
  });
  return c.redirect(`${DESK_APP.base}/admins`, 303);
}

/**
 * POST /sign-out: end the desk session.
 * @returns the sign-in page with a "signed out" flash
 */
async function signOutHandler(ctx: DeskContext, c: WebC): Promise<Response> {
  await ctx.auth.signOut(c);
  c.set("signedIn", null);
  return signInPage(c, 200, { kind: "ok", bg: "Излязохте.", en: "You signed out." });
}

/**
 * The admins page: the signed-in administrator's passkeys, the invitation form (with a new
 * invitation's link shown once) and every administrator.
 * @param ctx store, public URL
 * @param c the request (signed in: the desk guard let it through)
 * @param invite a link just made, shown once; null for none
 * @returns the HTML page (200)
 */
async function adminsPage(
  ctx: DeskContext,
  c: WebC,
  invite: string | null,
  status: 200 | 409 = 200,
  flash: Flash | null = null,
): Promise<Response> {
  const me = signedInOf(c);
  const [list, mine] = await Promise.all([
    ctx.store.listWebUsers("admin"),
    ctx.store.listPasskeys(me.user.id),
  ]);
  return DESK_APP.page(
    c,
    "admins",
    bi("Администратори", "Administrators"),
    html`
      <div class="card">
        <h2>${t("Вашите passkeys", "Your passkeys")}: <span id="my-passkeys">${mine
          .length}</span></h2>
        ${mine.length ? "" : html`<p class="warn">${
          t(
            "Създайте passkey сега: поканата важи само веднъж.",
            "Create a passkey now: the invitation works only once.",
          )
        }</p>`}
        <button type="button" class="primary" id="passkey-register" data-base="${DESK_APP.base}"
          data-csrf="${me.session.csrf}">${t("Създай passkey", "Create a passkey")}</button>
        <p id="passkey-status" role="status"></p>
        ${passkeyTable(c, DESK_APP, mine)}
      </div>
      <div class="card">
        <h2>${t("Покани администратор", "Invite an administrator")}</h2>
        ${postForm(
          c,
          `${DESK_APP.base}/admins/invite`,
          html`
            <input type="email" name="email" id="invite-email" required placeholder="admin@example.com">
            <button id="invite">${t("Покани", "Invite")}</button>
          `,
        )}
        ${invite
          ? html`
            <p>${t("Връзка (само сега, 30 минути):", "Link (shown only now, 30 minutes):")}</p>
            <pre class="log" id="invite-link">${invite}</pre>
          `
          : ""}
      </div>
      ${tableOr(
        "admins",
        [["Е-поща", "E-mail"], ["От", "Since"], ["Поканен от", "Invited by"], null],
        list.map((u) =>
          html`
            <tr data-admin="${u.email}">
              <td>${u.email}</td>
              <td>${new Date(u.createdAt).toISOString().slice(0, 10)}</td>
              <td>${u.createdBy ?? "token-service admin-invite"}</td>
              <td>${u.id === me.user.id || list.length < 2 ? "" : html`
                ${postForm(
                  c,
                  `${DESK_APP.base}/admins/${u.id}/remove`,
                  html`
                    <button class="danger admin-remove">${t("Премахни", "Remove")}</button>
                  `,
                )}
              `}</td>
            </tr>
          `
        ),
        t("Няма.", "None."),
      )}
    `,
    status,
    flash,
  );
}

/**
 * POST /admins/invite: make a one-time invitation (form `email`), mail it when SMTP is
 * configured (a failed mail is logged, not shown), audit it and show its link once.
 * @returns the admins page with the link; without one when the e-mail is not an address
 */
async function inviteAdminHandler(ctx: DeskContext, c: WebC): Promise<Response> {
  const f = await formOf(c);
  const email = (f.email ?? "").trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return adminsPage(ctx, c, null);
  const me = signedInOf(c).user;
  if (await ctx.store.findWebUser("admin", email)) {
    return adminsPage(ctx, c, null, 409, {
      kind: "error",
      bg: "Този адрес вече е на администратор: той влиза със своя passkey.",
      en: "This address is an administrator's already: they sign in with their own passkey.",
    });
  }
  const code = await ctx.auth.newLink("admin-invite", email, { by: me.email });
  const url = `${ctx.publicUrl()}${DESK_APP.base}/link?code=${code}`;
  ctx.mailer?.send(linkMail("admin-invite", email, url, newId("lnk", ctx.random), pageLang()))
    .catch((e) => ctx.log("warn", "admin invitation mail failed", { error: String(e) }));
  await auditDesk(ctx, c, "admin.invite", email, null);
  return adminsPage(ctx, c, url);
}

function signInPage(c: WebC, status: 200 | 400, flash: Flash | null) {
  return DESK_APP.page(
    c,
    null,
    bi("Бюро на администратора", "Administrator's desk"),
    html`
      <div class="card">
        <button type="button" class="primary" id="passkey-sign-in"
          data-base="${DESK_APP.base}">${t("Вход с passkey", "Sign in with a passkey")}</button>
        <p id="passkey-status" role="status"></p>
        <p class="muted small">${t(
          "Първият администратор: token-service admin-invite --email вие@пример.bg отпечатва еднократна връзка. Следващите кани администратор от бюрото.",
          "The first administrator: token-service admin-invite --email you@example.com prints a one-time link. An administrator invites the next ones from the desk.",
        )}</p>
      </div>
    `,
    status,
    flash,
  );
}
