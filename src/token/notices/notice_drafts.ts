/**
 * The three e-mail notices of interface-spec.md § Access phases as database drafts, unique on
 * (kind, subject, due time): 24 hours before a key expires, 7 days before a contract expires,
 * and when a contract is terminated. Dates are stored as epoch ms in `params`.
 * @module
 */
import { newId, type RandomBytes, systemRandom } from "../api_keys.ts";
import type { ApiKeyRecord, ContractRecord, Integrator, NoticeDraft } from "../store/mod.ts";

/** A key-expiry notice is due this long before the expiry (24 hours). */
export const KEY_NOTICE_LEAD_MS = 24 * 3600 * 1000;
/** A contract-expiry notice is due this long before the end (7 days). */
export const CONTRACT_NOTICE_LEAD_MS = 7 * 24 * 3600 * 1000;

/**
 * Draft of "your key expires in 24 hours".
 * @param key the key (with a stored expiry)
 * @param integrator its integrator (recipient, locale)
 * @param now epoch ms
 * @param rnd random source for the notice id
 * @returns the draft; due at expiry − 24 h
 */
export function keyExpiringDraft(
  key: ApiKeyRecord & { expiresAt: number },
  integrator: Integrator | null,
  now: number,
  rnd: RandomBytes = systemRandom,
): NoticeDraft {
  return {
    id: newId("ntc", rnd),
    kind: "key_expiring",
    subjectId: key.id,
    dueAt: key.expiresAt - KEY_NOTICE_LEAD_MS,
    integratorId: key.integratorId,
    recipient: integrator?.email ?? null,
    locale: integrator?.locale ?? "bg",
    params: {
      keyId: key.id,
      label: key.label,
      mode: key.mode,
      expiresAt: key.expiresAt,
      integratorName: integrator?.name ?? key.integratorId,
    },
    createdAt: now,
  };
}

/**
 * Draft of "your contract expires in 7 days" (to the contract's contact e-mail).
 * @param c the contract (with an end date)
 * @param integrator its integrator (locale)
 * @param now epoch ms
 * @param rnd random source for the notice id
 * @returns the draft; due at end − 7 days
 */
export function contractExpiringDraft(
  c: ContractRecord & { endsAt: number },
  integrator: Integrator | null,
  now: number,
  rnd: RandomBytes = systemRandom,
): NoticeDraft {
  return {
    id: newId("ntc", rnd),
    kind: "contract_expiring",
    subjectId: c.id,
    dueAt: c.endsAt - CONTRACT_NOTICE_LEAD_MS,
    integratorId: c.integratorId,
    recipient: c.contactEmail || integrator?.email || null,
    locale: integrator?.locale ?? "bg",
    params: { contractId: c.id, company: c.company, startsAt: c.startsAt, endsAt: c.endsAt },
    createdAt: now,
  };
}

/**
 * Draft of "your contract was terminated" (to the contract's contact e-mail).
 * @param c the terminated contract
 * @param integrator its integrator (locale)
 * @param keysExpireAt when the integrator's live keys expire under the pre-contract rules
 * @param now epoch ms
 * @param rnd random source for the notice id
 * @returns the draft; due at the termination time
 */
export function contractTerminatedDraft(
  c: ContractRecord & { terminatedAt: number },
  integrator: Integrator | null,
  keysExpireAt: number,
  now: number,
  rnd: RandomBytes = systemRandom,
): NoticeDraft {
  return {
    id: newId("ntc", rnd),
    kind: "contract_terminated",
    subjectId: c.id,
    dueAt: c.terminatedAt,
    integratorId: c.integratorId,
    recipient: c.contactEmail || integrator?.email || null,
    locale: integrator?.locale ?? "bg",
    params: {
      contractId: c.id,
      company: c.company,
      terminatedAt: c.terminatedAt,
      reason: c.terminationReason,
      keysExpireAt,
    },
    createdAt: now,
  };
}
