/**
 * The shapes of the progress board (batch_board.ts): the wire view of a batch, its outcomes,
 * its owner, the entry the board keeps, and a batch an earlier run of the agent was stopped in
 * (docs/journal.md § Interrupted batches). Counts and EIKs only, never paths.
 * @module
 */
import type { BatchResult, ErrorCode, KeyMode } from "../../contract/mod.ts";
import type { BatchRecord } from "./journal_batches.ts";

/** What the batch waits for: the NRA portal's Retry-After. */
export interface BatchWaiting {
  readonly reason: "retry_after";
  readonly retryAfterSeconds: number;
}

/** The phase of a running batch (the console names it). */
export type BatchPhase = "confirmation" | "scanning" | "filing" | "done";

/** The wire shape of `GET /api/v1/batches/{batchId}` (contract: `BatchProgress`). */
export interface BatchProgressView {
  readonly batchId: string;
  readonly typeId: string;
  /** "interrupted": the agent was stopped or killed while it ran (docs/journal.md
   * § Interrupted batches); `remaining` lists the companies not yet filed. */
  readonly state: "running" | "done" | "interrupted";
  readonly total: number;
  readonly filed: number;
  readonly skipped: number;
  readonly failed: number;
  readonly unknown: number;
  readonly waiting?: BatchWaiting;
  readonly current?: { readonly eik: string };
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly etaSeconds: number | null;
  /** An interrupted batch: the EIKs it was to file and did not (sorted). */
  readonly remaining?: readonly string[];
}

/** One company's outcome as the console keeps it (no paths, no messages). */
export interface BatchOutcome {
  readonly eik: string;
  readonly outcome: BatchResult["items"][number]["outcome"];
  readonly errorCode: ErrorCode | null;
  readonly filingId: string | null;
  readonly documentId: string | null;
}

/** Who started a batch: its key, as the confirmation keys it. */
export interface BatchOwner {
  readonly integrator: string;
  readonly mode: KeyMode;
  /** The request's Origin header (null: a local program). */
  readonly origin: string | null;
}

/** A batch as the console lists it. */
export interface BatchEntryView {
  readonly progress: BatchProgressView;
  readonly phase: BatchPhase;
  readonly integrator: string;
  readonly mode: KeyMode;
  /** The integrator's page that started it (its Origin), or null (a local program). */
  readonly origin: string | null;
  /** Per company, once the batch is done (sorted by EIK). */
  readonly outcomes: readonly BatchOutcome[];
}

/** @internal one batch as the board keeps it */
export interface Entry {
  readonly key: string;
  readonly owner: BatchOwner;
  readonly batchId: string;
  readonly typeId: string;
  readonly tokens: Set<string>;
  readonly startedAt: number;
  updatedAt: number;
  filingSince: number | null;
  phase: BatchPhase;
  total: number;
  /** Companies to be filed (listed and found, without a scan error). */
  toFile: number;
  /** Of `toFile`, those with an outcome. */
  settled: number;
  /** Of `settled`, those answered from the journal (filed before): no pace. */
  replayed: number;
  filed: number;
  skipped: number;
  failed: number;
  unknown: number;
  waitingUntil: number | null;
  current: string | null;
  doneAt: number | null;
  outcomes: BatchOutcome[];
  /** A batch an earlier run of the agent was stopped in: the companies not yet filed. */
  readonly remaining: readonly string[] | null;
}

/** A batch an earlier run of the agent never ended, as the board keeps it. */
export function interrupted(r: BatchRecord): Entry {
  const at = Date.parse(r.startedAt);
  const filed = new Set(r.filed);
  return {
    key: r.key,
    owner: { integrator: r.integrator, mode: r.mode, origin: r.origin },
    batchId: r.batchId,
    typeId: r.typeId,
    tokens: new Set(r.tokens),
    startedAt: at,
    updatedAt: at,
    filingSince: null,
    phase: "done",
    total: r.total,
    toFile: r.eiks.length,
    settled: filed.size,
    replayed: 0,
    filed: filed.size,
    skipped: 0,
    failed: 0,
    unknown: 0,
    waitingUntil: null,
    current: null,
    doneAt: at,
    outcomes: [],
    remaining: r.eiks.filter((eik) => !filed.has(eik)),
  };
}

/** The wire view of an interrupted batch: what was filed and what is left, no time left. */
export function interruptedView(e: Entry): BatchProgressView {
  return {
    batchId: e.batchId,
    typeId: e.typeId,
    state: "interrupted",
    total: e.total,
    filed: e.filed,
    skipped: 0,
    failed: 0,
    unknown: 0,
    startedAt: new Date(e.startedAt).toISOString(),
    updatedAt: new Date(e.updatedAt).toISOString(),
    etaSeconds: null,
    remaining: e.remaining ?? [],
  };
}
