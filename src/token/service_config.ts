/**
 * Settings of the token service's administration, notices and billing (docs/token-service.md
 * § Access phases), read by `main.ts` with `loadConfig(TokenRunConfig, TOKEN_RUN_ENV, env, {})`
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
  ).optional(),
  smtpHost: z.string().min(1).optional(),
  smtpPort: z.coerce.number().int().min(1).max(65535).default(587),
  smtpSecure: envFlag.default(false),
  smtpUser: z.string().min(1).optional(),
  smtpPass: z.string().optional(),
  smtpFrom: z.string().min(3).optional(),
  noticeIntervalSeconds: z.coerce.number().int().min(1).max(86_400).default(60),
  usageFlushSeconds: z.coerce.number().min(0).max(3600).default(1),
  instanceId: z.string().min(1).max(100).optional(),
  rateLimitWindowSeconds: z.coerce.number().int().min(1).max(3600).default(
    DEFAULT_TOKEN_RATE_LIMITS.windowSeconds,
  ),
  rateLimitPerKey: z.coerce.number().int().min(0).default(DEFAULT_TOKEN_RATE_LIMITS.perKey),
  rateLimitPerIntegrator: z.coerce.number().int().min(0).default(
    DEFAULT_TOKEN_RATE_LIMITS.perIntegrator,
  ),
  accessLog: envFlag.default(true),
  /** Which token requests the profile's request log keeps (request_log/recorder.ts). */
  requestLog: z.enum(["all", "errors"]).default("all"),
  shutdownDelaySeconds: z.coerce.number().min(0).max(300).default(10),
}).superRefine((v, ctx) => {
  if (v.smtpHost && !v.smtpFrom) {
    ctx.addIssue({ code: "custom", path: ["smtpFrom"], message: "is required with SVC_SMTP_HOST" });
  }
});
/** Parsed {@link TokenRunConfig}. */
export type TokenRunConfig = z.infer<typeof TokenRunConfig>;

/** Environment variables of {@link TokenRunConfig}. */
export const TOKEN_RUN_ENV = {
  SVC_ADMIN_TOKEN: "adminToken",
  SVC_SMTP_HOST: "smtpHost",
  SVC_SMTP_PORT: "smtpPort",
  SVC_SMTP_SECURE: "smtpSecure",
  SVC_SMTP_USER: "smtpUser",
  SVC_SMTP_PASS: "smtpPass",
  SVC_SMTP_FROM: "smtpFrom",
  SVC_NOTICE_INTERVAL_SECONDS: "noticeIntervalSeconds",
  SVC_USAGE_FLUSH_SECONDS: "usageFlushSeconds",
  SVC_INSTANCE_ID: "instanceId",
  SVC_RATE_LIMIT_WINDOW_SECONDS: "rateLimitWindowSeconds",
  SVC_RATE_LIMIT_PER_KEY: "rateLimitPerKey",
  SVC_RATE_LIMIT_PER_INTEGRATOR: "rateLimitPerIntegrator",
  SVC_ACCESS_LOG: "accessLog",
  SVC_REQUEST_LOG: "requestLog",
  SVC_SHUTDOWN_DELAY_SECONDS: "shutdownDelaySeconds",
} as const;

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
