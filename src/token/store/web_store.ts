/**
 * The store's side of the integrators' profile and the administrators' desk
 * (docs/token-service.md § The profile): the people who sign in, one-time e-mail links,
 * server-side sessions (shared by every instance on one database, so a sign-out ends a session
 * everywhere), the request log of token requests and the tokens issued per day. Only SHA-256
 * hashes of link codes and session ids are stored. Times are epoch milliseconds.
 * @module
 */
/** What a person of an integrator may do: everything (`owner`), keys but not the team or the
 * contract (`developer`), or only look (`readonly`); docs/token-service.md § Team and roles. */
export type MemberRole = "owner" | "developer" | "readonly";

/** Who a person is on the web pages: an integrator's person, or an administrator. */
export type WebRole = "integrator" | "admin";

/** A person who signs in (no password: e-mail links and passkeys). */
export interface WebUser {
  readonly id: string;
  readonly role: WebRole;
  /** Lower-case e-mail address, unique per role. */
  readonly email: string;
  /** The integrator this person acts for (role `integrator`); null for administrators. */
  readonly integratorId: string | null;
  readonly createdAt: number;
  /** The administrator who invited this one, or null. */
  readonly createdBy: string | null;
  /** What an integrator's person may do (team_store.ts; `owner` when not given). */
  readonly memberRole?: MemberRole;
}

/** What a one-time link is for. */
export type LinkPurpose =
  | "signup"
  | "signin"
  | "admin-invite"
  | "admin-signin"
  | "passkey-register"
  | "passkey-signin"
  | "member-invite"
  | "passkey-remove";

/** A one-time link (its code is known only to the mail's reader; the store keeps its hash). */
export interface WebLink {
  readonly codeHash: string;
  readonly purpose: LinkPurpose;
  readonly email: string;
  /** What the link carries (sign-up: company name and locale). */
  readonly payload: Readonly<Record<string, string>>;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}

/** A signed-in session (its id is only in the browser's cookie; the store keeps its hash). */
export interface WebSession {
  readonly idHash: string;
  readonly userId: string;
  /** The token every change must carry. */
  readonly csrf: string;
  readonly createdAt: number;
  readonly lastSeen: number;
  /** The device it was opened on (browser and system, from the User-Agent), "" unknown. */
  readonly device?: string;
}

/** A person's passkey (WebAuthn credential): its public key, never a secret. */
export interface PasskeyRecord {
  /** The credential id, base64url. */
  readonly credentialId: string;
  readonly userId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The authenticator's signature counter (0 for passkeys that keep none). */
  readonly counter: number;
  readonly transports: readonly string[];
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

/** Who made a change. */
export type AuditActorKind = "integrator" | "admin" | "admin-api" | "cli";

/** One change, as the audit log keeps it. */
export interface AuditEntry {
  readonly at: number;
  readonly actorKind: AuditActorKind;
  /** The person's e-mail, `SVC_ADMIN_TOKEN` for the admin API, or the command (`cli`). */
  readonly actor: string;
  /** The integrator the change concerns, when one does. */
  readonly integratorId: string | null;
  /** What was done, e.g. `key.revoke`, `application.approve`, `POST /admin/v1/keys`. */
  readonly action: string;
  /** What it was done to (an id or a path). */
  readonly target: string;
  /** Details (never a secret), as JSON text. */
  readonly detail: string;
  readonly requestId: string;
}

/** One token request of a known key (never the secret, never the token). */
export interface RequestLogEntry {
  readonly at: number;
  readonly integratorId: string;
  readonly keyId: string;
  /** The typeId asked for ("" when the body had none). */
  readonly typeId: string;
  /** The EIK(s) asked for, comma-separated (at most 20, then "…+N"). */
  readonly eiks: string;
  readonly status: number;
  /** The answer's `errorCode`, null for 200. */
  readonly errorCode: string | null;
  readonly requestId: string;
  /** The page origin the body named (`origin`), null when none (or in a body of format 1). */
  readonly origin?: string | null;
  /** From the key's lookup to the answer, ms (µs precision); null when not recorded (a body of
   * format 1, or over 71 minutes). */
  readonly latencyMs?: number | null;
}

/** Request log entries of one API key within at most a minute, as stored: one row of
 * `request_log_blocks` (request_log_blocks.ts). */
export interface LogBlock {
  readonly integratorId: string;
  readonly keyId: string;
  /** The oldest and the newest entry's time, epoch ms. */
  readonly firstAt: number;
  readonly lastAt: number;
  /** Entries it holds, and those with a status ≥ 400. */
  readonly entries: number;
  readonly errors: number;
  /** The entries as columns, in the order added (the stored body is packed from them,
   * request_log_block_body.ts `blockBody`): times (epoch ms), statuses, the typeIds, EIKs and error
   * codes as indexes into `strings` (each text once a block; -1: no error code), and the request
   * ids' UTF-8 one after another, each ending at its `requestIdEnds` (bytes). */
  readonly at: Float64Array;
  readonly status: Int32Array;
  readonly typeId: Int32Array;
  readonly eiks: Int32Array;
  readonly errorCode: Int32Array;
  readonly requestIds: Uint8Array;
  readonly requestIdEnds: Uint32Array;
  readonly strings: readonly string[];
  /** The page origins as indexes into `strings` (-1: none), and the latencies in µs
   * (0xffffffff: not recorded). */
  readonly origin: Int32Array;
  readonly latencyUs: Uint32Array;
}

/** Where a running recorder writes request log blocks (request_log_writer.ts). */
export interface RequestLogWriter {
  /** Whether the rows are written by a worker thread (false: in the main thread). */
  offThread(): boolean;
  /**
   * Append blocks and add daily counts in one transaction.
   * @returns once committed
   * @throws the database's error when nothing was written (the caller keeps the blocks)
   */
  write(blocks: readonly LogBlock[], daily: readonly DailyUsageRow[]): Promise<void>;
  /** Finish: the worker's connection is closed and its thread ended. @throws nothing */
  close(): Promise<void>;
}

/** Which request log rows to read (always one integrator's). */
export interface RequestLogFilter {
  readonly integratorId: string;
  /** Rows at or after (epoch ms). */
  readonly since: number;
  /** Rows before (epoch ms); absent = up to now. */
  readonly until?: number;
  readonly keyId?: string;
  /** Rows of these keys only (e.g. the integrator's test keys); absent = every key. */
  readonly keyIds?: readonly string[];
  /** One HTTP status, "errors" for every status ≥ 400, "ok" for every status below 400. */
  readonly status?: number | "errors" | "ok";
  /** The row of this request id (the `X-Request-Id` / `requestId` of its answer) only. */
  readonly requestId?: string;
  /** Newest first, at most this many. */
  readonly limit: number;
}

/** Tokens issued on one UTC day by one key for one typeId. */
export interface DailyUsageRow {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string;
  readonly integratorId: string;
  readonly keyId: string;
  readonly typeId: string;
  readonly count: number;
}

/** People, links, sessions, the request log and daily usage. */
export interface WebStore {
  /** @returns false when a person of this role and e-mail exists */
  createWebUser(u: WebUser): Promise<boolean>;
  /** @returns the person of this role with this (lower-case) e-mail, or null */
  findWebUser(role: WebRole, email: string): Promise<WebUser | null>;
  /** @returns people of one role, oldest first */
  listWebUsers(role: WebRole): Promise<WebUser[]>;
  /** Insert a one-time link. */
  createLink(l: WebLink): Promise<void>;
  /** Mark the link used, once: @returns it, or null when unknown, used or expired at `at` */
  takeLink(codeHash: string, at: number): Promise<WebLink | null>;
  /** Insert a session. */
  createSession(s: WebSession): Promise<void>;
  /** @returns the session and its person, or null */
  getSession(idHash: string): Promise<{ session: WebSession; user: WebUser } | null>;
  /** Record a request at `at` (the idle time restarts). */
  touchSession(idHash: string, at: number): Promise<void>;
  /** End a session everywhere. */
  deleteSession(idHash: string): Promise<void>;
  /** Delete sessions idle since before `idleBefore`, and links and the pages' rate-limit windows
   * (`w:…`) that ended before `expiredBefore`. */
  pruneWeb(idleBefore: number, expiredBefore: number): Promise<number>;
  /** Insert a passkey. @returns false when the credential id is registered already */
  addPasskey(p: PasskeyRecord): Promise<boolean>;
  /** @returns the passkey with this credential id and its person, or null */
  findPasskey(credentialId: string): Promise<{ passkey: PasskeyRecord; user: WebUser } | null>;
  /** @returns a person's passkeys, oldest first */
  listPasskeys(userId: string): Promise<PasskeyRecord[]>;
  /** Record a sign-in with a passkey (its new counter). */
  usePasskey(credentialId: string, counter: number, at: number): Promise<void>;
  /** Append to the audit log. */
  addAudit(e: AuditEntry): Promise<void>;
  /** @returns audit entries, newest first, optionally of one integrator */
  listAudit(f: { integratorId?: string | undefined; limit: number }): Promise<AuditEntry[]>;
  /** Append request log blocks (request_log_blocks.ts) and add daily usage counts, in one
   * transaction. */
  addRequestLog(
    blocks: readonly LogBlock[],
    daily: readonly DailyUsageRow[],
  ): Promise<void>;
  /**
   * A writer for a recorder that runs for a while (the service's periodic flush): on a SQLite
   * file a worker thread with its own connection, otherwise {@link addRequestLog}
   * (request_log_writer.ts).
   * @param onFallback told when a worker could not be used and the main thread writes instead
   * @returns the writer (close it when done)
   */
  requestLogWriter(onFallback: (e: Error) => void): RequestLogWriter;
  /** @returns one integrator's entries, newest first (at most `limit`) */
  listRequestLog(f: RequestLogFilter): Promise<RequestLogEntry[]>;
  /**
   * Delete entries older than `before` (epoch ms), then the oldest blocks beyond `maxEntries`
   * entries, and daily usage of days before `dayBefore` (`YYYY-MM-DD`).
   * @returns how many log entries were deleted
   */
  pruneRequestLog(before: number, maxEntries: number, dayBefore: string): Promise<number>;
  /** @returns tokens per integrator from `fromDay` on (one grouped query), most first */
  dailyUsageTotals(fromDay: string): Promise<{ integratorId: string; tokens: number }[]>;
  /** @returns one integrator's daily usage from `fromDay` on, by day */
  listDailyUsage(integratorId: string, fromDay: string): Promise<DailyUsageRow[]>;
}
