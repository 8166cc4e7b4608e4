/**
 * Records of the token service's business side (docs/token-service.md
 * § Access phases): contract applications, contracts, e-mail notices and monthly usage
 * counters. Times are epoch milliseconds; `null` means "not set".
 * @module
 */
import type { KeyMode } from "../../contract/mod.ts";

/** Languages of the notice templates. */
export type Locale = "bg" | "en";

/** `pending` until an administrator approves (→ a contract) or rejects it. */
export type ApplicationStatus = "pending" | "approved" | "rejected";

/** An integrator's application for a contract (phase 2). */
export interface ApplicationRecord {
  readonly id: string;
  readonly integratorId: string;
  readonly company: string;
  readonly contactEmail: string;
  readonly intendedUse: string;
  readonly status: ApplicationStatus;
  readonly submittedAt: number;
  readonly decidedAt: number | null;
  /** The administrator's note (the reason of a rejection). */
  readonly decisionNote: string | null;
  /** Set on approval. */
  readonly contractId: string | null;
}

/**
 * `active` (in force until `endsAt`), `expired` (its end date passed; set by the scheduler),
 * `terminated` (ended early by an administrator), `superseded` (replaced by a newer contract
 * approved while it was in force).
 */
export type ContractStatus = "active" | "expired" | "terminated" | "superseded";

/** A contract (phase 3 while in force). The approval date is `startsAt`. */
export interface ContractRecord {
  readonly id: string;
  readonly integratorId: string;
  readonly applicationId: string | null;
  readonly company: string;
  readonly contactEmail: string;
  readonly status: ContractStatus;
  readonly startsAt: number;
  /** Planned end (exclusive); null = open-ended. */
  readonly endsAt: number | null;
  readonly terminatedAt: number | null;
  readonly terminationReason: string | null;
  readonly createdAt: number;
}

/** What the issuance path needs to know about an integrator's contracts at one instant. */
export interface ContractState {
  /** The contract in force, or null (phase 1). */
  readonly active: { readonly id: string; readonly startsAt: number } | null;
  /** When the latest contract that is no longer in force ended, or null. */
  readonly lastEndedAt: number | null;
}

/** The three notices of the spec: 24 h before a key expires, 7 days before a contract
 * expires, and when a contract is terminated; and an application's mails: received, approved,
 * rejected (notices/application_notices.ts). */
export type NoticeKind =
  | "key_expiring"
  | "contract_expiring"
  | "contract_terminated"
  | "application_received"
  | "application_approved"
  | "application_rejected";

/**
 * `pending` → claimed (`sending`, with a lease) → `sent`; a failed attempt goes back to
 * `pending` with a later `nextAttemptAt`, or to `failed` after the last attempt. `cancelled`:
 * no longer true when its turn came (key revoked, contract renewed…). `skipped`: no recipient.
 */
export type NoticeStatus = "pending" | "sending" | "sent" | "failed" | "cancelled" | "skipped";

/** A notice to enqueue; unique on (kind, subjectId, dueAt). */
export interface NoticeDraft {
  readonly id: string;
  readonly kind: NoticeKind;
  /** Key id, contract id or application id. */
  readonly subjectId: string;
  /** When it is due (epoch ms): expiry − 24 h, end − 7 days, or the termination time. */
  readonly dueAt: number;
  readonly integratorId: string;
  /** null → stored as `skipped`. */
  readonly recipient: string | null;
  readonly locale: Locale;
  /** Template parameters (dates as epoch ms). */
  readonly params: Readonly<Record<string, string | number | null>>;
  readonly createdAt: number;
}

/** A stored notice. */
export interface NoticeRecord extends NoticeDraft {
  readonly status: NoticeStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  /** Instance id holding the lease while `sending`. */
  readonly claimedBy: string | null;
  readonly leaseUntil: number | null;
  readonly sentAt: number | null;
  readonly lastError: string | null;
}

/** Options of {@link NoticeStore.claimNotices}. */
export interface ClaimNoticesOptions {
  readonly at: number;
  readonly owner: string;
  readonly leaseMs: number;
  readonly limit: number;
}

/** How a claimed notice ended (only the lease owner can record it). */
export type NoticeOutcome =
  | { readonly status: "sent"; readonly at: number }
  | { readonly status: "cancelled" | "failed"; readonly at: number; readonly error: string }
  | { readonly status: "pending"; readonly retryAt: number; readonly error: string };

/** Dimensions of a usage counter (docs/token-service.md § Access phases, phase 3 billing). */
export interface UsageKey {
  /** `YYYY-MM` (UTC). */
  readonly month: string;
  readonly integratorId: string;
  /** The contract in force when the token was issued; "" for none (phase 1, test keys). */
  readonly contractId: string;
  readonly keyId: string;
  readonly mode: KeyMode;
  readonly typeId: string;
  /** "" for operations without an EIK. A folder-wide token counts once for each EIK. */
  readonly eik: string;
}

/** A usage counter: tokens issued for one {@link UsageKey}. */
export interface UsageRow extends UsageKey {
  readonly count: number;
}

/**
 * A usage flush that added only part of its rows: `unwritten` were not added (the chunks before
 * them were), so a caller that keeps them for the next flush counts every token exactly once.
 */
export class BillingCountWriteError extends Error {
  /**
   * @param unwritten the rows not added
   * @param cause the database error
   */
  constructor(readonly unwritten: readonly UsageRow[], cause: unknown) {
    super(`${unwritten.length} usage counters not written`, { cause });
    this.name = "BillingCountWriteError";
  }
}

/** Filter of {@link BillingCountStore.listBillingCounts}. */
export interface UsageFilter {
  readonly month?: string;
  readonly integratorId?: string;
  readonly contractId?: string;
  readonly keyId?: string;
}
