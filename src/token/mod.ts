/**
 * The token service's public surface for `src/cli/` and `main.ts`: the store, the service,
 * key creation, the mailer and the admin operations the CLI runs. Nothing outside `src/token/`
 * imports a deeper file; inside, a folder is entered through its `mod.ts` (`store/`, `admin/`,
 * `notices/`).
 * @module
 */
export * from "./store/mod.ts";
export {
  type AppLog,
  createTokenService,
  type TokenService,
  type TokenServiceOptions,
} from "./service.ts";
export {
  rateLimitSettings,
  smtpSettings,
  TOKEN_RUN_ENV,
  TokenRunConfig,
} from "./service_config.ts";
export {
  createRateLimiter,
  DEFAULT_TOKEN_RATE_LIMITS,
  leasedRateCounter,
  memoryRateCounter,
  type RateLimitSettings,
  setRateLimitHeaders,
} from "./edge/mod.ts";
export { type DrainState, waitUntilQuiet } from "./edge/mod.ts";
export { createAdminInvite } from "./desk/mod.ts";
export {
  MAX_REQUEST_LOG_ENTRIES,
  REQUEST_LOG_DAYS,
  RequestLogRecorder,
  USAGE_DAYS,
} from "./request_log/mod.ts";
export type { AccessLogEntry } from "./edge/mod.ts";
export {
  createSmtpMailer,
  type Mailer,
  type MailMessage,
  type SmtpSettings,
} from "./notices/mod.ts";
export { DemoOutbox, type OutboxMail } from "./outbox/mod.ts";
export {
  createApiKey,
  type CreateKeyInput,
  DEFAULT_INTEGRATOR_ID,
  type RandomBytes,
  systemRandom,
} from "./access/mod.ts";
export * from "./admin/mod.ts";
export {
  applicationView,
  approveApplication,
  contractView,
  rejectApplication,
  submitApplication,
  terminateContract,
} from "./contracts/mod.ts";
export { buildStatement, requireMonth, statementCsv, usageCsv } from "./contracts/mod.ts";
export {
  agentUpdateRoute,
  createTokenApp,
  type TokenAppDeps,
  type UpdateManifestSource,
} from "./app.ts";
export type { IssueConfig, IssueTimings } from "./issuance/mod.ts";
export { httpOrigin } from "./access/mod.ts";
export {
  encryptSigningKeys,
  type KeyAtRest,
  type KeyRing,
  loadKeyRing,
  type SigningKeyView,
  signingKeyViews,
} from "./issuance/mod.ts";
export {
  createSigningKeyCipher,
  MIN_SIGNING_KEY_SECRET_LENGTH,
  type SigningKeyCipher,
} from "./issuance/mod.ts";
