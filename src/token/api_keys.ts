/**
 * Secret API keys: `svc_test_` / `svc_live_` followed by 43 base64url characters (256 bits from
 * the injected random source). Only the SHA-256 hash is stored; the secret is returned once.
 * Lifetimes follow interface-spec.md § Access phases / § Limits: test keys 90 days, live keys
 * before a contract 7 days, keys under a contract no expiry.
 * @module
 */
import { createHash } from "node:crypto";
import type { ApiKeyRecord, KeyMode, TokenStore } from "./store.ts";

/** 90 days in ms (test key lifetime). */
export const TEST_KEY_LIFETIME_MS = 90 * 24 * 3600 * 1000;
/** 7 days in ms (live key lifetime before a contract). */
export const LIVE_KEY_LIFETIME_MS = 7 * 24 * 3600 * 1000;
/** Distinct EIKs a live key may cover before a contract. */
export const LIVE_EIK_LIMIT_WITHOUT_CONTRACT = 3;
/** The integrator that `keys create` uses when none is named. */
export const DEFAULT_INTEGRATOR_ID = "default";

const KEY_RE = /^svc_(test|live)_[A-Za-z0-9_-]{43}$/;

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
  readonly integratorId?: string;
  readonly label?: string | null;
  /** Restrict the key to these EIKs (administrator's list). */
  readonly allowedEiks?: readonly string[] | null;
  /** Epoch ms. */
  readonly now: number;
  /** Random source (tests inject a deterministic one). */
  readonly randomBytes?: (n: number) => Uint8Array;
}

/**
 * Create and store a key; returns the secret once.
 * @param store the token store
 * @param input mode, integrator, label, allowed EIKs, time
 * @returns `{ secret, record }` — show `secret` to the user once, never log it
 */
export async function createApiKey(
  store: TokenStore,
  input: CreateKeyInput,
): Promise<{ secret: string; record: ApiKeyRecord }> {
  const integratorId = input.integratorId ?? DEFAULT_INTEGRATOR_ID;
  if (integratorId === DEFAULT_INTEGRATOR_ID && !(await store.getIntegrator(integratorId))) {
    await store.createIntegrator({
      id: DEFAULT_INTEGRATOR_ID,
      name: "Demo integrator",
      email: null,
      allowedOrigins: [],
      createdAt: input.now,
    });
  }
  const rnd = input.randomBytes ?? ((n: number) => crypto.getRandomValues(new Uint8Array(n)));
  const secret = `svc_${input.mode}_${rnd(32).toBase64({ alphabet: "base64url", omitPadding: true })}`;
  const contract = await store.hasActiveContract(integratorId, input.now);
  const expiresAt = input.mode === "test"
    ? input.now + TEST_KEY_LIFETIME_MS
    : contract
    ? null
    : input.now + LIVE_KEY_LIFETIME_MS;
  const record: ApiKeyRecord = {
    id: `key_${rnd(9).toBase64({ alphabet: "base64url", omitPadding: true })}`,
    integratorId,
    mode: input.mode,
    secretHash: hashSecret(secret),
    label: input.label ?? null,
    createdAt: input.now,
    expiresAt,
    revokedAt: null,
    allowedEiks: input.allowedEiks ?? null,
  };
  await store.createKey(record);
  return { secret, record };
}
