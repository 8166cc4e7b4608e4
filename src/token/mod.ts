/**
 * The token service's public surface for `src/cli/` and `main.ts`: the store, the service,
 * key creation, the mailer and the admin operations the CLI runs. Nothing outside `src/token/`
 * imports a deeper file; inside, a folder is entered through its `mod.ts` (docs/architecture.md §
 * Layout).
 * @module
 */
export * from "./store/mod.ts";
export {
  type AppLog,
  createTokenService,
  type TokenService,
  type TokenServiceOptions,
} from "./service.ts";
export { rateLimitSettings, smtpSettings, TokenRunConfig } from "./service_config.ts";
export {
  agentUpdateRoute,
  createTokenApp,
  type TokenAppDeps,
  type UpdateManifestSource,
} from "./app.ts";
export {
  createApiKey,
  type CreateKeyInput,
  DEFAULT_INTEGRATOR_ID,
  httpOrigin,
  type RandomBytes,
  systemRandom,
} from "./access/mod.ts";
export {
  createSigningKeyCipher,
  encryptSigningKeys,
  type IssueConfig,
  type IssueTimings,
  type KeyAtRest,
  type KeyRing,
  loadKeyRing,
  MIN_SIGNING_KEY_SECRET_LENGTH,
  type SigningKeyCipher,
  type SigningKeyView,
  signingKeyViews,
} from "./issuance/mod.ts";
export {
  type AccessLogEntry,
  createRateLimiter,
  DEFAULT_TOKEN_RATE_LIMITS,
  type DrainState,
  leasedRateCounter,
  memoryRateCounter,
  type RateLimitSettings,
  setRateLimitHeaders,
  waitUntilQuiet,
} from "./edge/mod.ts";
export {
  applicationView,
  applicationViews,
  approveApplication,
  buildStatement,
  contractNow,
  contractView,
  contractViews,
  type IntegratorFilter,
  rejectApplication,
  requireMonth,
  statementCsv,
  submitApplication,
  terminateContract,
  usageCsv,
} from "./contracts/mod.ts";
export {
  MAX_REQUEST_LOG_ENTRIES,
  REQUEST_LOG_DAYS,
  RequestLogRecorder,
  USAGE_DAYS,
} from "./request_log/mod.ts";
export { createAdminInvite } from "./desk/mod.ts";
export {
  createSmtpMailer,
  type Mailer,
  type MailMessage,
  type SmtpSettings,
} from "./notices/mod.ts";
export { DemoOutbox, type OutboxMail } from "./outbox/mod.ts";
export * from "./admin/mod.ts";
