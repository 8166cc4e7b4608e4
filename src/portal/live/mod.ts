/**
 * Public API of the live portal (docs/live-portal.md): the NRA public API client behind the
 * `PortalAdapter` interface, its settings, capabilities and error mapping. See
 * docs/live-portal.md.
 * @module
 */
export { createLivePortal, type LivePortal } from "./adapter.ts";
export {
  type AuthMode,
  authModeOf,
  type LiveEndpoints,
  liveEndpoints,
  type LivePortalDeps,
  type LivePortalSettings,
} from "./settings.ts";
export {
  assertLiveKind,
  checkLiveOperation,
  EXPERIMENTAL_LIVE_KINDS,
  isLiveKind,
  LIVE_SUBMISSION_KINDS,
  LIVE_UNSUPPORTED_SUBMISSIONS,
  type LiveCoverage,
  liveKinds,
  type LiveSubmissionKind,
  unsupportedReport,
} from "./capabilities.ts";
export { type CaFetch, caFetchFromFile, createCaFetch } from "./ca_fetch.ts";
export {
  type Evidence,
  NRA_ERROR_MAP,
  NRA_TOKEN_ERRORS,
  type NraCodeMapping,
  type NraEnvelope,
} from "./nra_answer.ts";
export { type NraFileDto, type NraSubmitBody, SERVICE_DOCUMENT_TYPES } from "./submit_body.ts";
export { type NraIdentity, taxpayerPinTypeOf, userPinOf } from "./identity.ts";
export { DEFAULT_EXPIRES_IN_SECONDS, TOKEN_EXPIRY_MARGIN_SECONDS } from "./oauth.ts";
