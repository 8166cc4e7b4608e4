/**
 * Administration of integrators and their keys (docs/token-service.md § Access phases;
 * § Allowed EIK list, revocation, rotation: only an administrator changes a key's EIKs). Shared
 * by the admin HTTP API and the admin CLI. Views never contain the secret or its hash; a new
 * secret is returned once, at creation or rotation.
 * @module
 */
import type { z } from "zod";
import { AppError, type KeyMode } from "../../contract/mod.ts";
import type { IntegratorCreate, IntegratorUpdate, KeyCreate } from "./admin_schemas.ts";
import {
  createApiKey,
  keyPolicy,
  type KeyStatus,
  keyStatus,
  MAX_ORIGINS_PER_INTEGRATOR,
  newId,
  type Phase,
  requireRegistrableOrigin,
  rotateApiKey,
} from "../access/mod.ts";
import type { AdminDeps } from "../deps.ts";
import type { ApiKeyRecord, Integrator } from "../store/mod.ts";

export type { AdminDeps } from "../deps.ts";

/** A key as administrators see it (ISO dates; never the secret or its hash). */
export interface KeyView {
  readonly id: string;
  readonly integratorId: string;
  readonly mode: KeyMode;
  readonly label: string | null;
  readonly status: KeyStatus;
  readonly phase: Phase;
  readonly createdAt: string;
  /** Effective expiry now; null = none. */
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly allowedEiks: readonly string[] | null;
  /** The key's own page origins; null = the integrator's. */
  readonly allowedOrigins: readonly string[] | null;
  /** Distinct EIKs counted against the limit, and the limit (null = none). */
  readonly eiksUsed: readonly string[];
  readonly eikLimit: number | null;
  readonly rotatedFrom: string | null;
}

/** An integrator as administrators see it. */
export interface IntegratorView {
  readonly id: string;
  readonly name: string;
  readonly email: string | null;
  readonly locale: "bg" | "en";
  readonly allowedOrigins: readonly string[];
  readonly createdAt: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Present an integrator.
 * @param i the record
 * @returns the view
 */
export function integratorView(i: Integrator): IntegratorView {
  return {
    id: i.id,
    name: i.name,
    email: i.email,
    locale: i.locale ?? "bg",
    allowedOrigins: i.allowedOrigins,
    createdAt: new Date(i.createdAt).toISOString(),
  };
}

/**
 * Present a key with its effective phase now.
 * @param d store and clock
 * @param k the record
 * @returns the view
 */
export async function keyView(d: AdminDeps, k: ApiKeyRecord): Promise<KeyView> {
  const now = d.clock.now();
  const state = k.mode === "live" ? await d.store.contractState(k.integratorId, now) : null;
  const policy = keyPolicy(k, state);
  return {
    id: k.id,
    integratorId: k.integratorId,
    mode: k.mode,
    label: k.label,
    status: keyStatus(k, policy, now),
    phase: policy.phase,
    createdAt: new Date(k.createdAt).toISOString(),
    expiresAt: iso(policy.expiresAt),
    revokedAt: iso(k.revokedAt),
    allowedEiks: k.allowedEiks,
    allowedOrigins: k.allowedOrigins ?? null,
    eiksUsed: policy.eikLimit === null ? [] : await d.store.keyEiks(k.id),
    eikLimit: policy.eikLimit,
    rotatedFrom: k.rotatedFrom ?? null,
  };
}

/**
 * Create an integrator.
 * @param d store, clock, random
 * @param input validated {@link IntegratorCreate}
 * @returns the view
 * @throws AppError CONFLICT (409) when the id is taken
 */
export async function createIntegrator(
  d: AdminDeps,
  input: z.infer<typeof IntegratorCreate>,
): Promise<IntegratorView> {
  const id = input.id ?? newId("int", d.random);
  if (await d.store.getIntegrator(id)) {
    throw new AppError("CONFLICT", `Integrator "${id}" already exists`, { integratorId: id });
  }
  const rec: Integrator = {
    id,
    name: input.name,
    email: input.email,
    locale: input.locale,
    allowedOrigins: input.allowedOrigins,
    createdAt: d.clock.now(),
  };
  await d.store.createIntegrator(rec);
  return integratorView(rec);
}

/** The record, or NOT_FOUND naming what was asked for. */
function found<T>(v: T | null, what: "integrator" | "key", id: string): T {
  if (v !== null) return v;
  throw new AppError("NOT_FOUND", `No ${what} "${id}"`, { [`${what}Id`]: id });
}

/**
 * Load an integrator or fail.
 * @param d store
 * @param id integrator id
 * @returns the record
 * @throws AppError NOT_FOUND (404)
 */
export async function requireIntegrator(d: AdminDeps, id: string): Promise<Integrator> {
  return found(await d.store.getIntegrator(id), "integrator", id);
}

/**
 * Change an integrator's name, e-mail, locale or origins.
 * @param d store
 * @param id integrator id
 * @param patch validated {@link IntegratorUpdate}
 * @returns the view
 * @throws AppError NOT_FOUND (404)
 */
export async function updateIntegrator(
  d: AdminDeps,
  id: string,
  patch: z.infer<typeof IntegratorUpdate>,
): Promise<IntegratorView> {
  return integratorView(found(await d.store.updateIntegrator(id, patch), "integrator", id));
}

/**
 * Load a key or fail.
 * @param d store
 * @param id key id
 * @returns the record
 * @throws AppError NOT_FOUND (404)
 */
export async function requireKey(d: AdminDeps, id: string): Promise<ApiKeyRecord> {
  return found(await d.store.getKey(id), "key", id);
}

/** The view of a key just changed; NOT_FOUND when the store knew no such key. */
async function changedKey(d: AdminDeps, id: string, changed: boolean): Promise<KeyView> {
  found(changed ? true : null, "key", id);
  return keyView(d, await requireKey(d, id));
}

/**
 * Create a key for an integrator (any number of keys; § Access phases, phase 1).
 * @param d store, clock, random
 * @param input validated {@link KeyCreate}
 * @returns the secret (shown once) and the key view
 * @throws AppError NOT_FOUND (404) for an unknown integrator
 */
export async function createKeyFor(
  d: AdminDeps,
  input: z.infer<typeof KeyCreate>,
): Promise<{ secret: string; key: KeyView }> {
  await requireIntegrator(d, input.integratorId);
  const { secret, record } = await createApiKey(d.store, {
    mode: input.mode,
    integratorId: input.integratorId,
    label: input.label,
    allowedEiks: input.allowedEiks,
    now: d.clock.now(),
    randomBytes: d.random,
  });
  return { secret, key: await keyView(d, record) };
}

/**
 * Revoke a key now (also ends a rotation's grace period early).
 * @param d store, clock
 * @param id key id
 * @returns the key view
 * @throws AppError NOT_FOUND (404), CONFLICT (409) when already revoked
 */
export async function revokeKeyNow(d: AdminDeps, id: string): Promise<KeyView> {
  // The revocation first (one statement: every instance refuses the key from its commit on,
  // docs/token-service.md § Issuance cache); the reads only when it did not happen.
  const revoked = await d.store.revokeKey(id, d.clock.now());
  if (revoked) return keyView(d, revoked);
  await requireKey(d, id);
  throw new AppError("CONFLICT", `Key "${id}" is already revoked`, { keyId: id });
}

/**
 * Rotate a key: new secret, the old one revoked after `graceSeconds`.
 * @param d store, clock, random
 * @param id key id
 * @param graceSeconds grace period of the old secret
 * @returns the new secret (shown once), the new key and the old key
 * @throws AppError NOT_FOUND (404), CONFLICT (409) when the key is revoked or expired
 */
export async function rotateKeyNow(
  d: AdminDeps,
  id: string,
  graceSeconds: number,
): Promise<{ secret: string; key: KeyView; previous: KeyView }> {
  const old = await requireKey(d, id);
  const view = await keyView(d, old);
  if (view.status === "revoked" || view.status === "expired") {
    throw new AppError("CONFLICT", `Key "${id}" is ${view.status} and cannot be rotated`, {
      keyId: id,
    });
  }
  const res = await rotateApiKey(d.store, old, graceSeconds * 1000, d.clock.now(), d.random);
  if (!res) throw new AppError("CONFLICT", `Key "${id}" is already revoked`, { keyId: id });
  return {
    secret: res.secret,
    key: await keyView(d, res.record),
    previous: await keyView(d, await requireKey(d, id)),
  };
}

/**
 * Set or clear a key's allowed EIK list (§ Errors / Token service: 403 lists `rejectedEiks`).
 * @param d store, clock
 * @param id key id
 * @param allowedEiks the list, or null for any EIK
 * @returns the key view
 * @throws AppError NOT_FOUND (404)
 */
export async function setKeyAllowedEiks(
  d: AdminDeps,
  id: string,
  allowedEiks: readonly string[] | null,
): Promise<KeyView> {
  const list = allowedEiks === null ? null : [...new Set(allowedEiks)];
  return changedKey(d, id, await d.store.setAllowedEiks(id, list));
}

/**
 * Set or clear a key's own page origins (docs/token-service.md § Page origins: the origin a
 * token may be bound to; null = the integrator's origins).
 * @param d store, clock
 * @param id key id
 * @param origins the origins (http(s) only), or null
 * @returns the key view
 * @throws AppError NOT_FOUND (404), VALIDATION_FAILED (400) for an origin that is not http(s)
 */
export async function setKeyAllowedOrigins(
  d: AdminDeps,
  id: string,
  origins: readonly string[] | null,
): Promise<KeyView> {
  const list = origins === null
    ? null
    : [...new Set(origins.map((o, i) => requireRegistrableOrigin(o, `allowedOrigins.${i}`)))];
  if (list && list.length > MAX_ORIGINS_PER_INTEGRATOR) {
    throw new AppError(
      "VALIDATION_FAILED",
      `Field "allowedOrigins" holds at most ${MAX_ORIGINS_PER_INTEGRATOR} origins`,
      { field: "allowedOrigins" },
    );
  }
  return changedKey(d, id, await d.store.setAllowedOrigins(id, list));
}
