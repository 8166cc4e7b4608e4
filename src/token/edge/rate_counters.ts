/**
 * Where the token service's rate limits count their hits (rate_limit.ts; docs/token-service.md §
 * Rate limits), in fixed windows: in the process for one instance (SQLite,
 * {@link memoryRateCounter}), in shared rows of `rate_limit_windows` for several instances on one
 * PostgreSQL database without a database round trip per request ({@link leasedRateCounter}), or
 * in those rows one round trip a hit, exact across instances, for the pages' rare attempts
 * (sign-ins, link mails, invitations: {@link storeRateCounter}).
 *
 * **Leases.** An instance does not write each hit. It takes a *lease* of a budget's window — a
 * number of hits added to the shared row in one atomic upsert — and spends it in memory, one hit
 * per request; only when its lease is spent does it take the next one. A lease is granted only
 * for what the row had left below the limit when it was added (`limit − hits before`, at most
 * what was asked), so the hits granted to all instances together never pass the budget. Leases
 * start at 1 hit in every window and double with each new one (requests waiting for a lease
 * raise it to their number), so a busy key costs a dozen round trips per window whatever its
 * rate, and what an instance holds unspent is never more than it has already spent plus one.
 * When the row is at the limit, the instance refuses locally until the window ends.
 *
 * The price: requests can be refused while another instance still holds unspent hits of the
 * same window (at most that instance's last lease); none is ever admitted over the budget. This
 * is the "cluster, synchronised in the background" policy of API gateways (Kong's
 * `sync_rate`), with a lease instead of a delayed write so that no instance can overshoot.
 * @module
 */
import type { TokenStore } from "../store/mod.ts";

/** One budget of a request: its counter's name and its limit per window. */
export interface RateBudget {
  /** e.g. `k:<keyId>`, `i:<integratorId>` */
  readonly bucket: string;
  /** Requests per window (> 0). */
  readonly limit: number;
}

/** Counts hits of fixed windows. */
export interface RateCounter {
  /**
   * Count one hit in each budget's window.
   * @param budgets the request's budgets
   * @param windowStart the window's start, epoch ms
   * @param windowMs the window's length, ms
   * @returns each budget's hits in the window after this one, in the order given (over its
   *   `limit` = refused)
   * @throws the store's errors (a database that went away: DATABASE_UNAVAILABLE)
   */
  hit(budgets: readonly RateBudget[], windowStart: number, windowMs: number): Promise<number[]>;
}

/**
 * Counters in this process (SQLite: one instance). Windows of the past are dropped when a new
 * window begins.
 * @returns the counter
 */
export function memoryRateCounter(): RateCounter {
  let start = -1;
  let hits = new Map<string, number>();
  return {
    hit(budgets, windowStart) {
      if (windowStart !== start) {
        start = windowStart;
        hits = new Map();
      }
      return Promise.resolve(budgets.map(({ bucket }) => {
        const n = (hits.get(bucket) ?? 0) + 1;
        hits.set(bucket, n);
        return n;
      }));
    },
  };
}

/**
 * Counters in the store's shared rows, one round trip a hit (every instance sees every hit at
 * once): for the pages' attempts (a sign-in, a link mail), which are few and must hold exactly
 * across instances and restarts.
 * @param store the token store (`hitRateWindows`)
 * @returns the counter
 */
export function storeRateCounter(store: Pick<TokenStore, "hitRateWindows">): RateCounter {
  return {
    hit: (budgets, windowStart) => store.hitRateWindows(budgets.map((b) => b.bucket), windowStart),
  };
}

/** This instance's lease of one budget in the current window. */
interface Lease {
  /** The shared row's hits after this instance's last lease (every instance's leases). */
  known: number;
  /** Hits leased to this instance and not spent yet. */
  left: number;
  /** The next lease's size (doubles with each lease). */
  size: number;
  /** Requests of this instance that need a hit of this budget and have none yet. */
  waiting: number;
  /** The lease in flight; the requests that need this budget wait for it. */
  pending: Promise<void> | null;
}

/**
 * The budget's hits as this instance knows them: the shared row (every instance's leases; past
 * the limit only by leases not granted) less what this instance holds unspent.
 */
const used = (l: Lease, b: RateBudget) => Math.min(l.known, b.limit) - l.left;

/** What a {@link leasedRateCounter} reports (benchmarks, tests). */
export interface LeaseStats {
  /** Round trips taken (one per lease, for all of a request's budgets that needed one). */
  leases: number;
  /** Hits counted (each spent from a lease in memory). */
  hits: number;
}

/**
 * Counters shared by every instance on one database, spent from leases (see the module's text).
 * When this instance first sees a new window it deletes the windows older than the previous one
 * (in the background).
 * @param store the token store (`hitRateWindows`, `pruneRateWindows`)
 * @param onPruneError where a failed clean-up is reported (it is retried next window)
 * @param stats counts of leases and local hits, updated in place (optional)
 * @returns the counter
 */
export function leasedRateCounter(
  store: Pick<TokenStore, "hitRateWindows" | "pruneRateWindows">,
  onPruneError: (e: unknown) => void = () => {},
  stats: LeaseStats = { leases: 0, hits: 0 },
): RateCounter {
  let window = -1;
  let leases = new Map<string, Lease>();

  const leaseOf = (bucket: string): Lease => {
    let l = leases.get(bucket);
    if (!l) leases.set(bucket, l = { known: 0, left: 0, size: 1, waiting: 0, pending: null });
    return l;
  };

  /** Take one lease for each of `need` (one statement), sized by its waiting requests. */
  const take = (need: readonly RateBudget[], own: readonly Lease[], windowStart: number) => {
    // own[i] is need[i]'s lease, and the store answers one count per bucket, in order.
    const asked = need.map((b, i) => {
      // non-null: own[i] is need[i]'s lease (the comment above)
      const l = own[i]!;
      return Math.min(Math.max(l.size, l.waiting), Math.max(1, b.limit - l.known));
    });
    const p = (async () => {
      try {
        stats.leases++;
        const after = await store.hitRateWindows(need.map((b) => b.bucket), windowStart, asked);
        need.forEach((b, i) => {
          // non-null: own and asked are need's, and the store answers one count per bucket (as
          // above)
          const l = own[i]!, n = asked[i]!, total = after[i]!;
          const before = total - n;
          l.left += Math.max(0, Math.min(n, b.limit - before));
          l.known = Math.max(l.known, total);
          l.size = n * 2;
        });
      } finally {
        for (const l of own) l.pending = null;
      }
    })();
    for (const l of own) l.pending = p;
    return p;
  };

  return {
    async hit(budgets, windowStart, windowMs) {
      // A request whose clock reading is older than the window already begun counts there.
      if (windowStart < window) windowStart = window;
      if (windowStart !== window) {
        window = windowStart;
        leases = new Map();
        store.pruneRateWindows(windowStart - windowMs).catch(onPruneError);
      }
      const mine = budgets.map((b) => leaseOf(b.bucket));
      // mine[i] is budgets[i]'s lease.
      const counted = new Set<Lease>();
      try {
        for (;;) {
          // A window that ended while this request waited: count it in the new one.
          if (windowStart !== window) return await this.hit(budgets, window, windowMs);
          for (const l of mine) if (l.left === 0 && !counted.has(l)) counted.add(l), l.waiting++;
          const full = budgets.findIndex((b, i) => {
            // non-null: mine has one lease per budget (budgets.map above)
            const l = mine[i]!;
            return l.left === 0 && l.pending === null && l.known >= b.limit;
          });
          if (full >= 0) {
            return budgets.map((b, i) =>
              // non-null: mine has one lease per budget (budgets.map above)
              i === full ? Math.max(mine[i]!.known, b.limit) + 1 : used(mine[i]!, b)
            );
          }
          const inFlight = mine.find((l) => l.left === 0 && l.pending !== null);
          if (inFlight) {
            await inFlight.pending;
            continue;
          }
          // non-null: mine has one lease per budget (budgets.map above)
          const need = budgets.filter((_, i) => mine[i]!.left === 0);
          if (need.length === 0) {
            stats.hits++;
            for (const l of mine) l.left--;
            // non-null: mine has one lease per budget (budgets.map above)
            return budgets.map((b, i) => used(mine[i]!, b));
          }
          await take(need, mine.filter((l) => l.left === 0), windowStart);
        }
      } finally {
        for (const l of counted) l.waiting--;
      }
    },
  };
}
