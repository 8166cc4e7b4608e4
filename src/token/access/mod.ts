/**
 * Who may ask for tokens (docs/token-service.md § Access phases): the secret API keys
 * (`api_keys.ts`: made, hashed, rotated; the ids and the random source), their access phases as one
 * pure function of a key and its integrator's contract (`phases.ts`) and the web page origins keys
 * and integrators register (`origins.ts`).
 * @module
 */
export {
  createApiKey,
  type CreateKeyInput,
  DEFAULT_INTEGRATOR_ID,
  hashSecret,
  looksLikeApiKey,
  newId,
  newUuid,
  type RandomBytes,
  rotateApiKey,
  systemRandom,
} from "./api_keys.ts";
export {
  httpOrigin,
  MAX_ORIGINS_PER_INTEGRATOR,
  MAX_PUBLISHED_ORIGINS,
  RegisteredOrigin,
  registrableOrigin,
  requireHttpOrigin,
  requireRegistrableOrigin,
} from "./origins.ts";
export {
  type KeyPolicy,
  keyPolicy,
  type KeyStatus,
  keyStatus,
  LIVE_KEY_LIFETIME_MS,
  type Phase,
} from "./phases.ts";
