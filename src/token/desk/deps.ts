/**
 * What the administrator's desk is built with (docs/token-service.md § The administrator's
 * desk).
 * @module
 */
import type { AdminDeps, ServiceLog } from "../deps.ts";
import type { Mailer } from "../notices/mod.ts";
import type { WebApp, WebAuth, WebC } from "../web/mod.ts";
import { audit } from "../audit.ts";

/** Dependencies of the desk's routes. */
export interface DeskDeps extends AdminDeps {
  /** Sends invitations when SMTP is configured (they are also shown once on the desk). */
  readonly mailer: Mailer | null;
  /** The service's public URL ({auth_url}). */
  readonly publicUrl: () => string;
  readonly log: ServiceLog;
  /** Writes buffered usage counters before a statement is built. */
  readonly flushUsage?: (() => Promise<void>) | undefined;
}

/** What every desk route gets. */
export interface DeskContext extends DeskDeps {
  readonly auth: WebAuth;
  readonly app: WebApp;
}

/**
 * Record a change the signed-in administrator made (audit.ts).
 * @param ctx store, clock
 * @param c the request's context
 * @param action what
 * @param target on what
 * @param integratorId the integrator it concerns
 * @param detail details (never a secret)
 */
export function auditDesk(
  ctx: DeskContext,
  c: WebC,
  action: string,
  target: string,
  integratorId: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  // non-null: webGuard lets only a signed-in person reach the desk's pages (web/guard.ts)
  const user = c.get("signedIn")!.user;
  return audit(ctx.store, ctx.clock, c.req.raw, { kind: "admin", name: user.email }, {
    action,
    target,
    integratorId,
    detail,
  });
}
