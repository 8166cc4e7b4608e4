/**
 * The access phases of docs/token-service.md § Access phases, as one
 * pure function of a key and its integrator's contract state:
 *
 * | key | contract in force | expiry | EIK limit |
 * |---|---|---|---|
 * | test | any | 90 days from creation | none |
 * | live | no (phase 1) | the integrator's 7 days (from its first live key) | 3 distinct EIKs (persistent, all live keys of the integrator together) |
 * | live | yes (phase 3) | none | none |
 * | live | ended (expired/terminated) | 7 days from the end | 3 distinct EIKs |
 *
 * A live key still valid when a contract starts has its expiry lifted (stored as null by the
 * approval); a live key that had already expired stays expired. When the contract ends, keys
 * without expiry get `end + 7 days` (stored by the termination or by the scheduler for an
 * expiry); until the scheduler has stored it, this function derives the same value.
 * @module
 */
import type { ApiKeyRecord, ContractState } from "../store/mod.ts";
import type { KeyMode } from "../../contract/mod.ts";

const DAY_MS = 24 * 3600 * 1000;
/** 90 days in ms (test key lifetime, docs/token-service.md § Access phases). */
export const TEST_KEY_LIFETIME_MS = 90 * DAY_MS;
/** 7 days in ms (the integrator's live keys together before a contract, and after one ends;
 * docs/token-service.md § Access phases). */
export const LIVE_KEY_LIFETIME_MS = 7 * DAY_MS;
/** Distinct EIKs a live key may cover without a contract (docs/token-service.md § Access phases). */
export const LIVE_EIK_LIMIT_WITHOUT_CONTRACT = 3;

/** Which rules apply to a key right now. */
export type Phase = "testing" | "pre_contract" | "contract";

/** The effective rules of a key at one instant. */
export interface KeyPolicy {
  readonly phase: Phase;
  /** Effective expiry (epoch ms), null = none. */
  readonly expiresAt: number | null;
  /** Distinct EIKs allowed, null = unlimited. */
  readonly eikLimit: number | null;
  /** Contract billed for tokens of this key (live keys in phase 3), else null. */
  readonly contractId: string | null;
}

/**
 * The effective rules of a key.
 * @param key the stored key
 * @param state the integrator's contract state now (ignored for test keys; may be null then)
 * @returns phase, effective expiry, EIK limit and the billed contract
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import type { ApiKeyRecord } from "../store/mod.ts";
 * const key = { mode: "live", createdAt: 0, expiresAt: 7 * 864e5 } as ApiKeyRecord;
 * equal(keyPolicy(key, { active: null, lastEndedAt: null }).eikLimit, 3);
 * ```
 */
export function keyPolicy(key: ApiKeyRecord, state: ContractState | null): KeyPolicy {
  if (key.mode === "test") {
    return { phase: "testing", expiresAt: key.expiresAt, eikLimit: null, contractId: null };
  }
  const active = state?.active ?? null;
  if (active) {
    // Lifted at approval (null), or created in the instant of the approval: no expiry.
    // A key that expired before the contract started stays expired.
    const lifted = key.expiresAt === null || key.expiresAt > active.startsAt;
    return {
      phase: "contract",
      expiresAt: lifted ? null : key.expiresAt,
      eikLimit: null,
      contractId: active.id,
    };
  }
  const expiresAt = key.expiresAt ??
    (state?.lastEndedAt ?? key.createdAt) + LIVE_KEY_LIFETIME_MS;
  return {
    phase: "pre_contract",
    expiresAt,
    eikLimit: LIVE_EIK_LIMIT_WITHOUT_CONTRACT,
    contractId: null,
  };
}

/** Status of a key for listings. */
export type KeyStatus = "active" | "expired" | "revoked" | "revoking";

/**
 * A key's status at `now`.
 * @param key the stored key
 * @param policy its effective rules
 * @param now epoch ms
 * @returns `revoked` (revocation time passed), `expired`, `revoking` (in a rotation's grace
 *   period) or `active`
 */
export function keyStatus(key: ApiKeyRecord, policy: KeyPolicy, now: number): KeyStatus {
  if (key.revokedAt !== null && key.revokedAt <= now) return "revoked";
  if (policy.expiresAt !== null && policy.expiresAt <= now) return "expired";
  return key.revokedAt !== null ? "revoking" : "active";
}

/**
 * Expiry to store for a new key (docs/token-service.md § Access phases).
 * @param mode test or live
 * @param contractInForce whether the integrator has a contract in force now
 * @param now epoch ms
 * @returns epoch ms, or null for a live key under a contract
 */
export function initialExpiry(mode: KeyMode, contractInForce: boolean, now: number) {
  if (mode === "test") return now + TEST_KEY_LIFETIME_MS;
  return contractInForce ? null : now + LIVE_KEY_LIFETIME_MS;
}
