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

/** Whom a draft is for and when it is made. */
export interface DraftContext {
  /** The subject's integrator: the mail's language (`bg` when null) and, where the subject has
   * no contact e-mail, its recipient. */
  readonly integrator: Integrator | null;
  /** When the draft is made, epoch ms. */
  readonly now: number;
  /** The random source of the notice's id (default: the system's). */
  readonly rnd?: RandomBytes | undefined;
}

/**
 * A notice draft: its own fields, and what every draft has besides them (a fresh `ntc_` id, the
 * integrator's locale and the creation time).
 * @param own kind, subject, due time (epoch ms), integrator id, recipient and the mail's params
 * @param at whom it is for and when
 * @returns the draft, for the notice queue (unique on kind, subject and due time)
 */
export function draft(
  own: Pick<NoticeDraft, "kind" | "subjectId" | "dueAt" | "integratorId" | "recipient" | "params">,
  at: DraftContext,
): NoticeDraft {
  return {
    id: newId("ntc", at.rnd ?? systemRandom),
    ...own,
    locale: at.integrator?.locale ?? "bg",
    createdAt: at.now,
  };
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
 * @param at its integrator (recipient, locale), the time and the random source
 * @returns the draft; due at expiry − 24 h
 */
export function keyExpiringDraft(
  key: ApiKeyRecord & { expiresAt: number },
  at: DraftContext,
): NoticeDraft {
  const { integrator } = at;
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
    at,
  );
}

/**
 * Draft of "your contract expires in 7 days" (to the contract's contact e-mail).
 * @param c the contract (with an end date)
 * @param at its integrator (locale), the time and the random source
 * @returns the draft; due at end − 7 days
 */
export function contractExpiringDraft(
  c: ContractRecord & { endsAt: number },
  at: DraftContext,
): NoticeDraft {
  return draft(
    {
      kind: "contract_expiring",
      ...aboutContract(c, at.integrator),
      dueAt: c.endsAt - CONTRACT_NOTICE_LEAD_MS,
      params: { contractId: c.id, company: c.company, startsAt: c.startsAt, endsAt: c.endsAt },
    },
    at,
  );
}

/**
 * Draft of "your contract was terminated" (to the contract's contact e-mail).
 * @param c the terminated contract
 * @param keysExpireAt when the integrator's live keys expire under the pre-contract rules, epoch ms
 * @param at its integrator (locale), the time and the random source
 * @returns the draft; due at the termination time
 */
export function contractTerminatedDraft(
  c: ContractRecord & { terminatedAt: number },
  keysExpireAt: number,
  at: DraftContext,
): NoticeDraft {
  return draft(
    {
      kind: "contract_terminated",
      ...aboutContract(c, at.integrator),
      dueAt: c.terminatedAt,
      params: {
        contractId: c.id,
        company: c.company,
        terminatedAt: c.terminatedAt,
        reason: c.terminationReason,
        keysExpireAt,
      },
    },
    at,
  );
}
