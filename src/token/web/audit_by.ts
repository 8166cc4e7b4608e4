/**
 * The audit log's entry for a change a person made on the profile or the desk (audit/audit_log.ts).
 * @module
 */
import type { Clock } from "../../clock.ts";
import { audit, type AuditChange } from "../audit/mod.ts";
import type { TokenStore, WebUser } from "../store/mod.ts";
import type { WebC } from "./guard.ts";

/**
 * Record a change a person made on the profile or the desk (audit/audit_log.ts): the actor is the
 * person, an administrator or an integrator's person by their role.
 * @param d the store and the clock
 * @param c the request
 * @param user who acted
 * @param change what, on what, the integrator it concerns, details (never a secret)
 */
export function auditBy(
  d: { readonly store: TokenStore; readonly clock: Clock },
  c: WebC,
  user: WebUser,
  change: AuditChange,
): Promise<void> {
  return audit(d.store, d.clock, c.req.raw, {
    kind: user.role === "admin" ? "admin" : "integrator",
    name: user.email,
  }, change);
}
