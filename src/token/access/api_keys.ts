/**
 * Secret API keys: `svc_test_` / `svc_live_` followed by 43 base64url characters (256 bits from
 * the injected random source). Only the SHA-256 hash is stored; the secret is returned once.
 * Lifetimes follow docs/token-service.md § Access phases / docs/token-service.md § Access phases
 * (see `phases.ts`). Rotation gives a key a new secret: a new key record inherits integrator,
 * mode, label, allowed list, expiry and EIK set, and the old key is revoked after an optional grace period.
 * @module
 */
import { createHash } from "node:crypto";
import { requireRegistrableOrigin } from "./origins.ts";
import { AppError } from "../../contract/mod.ts";
import { initialExpiry, LIVE_KEY_LIFETIME_MS } from "./phases.ts";
import type { ApiKeyRecord, KeyMode, TokenStore } from "../store/mod.ts";

export {
  LIVE_EIK_LIMIT_WITHOUT_CONTRACT,
  LIVE_KEY_LIFETIME_MS,
  TEST_KEY_LIFETIME_MS,
} from "./phases.ts";

/** The integrator that `keys create` uses when none is named. */
export const DEFAULT_INTEGRATOR_ID = "default";

const KEY_RE = /^svc_(test|live)_[A-Za-z0-9_-]{43}$/;

/** A random source: n bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/** The system random source (`crypto.getRandomValues`). */
export const systemRandom: RandomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));

const b64 = (b: Uint8Array) => b.toBase64({ alphabet: "base64url", omitPadding: true });

/**
 * A random id with a prefix, e.g. `key_…`, `ctr_…`.
 * @param prefix short prefix without the underscore
 * @param rnd random source
 * @returns `<prefix>_<12 base64url characters>`
 */
export function newId(prefix: string, rnd: RandomBytes = systemRandom): string {
  return `${prefix}_${b64(rnd(9))}`;
}

/**
 * A random UUID (version 4, RFC 9562) from the given random source, e.g. a token's `jti`.
 * @param rnd random source
 * @returns `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` (lower-case hex)
 */
export function newUuid(rnd: RandomBytes = systemRandom): string {
  const b = rnd(16);
  // non-null: rnd(16) answers 16 bytes
  b[6] = (b[6]! & 0x0f) | 0x40;
  // non-null: rnd(16) answers 16 bytes
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toHex();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * SHA-256 (hex) of a secret key, the only form the store keeps.
 * @param secret the full key string
 * @returns 64 hex characters
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/**
 * Whether a string has the shape of a secret key (cheap pre-check before a store lookup).
 * @param s candidate
 * @returns true for `svc_test_…` / `svc_live_…` with 43 base64url characters
 */
export function looksLikeApiKey(s: string): boolean {
  return KEY_RE.test(s);
}

/** Input of {@link createApiKey}. */
export interface CreateKeyInput {
  readonly mode: KeyMode;
  readonly integratorId?: string | undefined;
  readonly label?: string | null;
  /** Restrict the key to these EIKs (administrator's list). */
  readonly allowedEiks?: readonly string[] | null;
  /** Page origins this key's tokens may be bound to, http(s) only (null = the integrator's). */
  readonly allowedOrigins?: readonly string[] | null;
  /** Epoch ms. */
  readonly now: number;
  /** Random source (tests inject a deterministic one). */
  readonly randomBytes?: RandomBytes | undefined;
}

/**
 * Create and store a key; returns the secret once. The default integrator is created on first
 * use (demo and `keys create`); other integrators must exist.
 * @param store the token store
 * @param input mode, integrator, label, allowed EIKs, time
 * @returns `{ secret, record }` — show `secret` to the user once, never log it
 * @throws AppError VALIDATION_FAILED when an allowed origin is not an http(s) origin
 *   (`details.field` "allowedOrigins.N"); LIVE_TRIAL_OVER (402) for a live key without a contract
 *   once the integrator's 7 days are over ({@link liveTrialExpiry}); Error from the store when
 *   the integrator does not exist (foreign key)
 */
export async function createApiKey(
  store: TokenStore,
  input: CreateKeyInput,
): Promise<{ secret: string; record: ApiKeyRecord }> {
  const allowedOrigins = input.allowedOrigins?.map((o, i) =>
    requireRegistrableOrigin(o, `allowedOrigins.${i}`)
  );
  const integratorId = input.integratorId ?? DEFAULT_INTEGRATOR_ID;
  if (integratorId === DEFAULT_INTEGRATOR_ID && !(await store.getIntegrator(integratorId))) {
    await store.createIntegrator({
      id: DEFAULT_INTEGRATOR_ID,
      name: "Demo integrator",
      email: null,
      locale: "bg",
      allowedOrigins: [],
      createdAt: input.now,
    }).catch(async (e) => {
      // Another process created it first; anything else is a real failure.
      if (!(await store.getIntegrator(integratorId))) throw e;
    });
  }
  const rnd = input.randomBytes ?? systemRandom;
  const secret = `svc_${input.mode}_${b64(rnd(32))}`;
  const expiresAt = await liveTrialExpiry(store, integratorId, input.mode, input.now);
  const record: ApiKeyRecord = {
    id: newId("key", rnd),
    integratorId,
    mode: input.mode,
    secretHash: hashSecret(secret),
    label: input.label ?? null,
    createdAt: input.now,
    expiresAt,
    revokedAt: null,
    allowedEiks: input.allowedEiks ?? null,
    allowedOrigins: allowedOrigins ? [...new Set(allowedOrigins)] : null,
    rotatedFrom: null,
  };
  await store.createKey(record);
  return { secret, record };
}

/**
 * The stored expiry of a new key (docs/token-service.md § Access phases). Without a contract the
 * live keys of one integrator together last 7 days, which run from its first live key (or from
 * the end of its last contract): a live key expires at the end of those 7 days (a key made on
 * day 6 lasts one day), and none is made after them. A new key cannot renew the trial.
 * @param store the token store
 * @param integratorId the key's integrator
 * @param mode test or live
 * @param now epoch ms
 * @returns epoch ms, or null for a live key under a contract
 * @throws AppError LIVE_TRIAL_OVER (402) when the integrator's 7 days are over
 */
export async function liveTrialExpiry(
  store: TokenStore,
  integratorId: string,
  mode: KeyMode,
  now: number,
): Promise<number | null> {
  if (mode === "test") return initialExpiry("test", false, now);
  const state = await store.contractState(integratorId, now);
  if (state.active) return initialExpiry("live", true, now);
  // non-null: initialExpiry answers null only for a live key under a contract (false here)
  const own = initialExpiry("live", false, now)!;
  // After a contract, its end; before any, the integrator's first live key (revoked included).
  const start = state.lastEndedAt ??
    (await store.listKeys({ integratorId }))
      .filter((k) => k.mode === "live")
      .reduce((m, k) => Math.min(m, k.createdAt), Infinity);
  if (start === Infinity) return own;
  const end = start + LIVE_KEY_LIFETIME_MS;
  if (end <= now) {
    throw new AppError(
      "LIVE_TRIAL_OVER",
      "The 7 days of live keys without a contract are over; apply for a contract",
      { trialEndedAt: new Date(end).toISOString() },
    );
  }
  return Math.min(own, end);
}

/**
 * Rotate a key: a new secret (new key record inheriting integrator, mode, label, allowed list,
 * stored expiry and EIK set); the old key stops working at `now + graceMs`.
 * @param store the token store
 * @param old the key to rotate (not revoked)
 * @param graceMs how long the old secret keeps working (0 = at once)
 * @param now epoch ms
 * @param rnd random source
 * @returns the new secret (shown once) and record, or null when the old key was revoked
 *   meanwhile
 */
export async function rotateApiKey(
  store: TokenStore,
  old: ApiKeyRecord,
  graceMs: number,
  now: number,
  rnd: RandomBytes = systemRandom,
): Promise<{ secret: string; record: ApiKeyRecord } | null> {
  const secret = `svc_${old.mode}_${b64(rnd(32))}`;
  const record: ApiKeyRecord = {
    ...old,
    id: newId("key", rnd),
    secretHash: hashSecret(secret),
    createdAt: now,
    revokedAt: null,
    rotatedFrom: old.id,
  };
  const ok = await store.rotateKey(old.id, record, now + graceMs, now);
  return ok ? { secret, record } : null;
}
