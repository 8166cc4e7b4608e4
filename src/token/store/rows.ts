/**
 * Row → record mapping of the token store (same column names on SQLite and PostgreSQL;
 * PostgreSQL returns BIGINT as a string, hence `Number()` everywhere).
 * @module
 */
import type {
  ApplicationRecord,
  ContractRecord,
  ContractState,
  Locale,
  NoticeRecord,
  UsageRow,
} from "./records.ts";
import type { Row } from "./sql.ts";
import type { ApiKeyRecord, Integrator, KeyForIssue, SigningKeyRecord } from "./store.ts";

const num = (v: unknown): number | null => (v == null ? null : Number(v));
const str = (v: unknown): string | null => (v == null ? null : String(v));

/**
 * Map an `api_keys` row.
 * @param r the row
 * @returns the key record
 */
export function keyFromRow(r: Row): ApiKeyRecord {
  return {
    id: String(r.id),
    integratorId: String(r.integrator_id),
    mode: r.mode === "live" ? "live" : "test",
    secretHash: String(r.secret_hash),
    label: str(r.label),
    createdAt: Number(r.created_at),
    expiresAt: num(r.expires_at),
    revokedAt: num(r.revoked_at),
    allowedEiks: r.allowed_eiks == null ? null : JSON.parse(String(r.allowed_eiks)),
    allowedOrigins: r.allowed_origins == null ? null : JSON.parse(String(r.allowed_origins)),
    rotatedFrom: str(r.rotated_from),
    ...(r.integrator_name == null ? {} : { integratorName: String(r.integrator_name) }),
    ...(r.integrator_verified_name == null || r.integrator_verified_eik == null ? {} : {
      integratorVerified: {
        legalName: String(r.integrator_verified_name),
        eik: String(r.integrator_verified_eik),
      },
    }),
    ...(r.integrator_origins == null
      ? {}
      : { integratorOrigins: JSON.parse(String(r.integrator_origins)) }),
  };
}

/**
 * Map an `integrators` row.
 * @param r the row
 * @returns the integrator
 */
export function integratorFromRow(r: Row): Integrator {
  return {
    id: String(r.id),
    name: String(r.name),
    email: str(r.email),
    locale: (r.locale === "en" ? "en" : "bg") as Locale,
    allowedOrigins: JSON.parse(String(r.allowed_origins ?? "[]")),
    createdAt: Number(r.created_at),
    verified: r.verified_name == null || r.verified_eik == null ? null : {
      legalName: String(r.verified_name),
      eik: String(r.verified_eik),
      at: Number(r.verified_at),
      by: String(r.verified_by ?? ""),
    },
  };
}

/**
 * Map a `signing_keys` row.
 * @param r the row
 * @returns the signing key record
 */
export function signingKeyFromRow(r: Row): SigningKeyRecord {
  return {
    kid: String(r.kid),
    privateJwk: String(r.private_jwk),
    publicJwk: String(r.public_jwk),
    createdAt: Number(r.created_at),
    retiredAt: num(r.retired_at),
  };
}

/**
 * Map an `applications` row.
 * @param r the row
 * @returns the application
 */
export function applicationFromRow(r: Row): ApplicationRecord {
  return {
    id: String(r.id),
    integratorId: String(r.integrator_id),
    company: String(r.company),
    contactEmail: String(r.contact_email),
    intendedUse: String(r.intended_use),
    status: String(r.status) as ApplicationRecord["status"],
    submittedAt: Number(r.submitted_at),
    decidedAt: num(r.decided_at),
    decisionNote: str(r.decision_note),
    contractId: str(r.contract_id),
  };
}

/**
 * Map a `contracts` row.
 * @param r the row
 * @returns the contract
 */
export function contractFromRow(r: Row): ContractRecord {
  return {
    id: String(r.id),
    integratorId: String(r.integrator_id),
    applicationId: str(r.application_id),
    company: String(r.company ?? ""),
    contactEmail: String(r.contact_email ?? ""),
    status: String(r.status) as ContractRecord["status"],
    startsAt: Number(r.starts_at),
    endsAt: num(r.ends_at),
    terminatedAt: num(r.terminated_at),
    terminationReason: str(r.termination_reason),
    createdAt: Number(r.created_at),
  };
}

/**
 * Whether a contract is in force at `at`.
 * @param c status, start and end
 * @param at epoch ms
 * @returns true for an `active` contract with `startsAt <= at < endsAt`
 */
export function inForce(
  c: { status: string; startsAt: number; endsAt: number | null },
  at: number,
): boolean {
  return c.status === "active" && c.startsAt <= at && (c.endsAt === null || c.endsAt > at);
}

/**
 * The contract state from the integrator's latest-started contract (contracts never overlap:
 * approving a new one supersedes the one in force).
 * @param r the latest `contracts` row with `starts_at <= at`, or undefined
 * @param at epoch ms
 * @returns the state the issuance path needs
 */
export function contractStateFromRow(r: Row | undefined, at: number): ContractState {
  if (!r) return { active: null, lastEndedAt: null };
  const c = contractFromRow(r);
  if (inForce(c, at)) return { active: { id: c.id, startsAt: c.startsAt }, lastEndedAt: null };
  return { active: null, lastEndedAt: c.terminatedAt ?? c.endsAt };
}

/**
 * Map a row of the issuance lookup (`CredentialStore.findKeyForIssue`: the key, `integrator_name`
 * and the latest-started contract's columns prefixed `c_`).
 * @param r the row
 * @param at the instant of the lookup
 * @returns key and contract state
 */
export function keyForIssueFromRow(r: Row, at: number): KeyForIssue {
  const c = r.c_id == null ? undefined : {
    id: r.c_id,
    integrator_id: r.integrator_id,
    status: r.c_status,
    starts_at: r.c_starts_at,
    ends_at: r.c_ends_at,
    terminated_at: r.c_terminated_at,
    created_at: r.c_starts_at,
  };
  return { key: keyFromRow(r), contract: contractStateFromRow(c, at) };
}

/**
 * Map a `notices` row.
 * @param r the row
 * @returns the notice
 */
export function noticeFromRow(r: Row): NoticeRecord {
  return {
    id: String(r.id),
    kind: String(r.kind) as NoticeRecord["kind"],
    subjectId: String(r.subject_id),
    dueAt: Number(r.due_at),
    integratorId: String(r.integrator_id),
    recipient: str(r.recipient),
    locale: (r.locale === "en" ? "en" : "bg") as Locale,
    params: JSON.parse(String(r.params)),
    createdAt: Number(r.created_at),
    status: String(r.status) as NoticeRecord["status"],
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    claimedBy: str(r.claimed_by),
    leaseUntil: num(r.lease_until),
    sentAt: num(r.sent_at),
    lastError: str(r.last_error),
  };
}

/**
 * Map a `usage_monthly` row.
 * @param r the row
 * @returns the usage counter
 */
export function usageFromRow(r: Row): UsageRow {
  return {
    month: String(r.month),
    integratorId: String(r.integrator_id),
    contractId: String(r.contract_id),
    keyId: String(r.key_id),
    mode: r.mode === "live" ? "live" : "test",
    typeId: String(r.type_id),
    eik: String(r.eik),
    count: Number(r.count),
  };
}
