/**
 * The request log of token requests and the daily usage behind the profile's chart
 * (docs/token-service.md § The profile, request log). Every `POST /api/v1/tokens/issue` whose
 * key was recognised is noted on the issuance path without a database round trip (a small
 * object held per Request), completed by the edge with the answer's status, `errorCode` and
 * request id (edge/request_edge.ts), and added at once to its key's block as numbers in the block's
 * columns (store/request_log_blocks.ts `BlockBuilder`: no object is left behind an entry). Blocks
 * are written every `flushMs` or as soon as {@link BATCH_ROWS} entries wait, like usage counting
 * (contracts/billing_counts.ts). While started (`start()` … `stop()`, the running service), the
 * store's writer writes them: on a SQLite file a worker thread with its own connection, which packs
 * each block's body (store/request_log_block_body.ts) and inserts it, so neither holds the event
 * loop that answers token requests (store/request_log_writer.ts); otherwise, and before `start()`,
 * `store.addRequestLog` in this thread. `stop()` writes what is buffered and ends the thread. Never
 * a secret, never a token: key id, typeId, EIKs, page origin, status, error code, request id,
 * latency (from the key's lookup to the answer, µs). A revoked or expired key's refusal (401
 * API_KEY_REVOKED, API_KEY_EXPIRED) is logged under that key; requests without a known key (401
 * API_KEY_INVALID) belong to no integrator and are not (the access log has them).
 *
 * Stored in blocks, one per API key and write (store/request_log_blocks.ts). Bounds: entries older
 * than {@link REQUEST_LOG_DAYS} days are deleted, and beyond {@link MAX_REQUEST_LOG_ENTRIES}
 * entries the oldest blocks go first (pruned every 10 minutes by each instance, which then also
 * deletes the pages' sessions idle for 8 hours, their links that expired and their rate-limit
 * windows older than an hour); daily usage is kept {@link USAGE_DAYS} days. At most
 * {@link MAX_BUFFERED} entries wait in memory: beyond that (a database outage) new entries are
 * dropped and counted.
 * @module
 */
import {
  type ApiKeyRecord,
  BLOCK_SPAN_MS,
  BlockBuilder,
  type DailyUsageRow,
  type LogBlock,
  type RequestLogWriter,
  type TokenStore,
} from "../store/mod.ts";
import { PeriodicFlush } from "../contracts/mod.ts";
import { PAGE_SESSION_IDLE_MS } from "../../web_session.ts";

/** Days the request log keeps. */
export const REQUEST_LOG_DAYS = 7;
/** Days the daily usage keeps. */
export const USAGE_DAYS = 90;
/** Entries the request log keeps at most (all integrators together). */
export const MAX_REQUEST_LOG_ENTRIES = 2_000_000;
/** Entries waiting for a flush at most. */
export const MAX_BUFFERED = 100_000;
/** Entries that start a flush before the interval is over. On a SQLite file each batch is one
 * transaction of the writer thread, whose commit costs it about 0.4 ms whatever the batch's
 * size: batches of 5,000 cost it 0.55 µs a token where batches of 1,000 cost 0.87
 * (BENCHMARKS.md § The profile). Held as columns (store/request_log_blocks.ts), 5,000 entries are
 * about 350 KB of typed arrays and no object each. */
export const BATCH_ROWS = 5000;
/** EIKs written per entry at most (a folder-wide request lists many). */
const MAX_EIKS_SHOWN = 20;

const DAY_MS = 86_400_000;

/** A request being answered: what is known of it before its answer. */
interface Draft {
  readonly at: number;
  /** `performance.now()` when the key was found: the latency runs from it to the answer. */
  readonly t0: number;
  readonly key: ApiKeyRecord;
  typeId: string;
  eiks: string;
  origin: string | null;
}

/** A request carrying its draft (see `RequestLogRecorder.#mark`). */
type Carrier = Record<symbol, Draft | undefined>;

/** Options of {@link RequestLogRecorder}. */
export interface RequestLogOptions {
  readonly store: TokenStore;
  readonly now: () => number;
  /** Flush interval, ms (default 1000; 0 = after each request). */
  readonly flushMs?: number | undefined;
  readonly onError?: (e: unknown) => void;
  /** Told when the store's writer thread could not be used and this thread writes instead
   * (default: `onError`). */
  readonly onFallback?: (e: Error) => void;
  /** `all` (default) keeps every request; `errors` only the refused ones (status ≥ 400) — the
   * successful ones are then only counted per day (SVC_REQUEST_LOG). */
  readonly keep?: "all" | "errors" | undefined;
}

/** The batching writer of the request log and the daily usage. */
export class RequestLogRecorder extends PeriodicFlush {
  readonly #o: RequestLogOptions;
  /** The property under which a noted request carries its draft: a symbol of this recorder's
   * own (cheaper than a WeakMap keyed by the short-lived requests, as in edge/request_edge.ts). */
  readonly #mark = Symbol("svc.requestLog.draft");
  /** The entries answered since the last flush, as blocks. */
  #blocks = new BlockBuilder(BLOCK_SPAN_MS);
  /** Blocks of a failed write, written again with the next flush. */
  #retry: LogBlock[] = [];
  #retryEntries = 0;
  /** The current day's counts by key, then typeId (no string built a request). */
  #daily = new Map<ApiKeyRecord, Map<string, { count: number; readonly row: DailyUsageRow }>>();
  /** Counts of earlier days, and of a failed write, waiting for the next flush. */
  #dailyEarlier: DailyUsageRow[] = [];
  #flushing: Promise<void> = Promise.resolve();
  /** A flush that has not yet taken the buffer. */
  #queued: Promise<void> | null = null;
  /** The store's writer while started (a worker thread on a SQLite file). */
  #writer: RequestLogWriter | null = null;
  #prunedAt = 0;
  /** The UTC day of the last counted request: its bounds (epoch ms) and `YYYY-MM-DD`. */
  #dayFrom = 0;
  #dayTo = 0;
  #day = "";
  /** Entries dropped because the buffer was full. */
  dropped = 0;

  /** @param o store, clock, interval, error sink */
  constructor(o: RequestLogOptions) {
    super(o.flushMs ?? 1000);
    this.#o = o;
  }

  /** Note a request of a recognised key (the issuance route, after authentication). */
  begin(req: Request, key: ApiKeyRecord, at: number): void {
    (req as unknown as Carrier)[this.#mark] = {
      at,
      t0: performance.now(),
      key,
      typeId: "",
      eiks: "",
      origin: null,
    };
  }

  /** Note what the body asked for (typeId, EIKs, page origin), as sent; ignored when not shaped
   * so. */
  body(req: Request, raw: unknown): void {
    const d = (req as unknown as Carrier)[this.#mark];
    if (!d || raw === null || typeof raw !== "object") return;
    const b = raw as { typeId?: unknown; eik?: unknown; eiks?: unknown; origin?: unknown };
    if (typeof b.typeId === "string") d.typeId = b.typeId.slice(0, 64);
    if (typeof b.origin === "string") d.origin = b.origin.slice(0, 200);
    if (typeof b.eik === "string") {
      d.eiks = b.eik.slice(0, 13);
      return;
    }
    if (!Array.isArray(b.eiks)) return;
    const list = b.eiks.filter((e): e is string => typeof e === "string");
    const shown = list.slice(0, MAX_EIKS_SHOWN).map((e) => e.slice(0, 13));
    d.eiks = shown.join(",") +
      (list.length > shown.length ? `,…+${list.length - shown.length}` : "");
  }

  /**
   * The answer of a noted request (the edge): the entry is complete.
   * @param req the request
   * @param status the answer's HTTP status
   * @param requestId its `X-Request-Id`
   * @param errorCode its body's `errorCode`, or null
   */
  finish(req: Request, status: number, requestId: string, errorCode: string | null): void {
    const d = (req as unknown as Carrier)[this.#mark];
    if (!d) return;
    (req as unknown as Carrier)[this.#mark] = undefined;
    const blocks = this.#blocks;
    if (blocks.size + this.#retryEntries >= MAX_BUFFERED) {
      this.dropped++;
      return;
    }
    const { key } = d;
    if (status >= 400 || this.#o.keep !== "errors") {
      blocks.add(
        key.integratorId,
        key.id,
        d.at,
        d.typeId,
        d.eiks,
        status,
        status < 400 ? null : errorCode,
        requestId,
        d.origin,
        Math.round((performance.now() - d.t0) * 1000),
      );
    }
    if (status === 200) {
      if (d.at < this.#dayFrom || d.at >= this.#dayTo) {
        this.#dailyEarlier.push(...this.#dailyRows());
        this.#daily.clear();
        this.#dayFrom = d.at - (d.at % DAY_MS);
        this.#dayTo = this.#dayFrom + DAY_MS;
        this.#day = new Date(this.#dayFrom).toISOString().slice(0, 10);
      }
      let byType = this.#daily.get(key);
      if (byType === undefined) this.#daily.set(key, byType = new Map());
      const counted = byType.get(d.typeId);
      if (counted !== undefined) counted.count++;
      else {
        const row = {
          day: this.#day,
          integratorId: key.integratorId,
          keyId: key.id,
          typeId: d.typeId,
          count: 0,
        };
        byType.set(d.typeId, { count: 1, row });
      }
    }
    if (this.flushMs === 0 || blocks.size >= BATCH_ROWS) void this.flush();
  }

  /** Start the periodic flush, with the store's writer thread where it has one. */
  override start(): void {
    if (this.#writer === null && this.flushMs > 0) {
      this.#writer = this.#o.store.requestLogWriter((e) =>
        (this.#o.onFallback ?? this.#o.onError)?.(e)
      );
    }
    super.start();
  }

  /** Stop the periodic flush, write what is buffered, end the writer thread. */
  override async stop(): Promise<void> {
    await super.stop();
    const w = this.#writer;
    this.#writer = null; // a later flush writes in this thread
    await w?.close();
  }

  /** Whether the rows are written off the thread answering requests (a started recorder on a
   * SQLite file). */
  get offThread(): boolean {
    return this.#writer?.offThread() ?? false;
  }

  /** The current day's counts as rows. */
  #dailyRows(): DailyUsageRow[] {
    const rows: DailyUsageRow[] = [];
    for (const byType of this.#daily.values()) {
      for (const { count, row } of byType.values()) rows.push({ ...row, count });
    }
    return rows;
  }

  /** Every count waiting, one row per day, key and typeId (a key may have been counted under
   * two records of it, and a failed write's rows come back); the counters are then empty. */
  #takeDaily(): DailyUsageRow[] {
    const merged = new Map<string, DailyUsageRow>();
    for (const d of [...this.#dailyEarlier, ...this.#dailyRows()]) {
      const id = `${d.day}\u0000${d.keyId}\u0000${d.typeId}`;
      const same = merged.get(id);
      merged.set(id, same ? { ...d, count: same.count + d.count } : d);
    }
    this.#dailyEarlier = [];
    this.#daily.clear();
    return [...merged.values()];
  }

  /**
   * Write what is buffered (and prune at most every 10 minutes). Flushes asked for while one is
   * waiting to start share it: it takes everything buffered when it starts.
   * @returns when what was buffered at the call is written (or kept after a failed write)
   * @throws nothing
   */
  override flush(): Promise<void> {
    if (this.#queued) return this.#queued;
    const next = this.#flushing.then(async () => {
      this.#queued = null;
      const blocks = [...this.#retry, ...this.#blocks.take()];
      const daily = this.#takeDaily();
      this.#retry = [];
      this.#retryEntries = 0;
      if (blocks.length || daily.length) {
        try {
          await (this.#writer
            ? this.#writer.write(blocks, daily)
            : this.#o.store.addRequestLog(blocks, daily));
        } catch (e) {
          // Kept for the next flush (the log may then hold a chunk twice: a log, not billing),
          // the oldest first, as many as the buffer holds.
          for (const b of blocks) {
            if (this.#retryEntries + b.entries > MAX_BUFFERED) break;
            this.#retry.push(b);
            this.#retryEntries += b.entries;
          }
          this.#dailyEarlier.push(...daily);
          this.#o.onError?.(e);
          return;
        }
      }
      const now = this.#o.now();
      if (now - this.#prunedAt > 600_000) {
        this.#prunedAt = now;
        const dayBefore = new Date(now - USAGE_DAYS * DAY_MS).toISOString().slice(0, 10);
        await this.#o.store.pruneRequestLog(
          now - REQUEST_LOG_DAYS * DAY_MS,
          MAX_REQUEST_LOG_ENTRIES,
          dayBefore,
        ).catch((e) => this.#o.onError?.(e));
        // The pages' sessions idle for 8 hours, used or expired links, old rate-limit windows.
        await this.#o.store.pruneWeb(now - PAGE_SESSION_IDLE_MS, now - 3_600_000)
          .catch((e) => this.#o.onError?.(e));
      }
    });
    this.#queued = next;
    this.#flushing = next;
    return next;
  }
}
