/**
 * Settings of the token service's administration, notices and billing (interface-spec.md
 * § Access phases), read by `main.ts` with `loadConfig(TokenOpsConfig, TOKEN_OPS_ENV, env, {})`
 * next to `TokenServiceConfig` (which already has SVC_DATABASE_URL). Secrets (admin token, SMTP
 * password) stay in this object and are handed only to the admin guard and to nodemailer.
 * @module
 */
import { z } from "zod";
import { MIN_ADMIN_TOKEN_LENGTH } from "./admin/mod.ts";
import type { SmtpSettings } from "./notices/mod.ts";

const bool = z.union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no"])])
  .transform((v) => v === true || v === "true" || v === "1" || v === "yes");

/** Administration, SMTP and scheduler settings of the token service. */
export const TokenOpsConfig = z.object({
  adminToken: z.string().min(
    MIN_ADMIN_TOKEN_LENGTH,
    `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`,
  ).optional(),
  smtpHost: z.string().min(1).optional(),
  smtpPort: z.coerce.number().int().min(1).max(65535).default(587),
  smtpSecure: bool.default(false),
  smtpUser: z.string().min(1).optional(),
  smtpPass: z.string().optional(),
  smtpFrom: z.string().min(3).optional(),
  noticeIntervalSeconds: z.coerce.number().int().min(1).max(86_400).default(60),
  usageFlushSeconds: z.coerce.number().min(0).max(3600).default(1),
  instanceId: z.string().min(1).max(100).optional(),
}).superRefine((v, ctx) => {
  if (v.smtpHost && !v.smtpFrom) {
    ctx.addIssue({ code: "custom", path: ["smtpFrom"], message: "is required with SVC_SMTP_HOST" });
  }
});
/** Parsed {@link TokenOpsConfig}. */
export type TokenOpsConfig = z.infer<typeof TokenOpsConfig>;

/** Environment variables of {@link TokenOpsConfig}. */
export const TOKEN_OPS_ENV = {
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
} as const;

/**
 * SMTP settings from the config.
 * @param c parsed settings
 * @returns the SMTP settings, or null when SVC_SMTP_HOST is not set (notices stay pending)
 */
export function smtpSettings(c: TokenOpsConfig): SmtpSettings | null {
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
