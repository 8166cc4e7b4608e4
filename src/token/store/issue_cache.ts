/**
 * The issuance cache (token-service.md): what `POST /api/v1/tokens/issue` reads — the key (with its
 * integrator's name), the integrator's contracts and the key's persistent EIK set — kept in each
 * instance, so a token in the steady state costs no database round trip.
 *
 * **Invalidation.** Every committed change of a key, an integrator or a contract adds 1 to
 * `issue_cache_version` (triggers of migration 4, from any process: another instance, the
 * admin CLI, plain SQL). The cache serves an entry only while its last version check *started*
 * less than {@link IssueCacheOptions.maxStaleMs} (750 ms) ago; after
 * {@link IssueCacheOptions.refreshMs} (250 ms) a request starts a check in the background, and
 * only a request arriving after a long idle waits for one. A check that sees a new version
 * drops every entry. So a revocation, a contract change or an allowed-list change committed at
 * T is seen by every instance for every request after T + 750 ms. On PostgreSQL each bump is
 * also pushed (`NOTIFY svc_issue_cache`, migration 6) to every instance listening, which drops
 * its entries as soon as the notification arrives, without waiting for its next check; the
 * checks stay as the bound when a notification is lost (a listening connection that dropped
 * reads the version again when it is back). Writes made through this
 * store drop the entries at once, and a load that overlapped a drop is not kept (generation
 * count), so an entry is never older than the last drop. Expiry needs nothing: the phase and
 * expiry are computed from the cached rows at each request's time (`keyPolicy`).
 *
 * **The EIK count stays exact.** The cached EIK set is a subset of the key's set in the
 * database, which only grows (EIKs are added by `claimEiks`, copied by a rotation, never
 * removed). A request whose EIKs are all in the cached set is therefore free for certain and
 * needs no round trip; any other EIK goes to `claimEiks`' transaction, which locks the key's
 * row and counts the set in the database — the only place that decides a 402. A stale cache
 * can cost a round trip, never a wrong answer.
 * @module
 */
import { ISSUE_CACHE_CHANNEL } from "./migrations.ts";
import type { ContractRecord } from "./records.ts";
import { contractFromRow, inForce } from "./rows.ts";
import { type Db, sql } from "./sql.ts";
import type { ApiKeyRecord, ContractState, KeyForIssue, TokenStore } from "./store.ts";

/** Options of {@link withIssueCache}. */
export interface IssueCacheOptions {
  /** Start a background version check once the last one is this old, ms (default 250). */
  readonly refreshMs?: number;
  /** Never serve from a version check older than this, ms (default 750): the bound on how long
   * another instance's change can go unseen. */
  readonly maxStaleMs?: number;
  /** Most keys kept (default 10,000; the oldest loaded go first). */
  readonly maxEntries?: number;
  /** Most loads (misses of distinct keys) in flight per instance; the others wait in line
   * (default 8): a burst of unknown or newly dropped keys queues here, in order, instead of
   * piling up in the connections' pipelines. */
  readonly maxLoads?: number;
}

/** Hit and miss counts of the cache (benchmarks, tests). */
export interface IssueCacheStats {
  hits: number;
  misses: number;
  /** EIK checks answered from the cached set. */
  eikHits: number;
  versionChecks: number;
  /** Version changes pushed by PostgreSQL notifications (this schema's). */
  notifications: number;
  /** Listening for them (PostgreSQL, after the first request). */
  listening: boolean;
  drops: number;
}

interface Entry {
  readonly key: ApiKeyRecord;
  /** Newest start first (then newest created), as the issuance query orders them. */
  readonly contracts: readonly ContractRecord[];
  readonly eiks: Set<string>;
}

const STATE_NONE: ContractState = { active: null, lastEndedAt: null };

/**
 * The contract state at `at` from an integrator's contracts (newest start first).
 * @param contracts the contracts
 * @param at epoch ms
 * @returns the state `findKeyForIssue` answers
 */
function stateAt(contracts: readonly ContractRecord[], at: number): ContractState {
  const c = contracts.find((x) => x.startsAt <= at);
  if (!c) return STATE_NONE;
  if (inForce(c, at)) return { active: { id: c.id, startsAt: c.startsAt }, lastEndedAt: null };
  return { active: null, lastEndedAt: c.terminatedAt ?? c.endsAt };
}

/** The store methods that change what issuance reads: a local call drops the cache at once. */
const WRITES = [
  "migrate",
  "updateIntegrator",
  "revokeKey",
  "setAllowedEiks",
  "setAllowedOrigins",
  "rotateKey",
  "approveApplication",
  "terminateContract",
  "expireContracts",
] as const satisfies readonly (keyof TokenStore)[];

/**
 * The cache's state and its steps: the keys by hash and by id, the loads in flight, the
 * database's version as last seen, and its checks and notifications.
 */
class IssueCache {
  readonly stats: IssueCacheStats = {
    hits: 0,
    misses: 0,
    eikHits: 0,
    versionChecks: 0,
    notifications: 0,
    listening: false,
    drops: 0,
  };
  readonly byHash = new Map<string, Entry>();
  readonly byId = new Map<string, Entry>();
  /** Loads in flight: concurrent misses of one key (after a drop) share one; `gen` is the
   * generation it started in (a drop forgets them). */
  readonly loading = new Map<string, { gen: number; p: Promise<Entry | null> }>();
  generation = 0;
  #version: number | null = null;
  /** performance.now() when the last completed check started. */
  #checkedAt = -Infinity;
  #checking: Promise<void> | null = null;
  /** The version's notifications (PostgreSQL), from the first request on; null = not yet. */
  listening: Promise<(() => Promise<void>) | null> | null = null;
  /** This store's schema: notifications of other schemas of the database are not ours. */
  #schema: string | null = null;
  #loadsRunning = 0;
  readonly #loadQueue: (() => void)[] = [];
  readonly #refreshMs: number;
  readonly #maxStaleMs: number;
  readonly maxEntries: number;
  readonly #maxLoads: number;

  constructor(readonly store: TokenStore, readonly db: Db, o: IssueCacheOptions) {
    this.#refreshMs = o.refreshMs ?? 250;
    this.#maxStaleMs = o.maxStaleMs ?? 750;
    this.maxEntries = o.maxEntries ?? 10_000;
    this.#maxLoads = o.maxLoads ?? 8;
  }

  drop(): void {
    this.generation++;
    this.stats.drops++;
    this.byHash.clear();
    this.byId.clear();
    this.loading.clear();
  }

  /**
   * A version read from the database (`onlyNewer` = false: any other value drops the cache) or
   * pushed by a notification (true: only a newer one, since a notification may arrive after a
   * check that already read past it).
   */
  #seen(v: number, onlyNewer: boolean): void {
    const version = this.#version;
    if (version === v || (onlyNewer && version !== null && v < version)) return;
    if (version !== null) this.drop();
    this.#version = v;
  }

  #check(): Promise<void> {
    this.#checking ??= (async () => {
      const started = performance.now();
      try {
        const r = await this.db.get(sql`SELECT v FROM issue_cache_version WHERE id = 1`);
        this.stats.versionChecks++;
        this.#seen(r === undefined ? -1 : Number(r.v), false);
        this.#checkedAt = Math.max(this.#checkedAt, started);
      } finally {
        this.#checking = null;
      }
    })();
    return this.#checking;
  }

  #listen(): void {
    // non-null: #listen is called only for a database that can listen (PostgreSQL)
    this.listening = this.db.listen!(ISSUE_CACHE_CHANNEL, (payload) => {
      const [from, v] = payload.split(" ");
      if (from !== this.#schema) return;
      this.stats.notifications++;
      this.#seen(Number(v), true);
    }, () => {
      // (Re)connected: what was notified meanwhile is lost, so read the version once more.
      // `listening` turns true once that read is done, so a caller that waits for it (tests)
      // does not count the set-up's own check as a later one.
      this.db.get(sql`SELECT current_schema() AS s`)
        .then((r) => {
          this.#schema = String(r?.s);
          return this.#check().catch(() => {}); // the checks go on regardless
        })
        .then(() => (this.stats.listening = true))
        .catch(() => {}); // no schema yet: the next (re)connect tries again
    }).catch(() => (this.listening = null)); // tried again at the next request
  }

  /** Make sure the entries are at most `maxStaleMs` behind the database. */
  async fresh(): Promise<void> {
    if (this.listening === null && this.db.listen) this.#listen();
    const age = performance.now() - this.#checkedAt;
    if (age > this.#maxStaleMs) await this.#check();
    else if (age > this.#refreshMs && this.#checking === null) {
      this.#check().catch(() => {}); // retried next time
    }
  }

  /** {@link IssueCache.read} with at most `maxLoads` at a time (first come, first served). */
  async load(secretHash: string): Promise<Entry | null> {
    if (this.#loadsRunning >= this.#maxLoads) {
      await new Promise<void>((r) => this.#loadQueue.push(r));
    } else this.#loadsRunning++;
    try {
      return await this.#read(secretHash);
    } finally {
      const next = this.#loadQueue.shift();
      if (next) next(); // the slot passes on
      else this.#loadsRunning--;
    }
  }

  async #read(secretHash: string): Promise<Entry | null> {
    // The key with its integrator's name and origins, as the store reads it by hash.
    const key = await this.store.findKeyByHash(secretHash);
    if (!key) return null;
    const contracts = key.mode === "live"
      ? (await this.db.all(sql`SELECT * FROM contracts WHERE integrator_id = ${key.integratorId}
          ORDER BY starts_at DESC, created_at DESC`)).map(contractFromRow)
      : [];
    const eiks = key.mode === "live" ? await this.store.keyEiks(key.id) : [];
    return { key, contracts, eiks: new Set(eiks) };
  }

  /** The entry of a key: cached, or loaded (one load per key at a time) and kept unless a drop
   * overlapped the load. */
  async entry(secretHash: string): Promise<Entry | null> {
    const e = this.byHash.get(secretHash);
    if (e) {
      this.stats.hits++;
      return e;
    }
    this.stats.misses++;
    let f = this.loading.get(secretHash);
    if (!f) {
      const mine = {
        gen: this.generation,
        p: this.load(secretHash).finally(() => {
          if (this.loading.get(secretHash) === mine) this.loading.delete(secretHash);
        }),
      };
      this.loading.set(secretHash, mine);
      f = mine;
    }
    const loaded = await f.p;
    if (!loaded) return null;
    // A load that overlapped a drop may have read rows older than the drop: not kept.
    if (f.gen === this.generation && !this.byHash.has(secretHash)) this.#keep(secretHash, loaded);
    return loaded;
  }

  #keep(secretHash: string, e: Entry): void {
    if (this.byHash.size >= this.maxEntries) {
      // non-null: the map is full (size >= maxEntries > 0), so it has a first key
      const oldest = this.byHash.keys().next().value!;
      // non-null: byHash and byId hold the same entries
      this.byId.delete(this.byHash.get(oldest)!.key.id);
      this.byHash.delete(oldest);
    }
    this.byHash.set(secretHash, e);
    this.byId.set(e.key.id, e);
  }
}

/**
 * Put the issuance cache in front of a store.
 * @param store the store (its writes and reads)
 * @param db the database under it (the cache's own queries)
 * @param o timings and size
 * @returns the same store with cached `findKeyForIssue` and `claimEiks`, and `issueCacheStats()`
 */
export function withIssueCache<S extends TokenStore>(
  store: S,
  db: Db,
  o: IssueCacheOptions = {},
): S & { issueCacheStats(): IssueCacheStats } {
  const c = new IssueCache(store, db, o);
  const cached: Partial<TokenStore> = {
    async close() {
      const unlisten = await c.listening;
      await unlisten?.().catch(() => {});
      await store.close();
    },
    async findKeyForIssue(secretHash: string, at: number): Promise<KeyForIssue | null> {
      await c.fresh();
      const e = await c.entry(secretHash);
      return e ? { key: e.key, contract: stateAt(e.contracts, at) } : null;
    },
    async claimEiks(keyId, eiks, limit, at) {
      const e = c.byId.get(keyId);
      if (e && eiks.every((x) => e.eiks.has(x))) {
        c.stats.eikHits++;
        return { ok: true };
      }
      const res = await store.claimEiks(keyId, eiks, limit, at);
      // Now in the database's set, which never shrinks.
      if (res.ok && e) { for (const x of eiks) e.eiks.add(x); }
      return res;
    },
  };
  for (const name of WRITES) {
    const inner = store[name] as (...a: unknown[]) => Promise<unknown>;
    (cached as Record<string, unknown>)[name] = async (...a: unknown[]) => {
      let out: unknown = null;
      try {
        out = await inner.apply(store, a);
        return out;
      } finally {
        // The scheduler's tick expires contracts on every instance each minute: drop only
        // when one changed (or the call failed).
        if (!(Array.isArray(out) && out.length === 0)) c.drop();
      }
    };
  }
  return { ...store, ...cached, issueCacheStats: () => ({ ...c.stats }) };
}
