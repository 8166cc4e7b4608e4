/**
 * What the integrators' profile is built with (docs/token-service.md § The profile).
 * @module
 */
import type { AdminDeps } from "../deps.ts";
import type { Mailer } from "../notices/mod.ts";
import type { AppLog } from "../deps.ts";
import type { WebApp, WebAuth } from "../web/mod.ts";

/** Dependencies of the profile's routes. */
export interface ProfileDeps extends AdminDeps {
  /** Sends the one-time links; null = no SMTP configured (the pages say so). */
  readonly mailer: Mailer | null;
  /** The service's public URL ({auth_url}), e.g. `https://auth.example.com`. */
  readonly publicUrl: () => string;
  readonly log: AppLog;
  /** Writes buffered request log rows and usage before a page reads them (tests, the chart). */
  readonly flushLog?: (() => Promise<void>) | undefined;
  /** Writes buffered usage counters before a statement is built. */
  readonly flushUsage?: (() => Promise<void>) | undefined;
}

/** What every profile route gets. */
export interface ProfileContext extends ProfileDeps {
  readonly auth: WebAuth;
  readonly app: WebApp;
}
