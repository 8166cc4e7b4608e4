/**
 * Usage counting for monthly billing (docs/token-service.md § Access phases, phase 3: "billing is
 * monthly under the contract"). Every issued token adds 1 to a counter keyed by month (UTC),
 * integrator, contract in force (or ""), key, typeId and EIK; a folder-wide token adds 1 for
 * each of its EIKs. Counting happens in memory on the issuance path (no database round trip)
 * and is flushed with sorted multi-row UPSERTs every `flushMs`, on `stop()`, and before a
 * statement is built. A crash loses at most the last `flushMs` of counts of that instance;
 * `flushMs: 0` writes through after each token instead.
 * @module
 */
import {
  type ApiKeyRecord,
  type BillingCountStore,
  BillingCountWriteError,
  type UsageRow,
} from "../store/mod.ts";

/**
 * The billing month of an instant.
 * @param ms epoch ms
 * @returns `YYYY-MM` in UTC
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(monthOf(Date.UTC(2026, 10, 30, 23, 59)), "2026-11");
 * ```
 */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** `YYYY-MM` with a month from 01 to 12. */
export const MONTH_RE = /^[0-9]{4}-(0[1-9]|1[0-2])$/;

/**
 * Bounds of a billing month.
 * @param month `YYYY-MM`
 * @returns `[from, to)` in epoch ms (UTC)
 */
export function monthBounds(month: string): [number, number] {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return [Date.UTC(y, m - 1, 1), Date.UTC(y, m, 1)];
}

/** Options of {@link BillingCounter}. */
export interface BillingCounterOptions {
  readonly store: BillingCountStore;
  /** Flush interval in ms (default 1000); 0 = write through after each token. */
  readonly flushMs?: number | undefined;
  /** Where flush failures are reported (the counts are kept and retried). */
  readonly onError?: (e: unknown) => void;
}

/**
 * What is buffered in memory and written to the store every `flushMs`, and on `stop()`: the
 * usage counters, and the request log (request_log/recorder.ts).
 */
export abstract class PeriodicFlush {
  #timer: ReturnType<typeof setInterval> | undefined;

  /** @param flushMs the interval, ms (0 = the owner writes through; no timer) */
  constructor(protected readonly flushMs: number) {}

  /** Write what is buffered. @throws nothing; failures are reported by the subclass */
  abstract flush(): Promise<void>;

  /** Start the periodic flush (no-op for write-through). */
  start(): void {
    if (this.#timer !== undefined || this.flushMs === 0) return;
    const timer = setInterval(() => void this.flush(), this.flushMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Stop the periodic flush and write what is buffered. @returns when written */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}

/** In-memory usage counters with periodic flush to the store. */
export class BillingCounter extends PeriodicFlush {
  readonly #store: BillingCountStore;
  readonly #onError: (e: unknown) => void;
  #buf = new Map<string, UsageRow>();
  #flushing: Promise<void> = Promise.resolve();
  #monthFrom = 0;
  #monthTo = 0;
  #month = "";

  /** @param o store, flush interval, error sink */
  constructor(o: BillingCounterOptions) {
    super(o.flushMs ?? 1000);
    this.#store = o.store;
    this.#onError = o.onError ?? (() => {});
  }

  /**
   * Count one issued token (synchronous; cheap).
   * @param now epoch ms
   * @param key the key that was used
   * @param contractId the contract in force, or null
   * @param typeId the operation
   * @param eiks the token's EIK(s); empty for operations without an EIK
   */
  record(
    now: number,
    key: ApiKeyRecord,
    contractId: string | null,
    typeId: string,
    eiks: readonly string[],
  ): void {
    if (now < this.#monthFrom || now >= this.#monthTo) {
      this.#month = monthOf(now);
      [this.#monthFrom, this.#monthTo] = monthBounds(this.#month);
    }
    const c = contractId ?? "";
    for (const eik of eiks.length ? eiks : [""]) {
      const id = `${this.#month}\u0000${key.id}\u0000${c}\u0000${typeId}\u0000${eik}`;
      const row = this.#buf.get(id);
      if (row) (row as { count: number }).count++;
      else {
        this.#buf.set(id, {
          month: this.#month,
          integratorId: key.integratorId,
          contractId: c,
          keyId: key.id,
          mode: key.mode,
          typeId,
          eik,
          count: 1,
        });
      }
    }
    if (this.flushMs === 0) void this.flush();
  }

  /** Counters not yet written. @returns number of buffered rows */
  pending(): number {
    return this.#buf.size;
  }

  /**
   * Write the buffered counts. On failure the counts not written go back into the buffer and
   * are retried by the next flush (a partial write, {@link BillingCountWriteError}, keeps only its
   * unwritten rows, so nothing is counted twice).
   * @returns when written
   * @throws nothing; failures go to `onError`
   */
  override flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#buf.size === 0) return;
      const rows = [...this.#buf.values()];
      this.#buf = new Map();
      try {
        await this.#store.addBillingCounts(rows);
      } catch (e) {
        for (const r of e instanceof BillingCountWriteError ? e.unwritten : rows) {
          const id =
            `${r.month}\u0000${r.keyId}\u0000${r.contractId}\u0000${r.typeId}\u0000${r.eik}`;
          const cur = this.#buf.get(id);
          if (cur) (cur as { count: number }).count += r.count;
          else this.#buf.set(id, r);
        }
        this.#onError(e);
      }
    });
    return this.#flushing;
  }
}
