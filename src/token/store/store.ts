/**
 * The token service's storage interface, implemented once (`sql_store.ts`) for SQLite
 * (`node:sqlite`, the embedded default) and PostgreSQL (`npm:postgres`), chosen by
 * `openTokenStore` (`open_store.ts`). Keys are stored only as a SHA-256 hash of the secret;
 * the secret is shown once at creation. Every multi-row change (EIK claim, approval,
 * termination, notice claim, usage flush) is atomic, so several service instances can share one
 * database (docs/token-service.md § Access phases). Times are epoch milliseconds.
 * @module
 */
import type {
  ApplicationRecord,
  ApplicationStatus,
  ClaimNoticesOptions,
  ContractRecord,
  ContractState,
  Locale,
  NoticeDraft,
  NoticeOutcome,
  NoticeRecord,
  UsageFilter,
  UsageRow,
} from "./records.ts";
import type { WebStore, WebUser } from "./web_store.ts";
import type { TeamStore } from "./team_store.ts";

export type * from "./records.ts";
export type * from "./web_store.ts";
export type * from "./team_store.ts";

import type { KeyMode } from "../../contract/mod.ts";
export type { KeyMode };

/** An integrator (the company that holds keys). */
export interface Integrator {
  readonly id: string;
  readonly name: string;
  /** Where notices go; null = no notices. */
  readonly email: string | null;
  /** Language of the notices (default "bg"). */
  readonly locale?: Locale;
  /** Origins of the integrator's web pages allowed to call the agent (CORS). */
  readonly allowedOrigins: readonly string[];
  readonly createdAt: number;
  /** The identity an administrator verified (docs/token-service.md § Who asks); absent or
   * null = not verified (the name is self-declared). */
  readonly verified?: VerifiedIdentity | null;
}

/** An integrator's identity as an administrator verified it (docs/token-service.md § Who asks). */
export interface VerifiedIdentity {
  /** The legal name, as in the commercial register. */
  readonly legalName: string;
  /** The EIK (9 or 13 digits, check digits right). */
  readonly eik: string;
  /** When (epoch ms). */
  readonly at: number;
  /** Who: the administrator's e-mail, or "admin-api". */
  readonly by: string;
}

/** Fields an administrator may change on an integrator. */
export interface IntegratorPatch {
  readonly name?: string | undefined;
  readonly email?: string | null | undefined;
  readonly locale?: Locale | undefined;
  readonly allowedOrigins?: readonly string[] | undefined;
  /** Record a verified identity (docs/token-service.md § Who asks); null = verified no more. */
  readonly verified?: VerifiedIdentity | null;
}

/** A stored API key (never the secret). Times are epoch milliseconds. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly integratorId: string;
  readonly mode: KeyMode;
  readonly secretHash: string;
  readonly label: string | null;
  readonly createdAt: number;
  /** Pre-contract expiry; null = none (created or lifted under a contract). */
  readonly expiresAt: number | null;
  /** May lie in the future: the end of a rotation's grace period. */
  readonly revokedAt: number | null;
  /** null = any EIK; otherwise the allowed list (only an administrator changes it). */
  readonly allowedEiks: readonly string[] | null;
  /** Page origins bound tokens may name; null/absent = the integrator's origins. */
  readonly allowedOrigins?: readonly string[] | null;
  /** The key this one replaced by rotation. */
  readonly rotatedFrom?: string | null;
  /** The integrator's name, filled by `findKeyByHash` (same query) for the `intgName` claim. */
  readonly integratorName?: string;
  /** The integrator's verified legal name and EIK (same query), for the `intgVerified` claim;
   * absent when not verified. */
  readonly integratorVerified?: { readonly legalName: string; readonly eik: string };
  /** The integrator's page origins as stored, filled with the name (the issuance cache keeps
   * them, so a change reaches every instance within a second, § Issuance cache). */
  readonly integratorOrigins?: readonly string[];
}

/** Outcome of {@link CredentialStore.findKeyForIssue}. */
export interface KeyForIssue {
  readonly key: ApiKeyRecord;
  readonly contract: ContractState;
}

/** A persisted Ed25519 signing key (JWK JSON). */
export interface SigningKeyRecord {
  readonly kid: string;
  readonly privateJwk: string;
  readonly publicJwk: string;
  readonly createdAt: number;
  /** Set when a newer key took over; still published until `retiredAt + token lifetime`. */
  readonly retiredAt: number | null;
}

/** Outcome of {@link TokenStore.claimEiks}. */
export type ClaimResult = { ok: true } | { ok: false; used: number; limit: number };

/** Failure reasons of the state-changing contract operations. */
export type ContractFailure = "not_found" | "not_pending" | "not_in_force" | "pending_exists";

/** Outcome of {@link ContractStore.approveApplication}. */
export type ApproveResult =
  | { ok: true; contract: ContractRecord; supersededId: string | null; liftedKeys: number }
  | { ok: false; reason: ContractFailure };

/** Outcome of {@link ContractStore.terminateContract}. */
export type TerminateResult =
  | { ok: true; contract: ContractRecord; fallenBackKeys: number }
  | { ok: false; reason: ContractFailure };

/** The credentials: integrators, their API keys (hash only) and each key's EIK set, and the
 * service's own Ed25519 signing keys (so not only API keys: `CredentialStore`). */
export interface CredentialStore {
  /** Apply pending migrations (idempotent; safe when several instances start at once). */
  migrate(): Promise<void>;
  /** Insert an integrator. @throws the driver's unique violation when the id exists */
  createIntegrator(i: Integrator): Promise<void>;
  /**
   * In one transaction: the integrator and its first person. @returns false (nothing written)
   * when a person of role `integrator` with this e-mail exists
   */
  createIntegratorWithUser(i: Integrator, u: WebUser): Promise<boolean>;
  /** @returns the integrator, or null when unknown */
  getIntegrator(id: string): Promise<Integrator | null>;
  /** @returns all integrators, oldest first */
  listIntegrators(): Promise<Integrator[]>;
  /** @returns the updated integrator, or null when unknown */
  updateIntegrator(id: string, patch: IntegratorPatch): Promise<Integrator | null>;
  /** Insert a key (hash only). @throws the driver's foreign-key error for an unknown integrator */
  createKey(k: ApiKeyRecord): Promise<void>;
  /** @returns the key with this secret hash (and its integrator's name), or null */
  findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null>;
  /**
   * The issuance path's lookup: the key (with its integrator's name) and the integrator's
   * contract state at `at`; one query, or none from the issuance cache (`issue_cache.ts`).
   * @returns null when no key has this hash
   */
  findKeyForIssue(secretHash: string, at: number): Promise<KeyForIssue | null>;
  /** @returns the key, or null when unknown */
  getKey(id: string): Promise<ApiKeyRecord | null>;
  /** @returns keys, oldest first, optionally of one integrator */
  listKeys(filter?: { integratorId?: string }): Promise<ApiKeyRecord[]>;
  /** Revoke at `at` (also cuts short a rotation's grace), in one statement: a revocation costs
   * one round trip before it applies (token-service.md). @returns the revoked key, or null when
   * unknown or already revoked by then */
  revokeKey(id: string, at: number): Promise<ApiKeyRecord | null>;
  /** @returns false when the key is unknown */
  setAllowedEiks(id: string, allowedEiks: readonly string[] | null): Promise<boolean>;
  /** Set a key's own page origins (null = use the integrator's). */
  setAllowedOrigins(id: string, origins: readonly string[] | null): Promise<boolean>;
  /**
   * Atomically store `fresh` (copying the old key's EIK set) and revoke the old key at
   * `oldRevokedAt`. @returns false when the old key is unknown or already revoked
   */
  rotateKey(oldId: string, fresh: ApiKeyRecord, oldRevokedAt: number, at: number): Promise<boolean>;
  /**
   * Atomically add EIKs to a key's persistent set unless the EIKs of all live keys of its
   * integrator together (revoked and expired ones included) would exceed `limit` distinct EIKs
   * (live keys without a contract: 3; docs/token-service.md § Access phases). EIKs any of them
   * already covers are free.
   */
  claimEiks(
    keyId: string,
    eiks: readonly string[],
    limit: number | null,
    at: number,
  ): Promise<ClaimResult>;
  /** EIKs a key has used, in first-use order. */
  keyEiks(keyId: string): Promise<string[]>;
  /** @returns every signing key, oldest first */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /** Insert a signing key unless one already exists that is not retired (first start race). */
  saveSigningKey(k: SigningKeyRecord): Promise<void>;
  /** Mark the current signing key retired at `at`. */
  retireSigningKey(kid: string, at: number): Promise<void>;
  /**
   * Replace a signing key's stored private JWK (re-encryption), only if it still holds `from`.
   * @returns true when the row was changed
   */
  replaceSigningKeyPrivate(kid: string, from: string, to: string): Promise<boolean>;
  /** Close the connection or pool. */
  close(): Promise<void>;
}

/** Applications and contracts (phases 2 and 3). */
export interface ContractStore {
  /** Whether the integrator has a contract in force at `at` (phase 3). */
  hasActiveContract(integratorId: string, at: number): Promise<boolean>;
  /** The contract in force at `at` and the end of the previous one (one indexed query). */
  contractState(integratorId: string, at: number): Promise<ContractState>;
  /** @returns `pending_exists` when the integrator already has a pending application */
  createApplication(
    a: ApplicationRecord,
  ): Promise<{ ok: true } | { ok: false; reason: ContractFailure }>;
  /** @returns the application, or null when unknown */
  getApplication(id: string): Promise<ApplicationRecord | null>;
  /** @returns applications, oldest first, optionally filtered */
  listApplications(
    filter?: { status?: ApplicationStatus; integratorId?: string },
  ): Promise<ApplicationRecord[]>;
  /**
   * In one transaction: mark the pending application approved, supersede a contract in force,
   * insert `contract`, lift the expiry of the integrator's live keys still valid at `at`
   * (expires_at → null), and set the integrator's e-mail when it has none.
   */
  approveApplication(
    applicationId: string,
    contract: ContractRecord,
    at: number,
    note: string | null,
  ): Promise<ApproveResult>;
  /** Mark a pending application rejected. @returns `not_found` or `not_pending` on failure */
  rejectApplication(
    applicationId: string,
    at: number,
    note: string | null,
  ): Promise<{ ok: true; application: ApplicationRecord } | { ok: false; reason: ContractFailure }>;
  /** @returns the contract, or null when unknown */
  getContract(id: string): Promise<ContractRecord | null>;
  /** @returns contracts by start, optionally of one integrator */
  listContracts(filter?: { integratorId?: string }): Promise<ContractRecord[]>;
  /**
   * In one transaction: end a contract in force at `at`, give the integrator's live keys
   * without expiry the pre-contract rules again (expiry `at + fallbackMs`), and enqueue
   * `notice` (the termination notice).
   */
  terminateContract(
    id: string,
    at: number,
    reason: string | null,
    fallbackMs: number,
    notice: (c: ContractRecord) => NoticeDraft,
  ): Promise<TerminateResult>;
  /**
   * Mark contracts whose end date passed as `expired`, each in one transaction with the
   * fallback of its integrator's live keys (expiry `endsAt + fallbackMs`). Idempotent.
   * @returns the contracts that changed now
   */
  expireContracts(at: number, fallbackMs: number): Promise<ContractRecord[]>;
  /** Live and test keys whose expiry lies in (from, to], not revoked. */
  keysExpiringWithin(from: number, to: number): Promise<ApiKeyRecord[]>;
  /** Active contracts whose end lies in (from, to]. */
  contractsEndingWithin(from: number, to: number): Promise<ContractRecord[]>;
}

/** Notices claimed in the database, so each is sent once across instances and restarts. */
export interface NoticeStore {
  /** Insert unless (kind, subjectId, dueAt) exists. @returns true when inserted */
  enqueueNotice(n: NoticeDraft): Promise<boolean>;
  /** Atomically lease due notices (pending and due, or `sending` with a lapsed lease). */
  claimNotices(o: ClaimNoticesOptions): Promise<NoticeRecord[]>;
  /** Record the outcome; only the current lease owner can. @returns false when the lease was
   * lost */
  completeNotice(id: string, owner: string, outcome: NoticeOutcome): Promise<boolean>;
  /** @returns notices by due time, optionally filtered */
  listNotices(
    filter?: { kind?: string; subjectId?: string; integratorId?: string },
  ): Promise<NoticeRecord[]>;
}

/** Monthly usage counters. */
export interface BillingCountStore {
  /**
   * Add the counts (UPSERT in chunks of 500 rows, each chunk atomic on its own).
   * @throws BillingCountWriteError naming the rows not added when a chunk fails (the earlier chunks
   *   stay added)
   */
  addBillingCounts(rows: readonly UsageRow[]): Promise<void>;
  /** @returns counters, sorted by month, integrator, contract, key, typeId, EIK */
  listBillingCounts(filter?: UsageFilter): Promise<UsageRow[]>;
}

/** The schema's migration state (`GET /ready`). */
export interface SchemaStatus {
  /** The highest applied migration (0 = none). */
  readonly applied: number;
  /** This build's migrations not applied yet (empty = current). */
  readonly pending: readonly number[];
}

/** Readiness: the schema's state (docs/token-service.md § Operations). */
export interface ReadinessStore {
  /** @returns the applied and the expected schema version (one query: also a liveness probe) */
  schemaStatus(): Promise<SchemaStatus>;
}

/** The rate limits' shared counters, fixed windows per bucket (docs/token-service.md § Rate
 * limits). */
export interface RateWindowStore {
  /**
   * Add hits to each bucket's fixed window starting at `windowStart` (one atomic upsert; a
   * bucket named twice gets both counts).
   * @param buckets the buckets, e.g. `k:<keyId>`, `i:<integratorId>`
   * @param windowStart the window's start, epoch ms
   * @param counts hits to add per bucket, in the order of `buckets` (default 1 each)
   * @returns the hits of each bucket's window after the addition, in the order given
   */
  hitRateWindows(
    buckets: readonly string[],
    windowStart: number,
    counts?: readonly number[],
  ): Promise<number[]>;
  /** Delete the windows that started before `before`. @returns how many */
  pruneRateWindows(before: number): Promise<number>;
}

/** The one storage interface of the token service. */
export interface TokenStore
  extends
    CredentialStore,
    ContractStore,
    NoticeStore,
    BillingCountStore,
    ReadinessStore,
    RateWindowStore,
    WebStore,
    TeamStore {}
