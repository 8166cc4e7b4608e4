/**
 * The audit log (docs/token-service.md § The administrator's desk, audit log): every change
 * made through the desk, the profile or the admin API, with who, what, when and the request id,
 * kept in the store and shown on the desk. Details never hold a secret (a key's secret is
 * never passed here; only ids, notes, dates and lists).
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { Clock } from "../../clock.ts";
import { requestIdOf } from "../edge/mod.ts";
import type { AuditActorKind, TokenStore } from "../store/mod.ts";

/** Who acts. */
export interface AuditActor {
  readonly kind: AuditActorKind;
  /** The person's e-mail, or `SVC_ADMIN_TOKEN`. */
  readonly name: string;
}

/** One change to record. */
export interface AuditChange {
  readonly action: string;
  readonly target: string;
  readonly integratorId?: string | null;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/**
 * Record a change.
 * @param store the store
 * @param clock the clock
 * @param req the request that made it (its request id is recorded)
 * @param actor who
 * @param change what, on what, for which integrator, details
 */
export async function audit(
  store: TokenStore,
  clock: Clock,
  req: Request,
  actor: AuditActor,
  change: AuditChange,
): Promise<void> {
  await store.addAudit({
    at: clock.now(),
    actorKind: actor.kind,
    actor: actor.name,
    integratorId: change.integratorId ?? null,
    action: change.action,
    target: change.target,
    detail: JSON.stringify(change.detail ?? {}),
    requestId: requestIdOf(req),
  });
}

/**
 * Middleware of the admin API: every change answered 2xx is recorded as `<METHOD> <path>`,
 * its target the first id in the path, by `SVC_ADMIN_TOKEN`.
 * @param store the store
 * @param clock the clock
 * @returns Hono middleware (after the admin credential check)
 */
export function auditAdminApi(store: TokenStore, clock: Clock): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const m = c.req.method;
    if (m === "GET" || m === "HEAD" || c.res.status >= 300) return;
    const id = /\/((int|key|app|ctr)_[A-Za-z0-9_-]+)/.exec(c.req.path)?.[1];
    await audit(store, clock, c.req.raw, { kind: "admin-api", name: "SVC_ADMIN_TOKEN" }, {
      action: `${m} ${c.req.path}`,
      target: id ?? c.req.path,
      integratorId: id?.startsWith("int_") ? id : null,
    });
  };
}
