/**
 * The token service's HTTP edge (docs/token-service.md § Operations): what every request
 * passes through around the routes: the request id, the access log and the in-flight count
 * (`request_edge.ts`), readiness and draining (`readiness.ts`), body limits (`body_limits.ts`),
 * error answers on the wire (`errors_wire.ts`) and rate limits (`rate_limit.ts`, counted by
 * `rate_counters.ts`).
 * @module
 */
export { limitBody } from "./body_limits.ts";
export { errorAnswer } from "./errors_wire.ts";
export {
  createRateLimiter,
  DEFAULT_TOKEN_RATE_LIMITS,
  fixedWindow,
  hitBudget,
  leasedRateCounter,
  limitRequest,
  memoryRateCounter,
  type RateLimiter,
  type RateLimitSettings,
  setRateLimitHeaders,
  showBudget,
  storeRateCounter,
} from "./rate_limit.ts";
export { type DrainState, readyRoute, waitUntilQuiet } from "./readiness.ts";
export { type AccessLogEntry, noteErrorCode, requestIdOf, withEdge } from "./request_edge.ts";
