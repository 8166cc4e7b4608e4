/**
 * The three e-mail notices of docs/token-service.md § Access phases as database drafts, unique on
 * (kind, subject, due time): 24 hours before a key expires, 7 days before a contract expires,
 * and when a contract is terminated. Dates are stored as epoch ms in `params`.
 * @module
 */
import { newId, type RandomBytes, systemRandom } from "../access/mod.ts";
import type { ApiKeyRecord, ContractRecord, Integrator, NoticeDraft } from "../store/mod.ts";

/** A key-expiry notice is due this long before the expiry (24 hours). */
export const KEY_NOTICE_LEAD_MS = 24 * 3600 * 1000;
/** A contract-expiry notice is due this long before the end (7 days). */
export const CONTRACT_NOTICE_LEAD_MS = 7 * 24 * 3600 * 1000;

/** What every draft has besides its own fields: a fresh id, the locale and the creation time. */
function draft(
  own: Pick<NoticeDraft, "kind" | "subjectId" | "dueAt" | "integratorId" | "recipient" | "params">,
  integrator: Integrator | null,
  now: number,
  rnd: RandomBytes,
): NoticeDraft {
  return { id: newId("ntc", rnd), ...own, locale: integrator?.locale ?? "bg", createdAt: now };
}

/** A contract's notices go to its contact e-mail, else to the integrator's. */
const aboutContract = (c: ContractRecord, integrator: Integrator | null) => ({
  subjectId: c.id,
  integratorId: c.integratorId,
  recipient: c.contactEmail || integrator?.email || null,
});

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
  return draft(
    {
      kind: "key_expiring",
      subjectId: key.id,
      dueAt: key.expiresAt - KEY_NOTICE_LEAD_MS,
      integratorId: key.integratorId,
      recipient: integrator?.email ?? null,
      params: {
        keyId: key.id,
        label: key.label,
        mode: key.mode,
        expiresAt: key.expiresAt,
        integratorName: integrator?.name ?? key.integratorId,
      },
    },
    integrator,
    now,
    rnd,
  );
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
  return draft(
    {
      kind: "contract_expiring",
      ...aboutContract(c, integrator),
      dueAt: c.endsAt - CONTRACT_NOTICE_LEAD_MS,
      params: { contractId: c.id, company: c.company, startsAt: c.startsAt, endsAt: c.endsAt },
    },
    integrator,
    now,
    rnd,
  );
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
  return draft(
    {
      kind: "contract_terminated",
      ...aboutContract(c, integrator),
      dueAt: c.terminatedAt,
      params: {
        contractId: c.id,
        company: c.company,
        terminatedAt: c.terminatedAt,
        reason: c.terminationReason,
        keysExpireAt,
      },
    },
    integrator,
    now,
    rnd,
  );
}
