/**
 * What the administrator's desk is built with (docs/token-service.md § The administrator's
 * desk).
 * @module
 */
import type { AdminDeps, AppLog } from "../deps.ts";
import type { Mailer } from "../notices/mod.ts";
import {
  auditBy,
  type Flash,
  signedInOf,
  type WebApp,
  type WebAuth,
  type WebC,
} from "../web/mod.ts";

/** Dependencies of the desk's routes. */
export interface DeskDeps extends AdminDeps {
  /** Sends invitations when SMTP is configured (they are also shown once on the desk). */
  readonly mailer: Mailer | null;
  /** The service's public URL ({auth_url}). */
  readonly publicUrl: () => string;
  readonly log: AppLog;
  /** Writes buffered usage counters before a statement is built. */
  readonly flushUsage?: (() => Promise<void>) | undefined;
}

/** What every desk route gets. */
export interface DeskContext extends DeskDeps {
  readonly auth: WebAuth;
  readonly app: WebApp;
}

/**
 * A desk page that shows, on top, the outcome of an action just taken (its form posts back and
 * the handler answers with the page again).
 * @param ctx store, clock, random
 * @param c the request
 * @param flash the outcome of an action just taken, if any
 * @returns the HTML page (200); store errors propagate to the app's error handler
 */
export type DeskPage = (ctx: DeskContext, c: WebC, flash?: Flash | null) => Promise<Response>;

/**
 * Record a change the signed-in administrator made (audit/audit_log.ts).
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
  return auditBy(ctx, c, signedInOf(c).user, { action, target, integratorId, detail });
}
