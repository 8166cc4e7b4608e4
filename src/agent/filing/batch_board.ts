/**
 * The progress of folder-wide filings (docs/local-input.md § Progress): one entry per running or
 * recently finished batch, read by `GET /api/v1/batches/{batchId}` (the integrator's page) and
 * by the console (the person at the machine). An entry holds counts and EIKs only — never
 * paths, file contents, PINs or tokens (a token is kept as its SHA-256). It answers only the
 * integrator and page origin that started the batch, and is forgotten 10 minutes after the
 * batch ends (the confirmation's memory, docs/confirmation.md § What a confirmed batch covers).
 * @module
 */
import { createHash } from "node:crypto";
import { AppError } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { BatchLog } from "./journal_batches.ts";
import {
  type BatchEntryView,
  type BatchOutcome,
  type BatchOwner,
  type BatchPhase,
  type BatchProgressView,
  type Entry,
  interrupted,
  interruptedView,
} from "./batch_entry.ts";

export type {
  BatchEntryView,
  BatchOutcome,
  BatchOwner,
  BatchPhase,
  BatchProgressView,
  BatchWaiting,
} from "./batch_entry.ts";

/** How long a finished batch stays readable (the confirmation's 10 minutes). */
export const BATCH_KEEP_MS = 10 * 60_000;
/** How far back an agent that starts looks for batches it was stopped in (7 days). */
export const INTERRUPTED_KEEP_MS = 7 * 24 * 3_600_000;

/** Where the board records each batch and its companies (the journal's, journal_batches.ts). */
export type BatchStore = Pick<BatchLog, "started" | "filed" | "ended" | "unended">;

/**
 * SHA-256 (hex) of an `Authorization` header's bearer token: what the board keeps.
 * @param authorization the header (`Bearer …`), or undefined
 * @returns the hash, or null without a bearer token
 */
export function tokenHash(authorization: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  // non-null: group 1 of the pattern is not optional, so a match has it
  return m ? createHash("sha256").update(m[1]!).digest("hex") : null;
}

/** A batch's key: its owner, its id and its operation — one user action (one batch id) may
 * file the D1/D6 and the VAT returns of the same companies side by side. */
const keyOf = (o: BatchOwner, batchId: string, typeId: string) =>
  `${o.mode}|${o.integrator}|${o.origin ?? ""}|${batchId.toLowerCase()}|${typeId}`;

/** The progress of one running batch, updated by the batch runner. */
export class BatchTracker {
  readonly #e: Entry;
  readonly #board: BatchBoard;

  /** @internal built by {@link BatchBoard.start} */
  constructor(e: Entry, board: BatchBoard) {
    this.#e = e;
    this.#board = board;
  }

  #touch(): void {
    this.#e.updatedAt = this.#board.now();
  }

  /** The batch is in this phase now. */
  phase(p: BatchPhase): void {
    this.#e.phase = p;
    if (p === "filing" && this.#e.filingSince === null) this.#e.filingSince = this.#board.now();
    this.#touch();
  }

  /**
   * The companies found: all of them (`total`), those skipped or failed before any filing.
   * @param total companies found
   * @param toFile companies that will be filed
   * @param eiks those companies: the journal keeps them until the batch ends, so a batch the
   *   agent is stopped in shows what is left (docs/journal.md § Interrupted batches)
   */
  plan(total: number, toFile: number, eiks: readonly string[] = []): void {
    this.#e.total = total;
    this.#e.toFile = toFile;
    this.#touch();
    const e = this.#e;
    this.#board.store?.started({
      key: e.key,
      batchId: e.batchId,
      typeId: e.typeId,
      mode: e.owner.mode,
      integrator: e.owner.integrator,
      origin: e.owner.origin,
      tokens: [...e.tokens],
      total,
      eiks,
      startedAt: new Date(e.startedAt).toISOString(),
    });
  }

  /** The company being signed or filed now (null: none). */
  current(eik: string | null): void {
    this.#e.current = eik;
    this.#touch();
  }

  /** The portal asked to wait until this instant (epoch ms), or null when it no longer does. */
  waitUntil(at: number | null): void {
    this.#e.waitingUntil = at;
    this.#touch();
  }

  /**
   * One company's outcome (filed = "submitted").
   * @param o the outcome
   * @param queued whether the company was one of the `toFile` of {@link plan} (counts for the
   *   time left)
   * @param replayed answered from the journal (filed before an interruption): it is no longer
   *   left, but the time left is the pace of the real filings only
   */
  record(o: BatchOutcome, queued: boolean, replayed = false): void {
    if (o.outcome === "submitted") this.#e.filed++;
    else if (o.outcome === "skipped") this.#e.skipped++;
    else if (o.outcome === "failed") this.#e.failed++;
    else this.#e.unknown++;
    if (queued) this.#e.settled++;
    if (queued && replayed) this.#e.replayed++;
    if (o.outcome === "submitted") this.#board.store?.filed(this.#e.key, o.eik);
    this.#e.outcomes.push(o);
    this.#touch();
  }

  /** The batch ended (on every path out): kept 10 minutes for the page and the console. */
  done(): void {
    if (this.#e.doneAt !== null) return;
    this.#e.doneAt = this.#board.now();
    this.#e.phase = "done";
    this.#e.current = null;
    this.#e.waitingUntil = null;
    this.#e.outcomes.sort((a, b) => a.eik.localeCompare(b.eik));
    this.#touch();
    this.#board.store?.ended(this.#e.key, new Date(this.#e.doneAt));
  }

  /** The current progress. */
  view(): BatchProgressView {
    return this.#board.viewOf(this.#e);
  }
}

/** A folder scan as the console shows it (only while it runs). */
export interface ScanView {
  readonly typeId: string;
  readonly integrator: string;
  readonly startedAt: string;
  /** Seconds it has run. */
  readonly seconds: number;
  /** Files examined so far, of those found (0 of 0 while the folder is listed). */
  readonly examined: number;
  readonly found: number;
}

/** A running folder scan's progress; `done()` on every path out. */
export interface ScanTracker {
  files(examined: number, found: number): void;
  done(): void;
}

/** The running and recently finished batches of this agent. */
export class BatchBoard {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #scans = new Set<
    { typeId: string; integrator: string; startedAt: number; examined: number; found: number }
  >();

  /** @internal where each batch is recorded (the journal), if anywhere */
  readonly store: BatchStore | null;

  /**
   * @param clock the agent's clock
   * @param store the journal's batches: those an earlier run was stopped in (of the last 7
   *   days) are listed as interrupted, and each batch is recorded as it runs
   */
  constructor(clock: Clock, store?: BatchStore) {
    this.#clock = clock;
    this.store = store ?? null;
    const since = new Date(this.now() - INTERRUPTED_KEEP_MS);
    for (const r of this.store?.unended(since) ?? []) this.#entries.set(r.key, interrupted(r));
  }

  /** The clock's now (epoch ms). */
  now(): number {
    return this.#clock.now();
  }

  /**
   * Start tracking a batch, or refuse a second filing of one that runs.
   * @param batchId the `X-Svc-Batch-Id`
   * @param typeId the batch operation
   * @param owner integrator, mode and page origin of the request
   * @param token SHA-256 of the request's token (it may read the progress)
   * @returns the tracker (call `done()` on every path out)
   * @throws AppError FILING_IN_PROGRESS (`details.batchId`, `details.progress`) while the same
   *   owner's batch with this id and operation runs
   */
  start(batchId: string, typeId: string, owner: BatchOwner, token: string | null): BatchTracker {
    this.#sweep();
    const key = keyOf(owner, batchId, typeId);
    const running = this.#entries.get(key);
    if (running && running.doneAt === null && running.remaining === null) {
      if (token) running.tokens.add(token);
      throw new AppError(
        "FILING_IN_PROGRESS",
        "This batch is being filed now; its progress is at GET /api/v1/batches/" + batchId,
        { batchId, progress: this.viewOf(running) },
      );
    }
    const now = this.now();
    const e: Entry = {
      key,
      owner,
      batchId,
      typeId,
      tokens: new Set(token ? [token] : []),
      startedAt: now,
      updatedAt: now,
      filingSince: null,
      phase: "confirmation",
      total: 0,
      toFile: 0,
      settled: 0,
      replayed: 0,
      filed: 0,
      skipped: 0,
      failed: 0,
      unknown: 0,
      waitingUntil: null,
      current: null,
      doneAt: null,
      outcomes: [],
      remaining: null,
    };
    this.#entries.set(key, e);
    return new BatchTracker(e, this);
  }

  /**
   * The progress of a batch, for the integrator and page that started it.
   * @param batchId the batch id
   * @param token SHA-256 of the caller's bearer token: one that a request of this batch carried
   *   (a token names one operation, so it also picks between two operations of one batch id)
   * @param origin the caller's Origin header (null: none)
   * @returns the progress
   * @throws AppError BATCH_NOT_FOUND (404) for anyone else, an unknown id, or a batch forgotten
   */
  read(batchId: string, token: string | null, origin: string | null): BatchProgressView {
    this.#sweep();
    for (const e of this.#entries.values()) {
      if (
        token !== null && e.batchId.toLowerCase() === batchId.toLowerCase() &&
        e.tokens.has(token) && e.owner.origin === origin
      ) return this.viewOf(e);
    }
    throw new AppError("BATCH_NOT_FOUND", "No such batch for this caller", { batchId });
  }

  /**
   * Follow a folder scan (local reads of a disk folder) for the console.
   * @param typeId the scan operation
   * @param integrator the token's integrator
   * @returns its tracker
   */
  startScan(typeId: string, integrator: string): ScanTracker {
    const s = { typeId, integrator, startedAt: this.now(), examined: 0, found: 0 };
    this.#scans.add(s);
    return {
      files: (examined, found) => {
        s.examined = examined;
        s.found = found;
      },
      done: () => void this.#scans.delete(s),
    };
  }

  /**
   * The scans running for at least `minSeconds` (the console shows those past 2 s).
   * @param minSeconds how long a scan has run before it is listed
   * @returns the scans, oldest first
   */
  scans(minSeconds = 2): ScanView[] {
    const now = this.now();
    return [...this.#scans]
      .filter((s) => now - s.startedAt >= minSeconds * 1000)
      .map((s) => ({
        typeId: s.typeId,
        integrator: s.integrator,
        startedAt: new Date(s.startedAt).toISOString(),
        seconds: Math.floor((now - s.startedAt) / 1000),
        examined: s.examined,
        found: s.found,
      }));
  }

  /** Every batch kept (running first, then the newest), for the console. */
  list(): BatchEntryView[] {
    this.#sweep();
    return [...this.#entries.values()]
      .sort((a, b) =>
        Number(a.doneAt !== null) - Number(b.doneAt !== null) || b.startedAt - a.startedAt
      )
      .map((e) => ({
        progress: this.viewOf(e),
        phase: e.phase,
        integrator: e.owner.integrator,
        mode: e.owner.mode,
        origin: e.owner.origin,
        outcomes: e.doneAt === null ? [] : e.outcomes,
      }));
  }

  /** @internal the wire view of an entry */
  viewOf(e: Entry): BatchProgressView {
    const now = this.now();
    // The pace is that of the companies filed now; replays took no time (docs/local-input.md
    // § Progress).
    const done = e.settled - e.replayed;
    const left = Math.max(0, e.toFile - e.settled);
    const since = e.filingSince;
    const eta = e.doneAt !== null
      ? 0
      : since !== null && done > 0
      ? Math.ceil(((now - since) / done) * left / 1000)
      : null;
    const wait = e.waitingUntil !== null ? Math.ceil((e.waitingUntil - now) / 1000) : 0;
    if (e.remaining !== null) return interruptedView(e);
    return {
      batchId: e.batchId,
      typeId: e.typeId,
      state: e.doneAt === null ? "running" : "done",
      total: e.total,
      filed: e.filed,
      skipped: e.skipped,
      failed: e.failed,
      unknown: e.unknown,
      ...(wait > 0 ? { waiting: { reason: "retry_after", retryAfterSeconds: wait } } : {}),
      ...(e.current ? { current: { eik: e.current } } : {}),
      startedAt: new Date(e.startedAt).toISOString(),
      updatedAt: new Date(e.updatedAt).toISOString(),
      etaSeconds: eta === null ? null : eta + Math.max(0, wait),
    };
  }

  #sweep(): void {
    const now = this.now();
    for (const [k, e] of this.#entries) {
      if (e.remaining === null && e.doneAt !== null && e.doneAt + BATCH_KEEP_MS <= now) {
        this.#entries.delete(k);
      }
    }
  }
}
