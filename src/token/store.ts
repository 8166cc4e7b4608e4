/**
 * The token service's storage interface. Two implementations: SQLite (`node:sqlite`, the
 * embedded default, `sqlite_store.ts`) and PostgreSQL (`npm:postgres`, `postgres_store.ts`).
 * Keys are stored only as a SHA-256 hash of the secret; the secret is shown once at creation.
 * @module
 */

/** "test" keys (`svc_test_`) reach the test portal only; "live" keys (`svc_live_`) file. */
export type KeyMode = "test" | "live";

/** An integrator (the company that holds keys). */
export interface Integrator {
  readonly id: string;
  readonly name: string;
  readonly email: string | null;
  /** Origins of the integrator's web pages allowed to call the agent (CORS). */
  readonly allowedOrigins: readonly string[];
  readonly createdAt: number;
}

/** A stored API key (never the secret). Times are epoch milliseconds. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly integratorId: string;
  readonly mode: KeyMode;
  readonly secretHash: string;
  readonly label: string | null;
  readonly createdAt: number;
  /** null = no expiry (phase 3). */
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  /** null = any EIK; otherwise the allowed list (only an administrator changes it). */
  readonly allowedEiks: readonly string[] | null;
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

/** Storage of integrators, keys, the per-key EIK set and signing keys. All methods are async so
 * the PostgreSQL implementation fits the same interface. */
export interface TokenStore {
  /** Apply pending migrations (idempotent). */
  migrate(): Promise<void>;
  createIntegrator(i: Integrator): Promise<void>;
  getIntegrator(id: string): Promise<Integrator | null>;
  createKey(k: ApiKeyRecord): Promise<void>;
  findKeyByHash(secretHash: string): Promise<ApiKeyRecord | null>;
  getKey(id: string): Promise<ApiKeyRecord | null>;
  revokeKey(id: string, at: number): Promise<boolean>;
  /**
   * Atomically add EIKs to a key's persistent set unless the set would exceed `limit`
   * distinct EIKs (a live key without a contract: 3). EIKs already in the set are free.
   */
  claimEiks(keyId: string, eiks: readonly string[], limit: number | null, at: number): Promise<ClaimResult>;
  /** EIKs a key has used, in first-use order. */
  keyEiks(keyId: string): Promise<string[]>;
  /** Whether the integrator has a contract in force at `at` (phase 3). */
  hasActiveContract(integratorId: string, at: number): Promise<boolean>;
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /** Insert a signing key unless one already exists that is not retired (first start race). */
  saveSigningKey(k: SigningKeyRecord): Promise<void>;
  retireSigningKey(kid: string, at: number): Promise<void>;
  close(): Promise<void>;
}
