/**
 * Taking a team invitation (docs/token-service.md § Team and roles): the link an owner mailed
 * (members_page.ts) makes a new person of the integrator with the invited role, when the
 * address has no profile yet; it never signs in as an existing person.
 * @module
 */
import { newId } from "../access/mod.ts";
import type { WebLink, WebUser } from "../store/mod.ts";
import type { ProfileContext } from "./deps.ts";
import { MEMBER_ROLES } from "./roles.ts";

/**
 * Take a team invitation (from `POST /link`): create the person with the invited role.
 * @param ctx store, clock, random
 * @param link the taken link (purpose `member-invite`)
 * @returns the new person, or null when the address has a profile already or the integrator
 *   is gone
 */
export async function takeMemberInvite(
  ctx: ProfileContext,
  link: WebLink,
): Promise<WebUser | null> {
  const integratorId = link.payload.integratorId ?? "";
  if (!(await ctx.store.getIntegrator(integratorId))) return null;
  const user: WebUser = {
    id: newId("usr", ctx.random),
    role: "integrator",
    email: link.email,
    integratorId,
    createdAt: ctx.clock.now(),
    createdBy: link.payload.by ?? null,
    memberRole: MEMBER_ROLES.find((r) => r === link.payload.role) ?? "readonly",
  };
  if (!(await ctx.store.createWebUser(user))) return null;
  await ctx.store.addAudit({
    at: user.createdAt,
    actorKind: "integrator",
    actor: user.email,
    integratorId,
    action: "member.join",
    target: user.email,
    detail: JSON.stringify({ role: user.memberRole, invitedBy: user.createdBy }),
    requestId: "",
  });
  return user;
}
