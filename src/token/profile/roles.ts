/**
 * What each person of an integrator's team may change (docs/token-service.md § Team and
 * roles). Every change (POST) of the profile passes {@link memberRoleGuard} after the session
 * and CSRF checks; reading pages is open to every member. The rule fails closed: a change not
 * named here needs an owner.
 *
 * | change | read-only | developer | owner |
 * | --- | --- | --- | --- |
 * | own passkeys, own sessions, sign-out | yes | yes | yes |
 * | keys: create, label, origins, rotate, revoke (`/keys…`) | no | yes | yes |
 * | team (`/members…`), contract (`/contract…`), anything else | no | no | yes |
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../contract/mod.ts";
import { type Markup, t } from "../../web_page.ts";
import type { MemberRole } from "../store/mod.ts";
import type { WebEnv } from "../web/mod.ts";

/** The member roles, strongest first. */
export const MEMBER_ROLES: readonly MemberRole[] = ["owner", "developer", "readonly"];

const RANK: Record<MemberRole, number> = { owner: 2, developer: 1, readonly: 0 };

/** A person's own credentials and session: any member changes these. */
const OWN =
  /^\/profile\/(sign-out|passkeys(\/.*)?|sessions\/end|link|sign-in|sign-up|passkey\/(options|verify|remove))$/;
/** API keys: developers and owners. */
const KEYS = /^\/profile\/keys(\/.*)?$/;

/**
 * The role a change needs.
 * @param path the request's path (below `/profile`)
 * @returns the weakest role allowed to make it
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(roleNeeded("/profile/keys"), "developer");
 * equal(roleNeeded("/profile/passkeys/remove"), "readonly");
 * equal(roleNeeded("/profile/members/invite"), "owner");
 * equal(roleNeeded("/profile/something-new"), "owner");
 * ```
 */
export function roleNeeded(path: string): MemberRole {
  if (OWN.test(path)) return "readonly";
  if (KEYS.test(path)) return "developer";
  return "owner";
}

/** @returns whether a person of role `has` may do what `needs` allows */
export const roleAllows = (has: MemberRole, needs: MemberRole): boolean => RANK[has] >= RANK[needs];

/** A role's name in both languages. */
export const roleText = (r: MemberRole): Markup =>
  ({
    owner: t("собственик", "owner"),
    developer: t("разработчик", "developer"),
    readonly: t("само преглед", "read-only"),
  })[r];

/**
 * Middleware: refuse a change the signed-in member's role does not allow.
 * @returns Hono middleware (after the web guard)
 * @throws AppError WEB_FORBIDDEN (403, `details.role`, `details.needs`)
 */
export function memberRoleGuard(): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const who = c.get("signedIn");
    const m = c.req.method;
    if (who && m !== "GET" && m !== "HEAD") {
      const has = who.user.memberRole ?? "owner";
      const needs = roleNeeded(c.req.path);
      if (!roleAllows(has, needs)) {
        throw new AppError(
          "WEB_FORBIDDEN",
          `Your role (${has}) does not allow this change; it needs ${needs}`,
          { role: has, needs },
        );
      }
    }
    return await next();
  };
}
