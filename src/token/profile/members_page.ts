/**
 * An integrator's team (docs/token-service.md § Team and roles): the members page lists the
 * people of the integrator with their roles and the team's recent changes from the audit log
 * (who did what); an owner invites a colleague by e-mail with a role (a one-time link, mailed),
 * changes a role or removes a member (their sessions and passkeys end at once, on every
 * instance). The integrator always keeps one owner. An invitation creates a new person only: an
 * address that has a profile already (of any integrator) is refused, and an invitation taken
 * after its address got a profile opens nothing. Each member signs in with their own links,
 * passkeys and sessions.
 * @module
 */
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { AppError, bi } from "../../contract/mod.ts";
import { pageLang, t, tableOr } from "../../web_page.ts";
import { newId } from "../access/mod.ts";
import type { MemberRole, WebUser } from "../store/mod.ts";
import {
  countAttempt,
  type Flash,
  formOf,
  leadCard,
  peopleMail,
  postForm,
  signedInOf,
  WEB_LIMITS,
  type WebC,
  type WebEnv,
} from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";
import { auditProfile, integratorOf } from "./keys_page.ts";
import { MEMBER_ROLES, roleText } from "./roles.ts";
import { normalEmail } from "./sign_in.ts";

/** The team's changes in words (the audit log's action codes stay in `data-action`). */
const ACTIONS: Record<string, [string, string]> = {
  "member.invite": ["покани член", "invited a member"],
  "member.join": ["се присъедини", "joined"],
  "member.role": ["промени роля", "changed a role"],
  "member.remove": ["премахна член", "removed a member"],
  "key.create": ["създаде ключ", "created a key"],
  "key.revoke": ["отмени ключ", "revoked a key"],
  "key.rotate": ["смени ключ", "rotated a key"],
  "key.origins": ["промени адресите на ключ", "changed a key's origins"],
  "passkey.add": ["добави passkey", "added a passkey"],
  "passkey.remove": ["премахна passkey", "removed a passkey"],
  "session.end": ["прекрати сесия", "ended a session"],
  "application.submit": ["подаде заявка", "applied for a contract"],
  "application.approve": ["одобрена заявка", "application approved"],
  "application.reject": ["отказана заявка", "application rejected"],
};
// non-null: ACTIONS[a] was tested in the same condition
const actionText = (a: string) => ACTIONS[a] ? t(...ACTIONS[a]!) : a;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/**
 * The members routes (their changes need an owner: roles.ts).
 * @param r the profile's router
 * @param ctx store, clock, mailer, sessions
 */
export function membersRoutes(r: Hono<WebEnv>, ctx: ProfileContext): void {
  r.get("/members", (c) => membersPage(ctx, c));
  r.post("/members/invite", (c) => inviteHandler(ctx, c));
  r.post("/members/:id/role", (c) => roleHandler(ctx, c));
  r.post("/members/:id/remove", (c) => removeHandler(ctx, c));
}

/** A role from a form field. @throws AppError WEB_INPUT_INVALID (`field: "role"`) */
function roleOf(v: string | undefined): MemberRole {
  const r = MEMBER_ROLES.find((x) => x === v);
  if (!r) throw new AppError("WEB_INPUT_INVALID", "Unknown role", { field: "role" });
  return r;
}

/** A member of the signed-in person's integrator. @throws AppError NOT_FOUND for another's */
async function memberOf(ctx: ProfileContext, c: WebC, id: string): Promise<WebUser> {
  const u = await ctx.store.getWebUser(id);
  if (!u || u.role !== "integrator" || u.integratorId !== integratorOf(c)) {
    throw new AppError("NOT_FOUND", `No member "${id}"`);
  }
  return u;
}

const LAST_OWNER: Flash = {
  kind: "error",
  bg: "Профилът трябва да има поне един собственик.",
  en: "The profile must keep at least one owner.",
};

/**
 * POST /members/invite (form `email`, `role`): mail a one-time invitation.
 * @returns the members page (200) with a flash; 409 when the address has a profile already
 * @throws AppError WEB_INPUT_INVALID (bad e-mail or role), RATE_LIMITED (past the link limit per
 *   address, or per integrator: web/guard.ts WEB_LIMITS)
 */
async function inviteHandler(ctx: ProfileContext, c: WebC): Promise<Response> {
  const f = await formOf(c);
  const email = normalEmail(f.email);
  const role = roleOf(f.role);
  const me = signedInOf(c).user;
  const integratorId = integratorOf(c);
  if (await ctx.store.findWebUser("integrator", email)) {
    return membersPage(ctx, c, 409, {
      kind: "error",
      bg: "Този адрес вече има профил (на вас или на друг интегратор).",
      en: "This address has a profile already (yours or another integrator's).",
    });
  }
  // Invitations are mails sent on an owner's word: at most the link limits per address and per
  // integrator, so that a profile cannot be used to flood someone's mailbox.
  await countAttempt(ctx.store, ctx.clock, [
    [`invite:e:${email}`, WEB_LIMITS.invitePerEmail],
    [`invite:i:${integratorId}`, WEB_LIMITS.invitePerIntegrator],
  ]);
  const code = await ctx.auth.newLink("member-invite", email, {
    integratorId,
    role,
    by: me.email,
  });
  const url = `${ctx.publicUrl()}${ctx.app.base}/link?code=${code}`;
  const integrator = await ctx.store.getIntegrator(integratorId);
  const company = integrator?.name ?? integratorId;
  // In the integrator's language of mails (its locale), like its notices.
  const lang = integrator?.locale ?? pageLang();
  if (ctx.mailer) {
    ctx.mailer.send(
      peopleMail("member-invite", email, url, newId("lnk", ctx.random), lang, {
        by: me.email,
        company,
        role,
      }),
    ).catch((e) => ctx.log("warn", "member invitation mail failed", { error: String(e) }));
  } else ctx.log("warn", "member invitation not sent: SVC_SMTP_HOST is not set", {});
  await auditProfile(ctx, c, "member.invite", email, { role });
  return membersPage(ctx, c, 200, {
    kind: "ok",
    bg: `Поканата е изпратена на ${email}.`,
    en: `The invitation was sent to ${email}.`,
  });
}

/**
 * POST /members/:id/role (form `role`): change a member's role.
 * @returns the members page; 409 when it would leave no owner
 * @throws AppError NOT_FOUND (another integrator's or unknown), WEB_INPUT_INVALID
 */
async function roleHandler(
  ctx: ProfileContext,
  c: Context<WebEnv, "/members/:id/role">,
): Promise<Response> {
  const role = roleOf((await formOf(c)).role);
  const member = await memberOf(ctx, c, c.req.param("id"));
  const res = await ctx.store.setMemberRole(integratorOf(c), member.id, role);
  if (!res.ok) return membersPage(ctx, c, 409, LAST_OWNER);
  await auditProfile(ctx, c, "member.role", member.email, {
    from: member.memberRole ?? "owner",
    to: role,
  });
  return membersPage(ctx, c, 200, {
    kind: "ok",
    bg: `${member.email}: ролята е променена.`,
    en: `${member.email}: the role was changed.`,
  });
}

/**
 * POST /members/:id/remove: remove a member with their sessions and passkeys (an owner may
 * remove themself while another owner remains).
 * @returns the members page; 409 for the last owner; 303 to the sign-in page when the person
 *   removed themself
 * @throws AppError NOT_FOUND (another integrator's or unknown)
 */
async function removeHandler(
  ctx: ProfileContext,
  c: Context<WebEnv, "/members/:id/remove">,
): Promise<Response> {
  const member = await memberOf(ctx, c, c.req.param("id"));
  const res = await ctx.store.removeWebUser(member.id, integratorOf(c));
  if (!res.ok) return membersPage(ctx, c, 409, LAST_OWNER);
  await auditProfile(ctx, c, "member.remove", member.email, {
    role: member.memberRole ?? "owner",
  });
  if (member.id === signedInOf(c).user.id) return c.redirect(ctx.app.base, 303);
  return membersPage(ctx, c, 200, {
    kind: "ok",
    bg: `${member.email} е премахнат; сесиите и passkeys му вече не действат.`,
    en: `${member.email} was removed; their sessions and passkeys no longer work.`,
  });
}

/**
 * GET /members: the team, the invitation form and the role changes (owners), and the team's
 * recent changes.
 */
async function membersPage(
  ctx: ProfileContext,
  c: WebC,
  status: 200 | 409 = 200,
  flash: Flash | null = null,
): Promise<Response> {
  const me = signedInOf(c).user;
  const integratorId = integratorOf(c);
  const [team, log] = await Promise.all([
    ctx.store.listMembers(integratorId),
    ctx.store.listAudit({ integratorId, limit: 30 }),
  ]);
  const owner = (me.memberRole ?? "owner") === "owner";
  const roleSelect = (id: string, current: MemberRole) =>
    html`<select name="role" id="${id}">${
      MEMBER_ROLES.map((r) =>
        html`<option value="${r}" ${r === current ? "selected" : ""}>${roleText(r)}</option>`
      )
    }</select>`;
  return ctx.app.page(
    c,
    "members",
    bi("Екип", "Team"),
    html`
      ${owner
        ? html`
          ${leadCard(
            t("Покани колега", "Invite a colleague"),
            t(
              "Всеки член влиза със свои връзки и passkeys. Собственик: всичко; разработчик: ключове; само преглед: без промени.",
              "Each member signs in with their own links and passkeys. Owner: everything; developer: keys; read-only: no changes.",
            ),
            postForm(
              c,
              `${ctx.app.base}/members/invite`,
              html`
                <input type="email" name="email" id="member-email" required placeholder="colleague@example.com">
                ${roleSelect("member-role", "developer")}
                <button class="primary" id="member-invite">${t("Покани", "Invite")}</button>
              `,
            ),
          )}
        `
        : html`<p class="muted" id="members-readonly">${
          t("Екипа управляват собствениците.", "Owners manage the team.")
        }</p>`}
      ${tableOr(
        "members",
        [
          ["Е-поща", "E-mail"],
          ["Роля", "Role"],
          ["От", "Since"],
          ["Поканен от", "Invited by"],
          null,
        ],
        team.map((u) => {
          const role = u.memberRole ?? "owner";
          return html`
            <tr data-member="${u.email}" data-role="${role}">
              <td>${u.email}${u.id === me.id
                ? html`
                  <span class="muted">(${t("вие", "you")})</span>
                `
                : ""}</td>
              <td>${owner
                ? html`
                  ${postForm(
                    c,
                    `${ctx.app.base}/members/${u.id}/role`,
                    html`${roleSelect(`role-${u.id}`, role)}<button class="role-change">${
                      t("Промени", "Change")
                    }</button>`,
                  )}
                `
                : roleText(role)}</td>
              <td>${day(u.createdAt)}</td>
              <td>${u.createdBy ?? "—"}</td>
              <td>${owner
                ? html`
                  ${postForm(
                    c,
                    `${ctx.app.base}/members/${u.id}/remove`,
                    html`<button class="danger member-remove">${t("Премахни", "Remove")}</button>`,
                  )}
                `
                : ""}</td>
            </tr>
          `;
        }),
        t("Няма.", "None."),
      )}
      <h2>${t("Последни промени", "Recent changes")}</h2>
      ${tableOr(
        "team-audit",
        [["Кога (UTC)", "When (UTC)"], ["Кой", "Who"], ["Какво", "What"], ["Обект", "Target"]],
        log.map((a) =>
          html`
            <tr data-action="${a.action}">
              <td>${when(a.at)}</td>
              <td>${a.actor}</td>
              <td>${actionText(a.action)}</td>
              <td class="mono">${a.target}</td>
            </tr>
          `
        ),
        t("Още няма промени.", "No changes yet."),
      )}
    `,
    status,
    flash,
  );
}
