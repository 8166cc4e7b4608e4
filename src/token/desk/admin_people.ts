/**
 * Taking an administrator's access back (docs/token-service.md § Taking access back): an
 * administrator removes another one from the admins page; their sessions and passkeys go with
 * them, at once on every instance (sessions and passkeys are read from the store on every
 * request). Never the last administrator (checked in the store's transaction), never oneself
 * (another administrator does it, so the desk is never left to nobody by a slip). Audited as
 * `admin.remove`.
 * @module
 */
import { signedInOf } from "../web/mod.ts";
import type { Context, Hono } from "hono";
import { AppError } from "../../contract/mod.ts";
import type { WebEnv } from "../web/mod.ts";
import { auditDesk, type DeskContext } from "./deps.ts";

/**
 * Add `POST /admins/:id/remove`.
 * @param r the desk's router
 * @param ctx store, clock
 */
export function adminPeopleRoutes(r: Hono<WebEnv>, ctx: DeskContext): void {
  r.post("/admins/:id/remove", (c) => removeAdminHandler(ctx, c));
}

/**
 * POST /admins/:id/remove: remove another administrator.
 * @returns 303 to the admins page
 * @throws AppError NOT_FOUND (no such administrator), CONFLICT (oneself: `reason: "self"`; the
 *   last one: `reason: "last_admin"`)
 */
async function removeAdminHandler(
  ctx: DeskContext,
  c: Context<WebEnv, "/admins/:id/remove">,
): Promise<Response> {
  const me = signedInOf(c).user;
  const id = c.req.param("id");
  const target = await ctx.store.getWebUser(id);
  if (!target || target.role !== "admin") throw new AppError("NOT_FOUND", "No such administrator");
  if (target.id === me.id) {
    throw new AppError("CONFLICT", "Another administrator removes you, not yourself", {
      reason: "self",
    });
  }
  const res = await ctx.store.removeWebUser(target.id, null);
  if (!res.ok) {
    if (res.reason === "not_found") throw new AppError("NOT_FOUND", "No such administrator");
    throw new AppError("CONFLICT", "The desk keeps at least one administrator", {
      reason: res.reason,
    });
  }
  await auditDesk(ctx, c, "admin.remove", target.email, null);
  return c.redirect(`${ctx.app.base}/admins`, 303);
}
