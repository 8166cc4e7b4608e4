/**
 * Settings of the token service's administration, notices and billing (docs/token-service.md
 * § Access phases), read by `main.ts` with `loadConfig(TokenRunConfig, env, {})`
 * next to `TokenServiceConfig` (which already has SVC_DATABASE_URL). Secrets (admin token, SMTP
 * password) stay in this object and are handed only to the admin guard and to nodemailer.
 * @module
 */
import { z } from "zod";
import { envFlag } from "../config.ts";
import { MIN_ADMIN_TOKEN_LENGTH } from "./admin/mod.ts";
import type { SmtpSettings } from "./notices/mod.ts";
import { DEFAULT_TOKEN_RATE_LIMITS, type RateLimitSettings } from "./edge/mod.ts";

/** Administration, SMTP and scheduler settings of the token service. */
export const TokenRunConfig = z.object({
  adminToken: z.string().min(
    MIN_ADMIN_TOKEN_LENGTH,
    `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`,
  ).optional().meta({ env: "SVC_ADMIN_TOKEN" }),
  smtpHost: z.string().min(1).optional().meta({ env: "SVC_SMTP_HOST" }),
  smtpPort: z.coerce.number().int().min(1).max(65535).default(587).meta({ env: "SVC_SMTP_PORT" }),
  smtpSecure: envFlag.default(false).meta({ env: "SVC_SMTP_SECURE" }),
  smtpUser: z.string().min(1).optional().meta({ env: "SVC_SMTP_USER" }),
  smtpPass: z.string().optional().meta({ env: "SVC_SMTP_PASS" }),
  smtpFrom: z.string().min(3).optional().meta({ env: "SVC_SMTP_FROM" }),
  noticeIntervalSeconds: z.coerce.number().int().min(1).max(86_400).default(60).meta({
    env: "SVC_NOTICE_INTERVAL_SECONDS",
  }),
  usageFlushSeconds: z.coerce.number().min(0).max(3600).default(1).meta({
    env: "SVC_USAGE_FLUSH_SECONDS",
  }),
  instanceId: z.string().min(1).max(100).optional().meta({ env: "SVC_INSTANCE_ID" }),
  rateLimitWindowSeconds: z.coerce.number().int().min(1).max(3600).default(
    DEFAULT_TOKEN_RATE_LIMITS.windowSeconds,
  ).meta({ env: "SVC_RATE_LIMIT_WINDOW_SECONDS" }),
  rateLimitPerKey: z.coerce.number().int().min(0).default(DEFAULT_TOKEN_RATE_LIMITS.perKey).meta({
    env: "SVC_RATE_LIMIT_PER_KEY",
  }),
  rateLimitPerIntegrator: z.coerce.number().int().min(0).default(
    DEFAULT_TOKEN_RATE_LIMITS.perIntegrator,
  ).meta({ env: "SVC_RATE_LIMIT_PER_INTEGRATOR" }),
  accessLog: envFlag.default(true).meta({ env: "SVC_ACCESS_LOG" }),
  /** Which token requests the profile's request log keeps (request_log/recorder.ts). */
  requestLog: z.enum(["all", "errors"]).default("all").meta({ env: "SVC_REQUEST_LOG" }),
  shutdownDelaySeconds: z.coerce.number().min(0).max(300).default(10).meta({
    env: "SVC_SHUTDOWN_DELAY_SECONDS",
  }),
}).superRefine((v, ctx) => {
  if (v.smtpHost && !v.smtpFrom) {
    ctx.addIssue({ code: "custom", path: ["smtpFrom"], message: "is required with SVC_SMTP_HOST" });
  }
});
/** Parsed {@link TokenRunConfig}. */
export type TokenRunConfig = z.infer<typeof TokenRunConfig>;

/**
 * The rate-limit budgets from the config.
 * @param c parsed settings
 * @returns window and budgets (0 = that budget unlimited)
 */
export function rateLimitSettings(c: TokenRunConfig): RateLimitSettings {
  return {
    windowSeconds: c.rateLimitWindowSeconds,
    perKey: c.rateLimitPerKey,
    perIntegrator: c.rateLimitPerIntegrator,
  };
}

/**
 * SMTP settings from the config.
 * @param c parsed settings
 * @returns the SMTP settings, or null when SVC_SMTP_HOST is not set (notices stay pending)
 */
export function smtpSettings(c: TokenRunConfig): SmtpSettings | null {
  if (!c.smtpHost || !c.smtpFrom) return null;
  return {
    host: c.smtpHost,
    port: c.smtpPort,
    secure: c.smtpSecure,
    user: c.smtpUser ?? null,
    pass: c.smtpPass ?? null,
    from: c.smtpFrom,
  };
}
