/**
 * Folder-wide filings (`dec1_6_batch`, `vat_batch`, `etz62_batch`, `etz123_batch`;
 * README.md § Operations: "The agent submits only the documents of listed companies
 * and marks the others skipped"). One sender confirmation — one PIN, one key store session —
 * covers the whole batch. The companies go through a small bounded pipeline
 * (docs/local-input.md § Folder-wide filings): one signature at a time on the sender's key,
 * up to `concurrency` (default 4) filings in flight to the portal, so signing the next company
 * overlaps the portal's round trip of the previous ones. A Retry-After of the portal (HTTP 429,
 * 503) pauses the whole batch and the company is filed again after it; a wrong PIN stops the
 * batch at once (no token lock-out) and marks the rest failed. A company whose filing was sent
 * but whose answer is unknown (a crash, a cut connection) is listed as `unknown` with its
 * journal row, never filed again by the batch.
 * @module
 */
import {
  AppError,
  type BatchOperation,
  type BatchResult,
  type ErrorCode,
  isAppError,
  type SubmissionResult,
} from "../../contract/mod.ts";
import type { PortalContext, SubmissionInput } from "../../portal/mod.ts";
import type { OperationClaims } from "../http/mod.ts";
import { displayPeriod } from "../period.ts";
import type { ConfirmSubject } from "../confirm/mod.ts";
import type { BatchBody, SubmissionFiles } from "../local/mod.ts";
import type { BatchTracker } from "./batch_board.ts";
import { outcomeOf } from "./outcome.ts";
import { wasReplayed } from "./filing.ts";

/** One company of the batch: the answer's item, its code a catalog code (the wire says text). */
type Item = Omit<BatchResult["items"][number], "errorCode"> & { errorCode: ErrorCode | null };

/** Filings in flight to the portal at once, by default. */
export const DEFAULT_BATCH_CONCURRENCY = 4;
/** Times one company is filed again after the portal asked to wait. */
const MAX_WAITS = 5;
/** The wait when the portal answers 429 without a Retry-After, seconds. */
const DEFAULT_RETRY_AFTER_S = 30;
/** The longest wait the batch honours at once, seconds (a longer Retry-After fails the company). */
const MAX_RETRY_AFTER_S = 15 * 60;

/** How a batch runs (all optional). */
export interface BatchRunOptions {
  /** Filings in flight to the portal at once (default {@link DEFAULT_BATCH_CONCURRENCY}). */
  readonly concurrency?: number | undefined;
  /** The batch's progress (GET /api/v1/batches/{batchId}, the console). */
  readonly tracker?: BatchTracker | undefined;
  /** Wait (tests inject); default setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Epoch ms now; default Date.now. */
  readonly now?: () => number;
}

/** The scanned folder, grouped by EIK. */
export interface BatchScan {
  groups: Map<string, SubmissionFiles>;
  totalScanned: number;
  problems: { path: string; error: string; errorCode: ErrorCode }[];
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One signature at a time on the sender's key (a smart card signs one thing at a time; the
 * PKCS#11 session is shared by the batch).
 * @param ctx the batch's portal context
 * @returns the context with its `sign` serialised
 */
function oneSignatureAtATime(ctx: PortalContext): PortalContext {
  const sign = ctx.sign;
  if (!sign) return ctx;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    ...ctx,
    sign: (bytes) => {
      const next = chain.then(() => sign(bytes));
      chain = next.catch(() => undefined);
      return next;
    },
  };
}

/** Seconds the portal asked to wait before this company is filed again, or null. */
function waitAsked(err: AppError): number | null {
  if (err.code === "FILING_RETRY_TOO_EARLY") {
    const s = Number(err.details?.retryAfter);
    return Number.isFinite(s) && s > 0 ? s : null;
  }
  if (outcomeOf(err) !== "refused") return null;
  const s = Number(err.details?.retryAfterSeconds);
  if (Number.isFinite(s) && s > 0) return s;
  return err.details?.httpStatus === 429 ? DEFAULT_RETRY_AFTER_S : null;
}

/** Whether the outcome of the company's filing is unknown (sent, no answer known). */
function isUnknown(err: AppError): boolean {
  return err.code === "FILING_OUTCOME_UNKNOWN" || err.code === "FILING_UNRESOLVED" ||
    err.details?.outcome === "unknown";
}

/**
 * File the companies of a scanned folder that the token lists.
 * @param op the batch operation
 * @param body validated request (year, month, fund, …)
 * @param claims verified token (its `eiks` choose the companies)
 * @param scan documents grouped by EIK
 * @param submit files one company (journaled, idempotent)
 * @param confirm asks the user once for the sender
 * @param o concurrency, progress tracker, sleep and clock
 * @returns the batch result (one row per EIK found)
 */
export async function runBatch(
  op: BatchOperation,
  body: BatchBody,
  claims: OperationClaims,
  scan: BatchScan,
  submit: (input: SubmissionInput, ctx: PortalContext) => Promise<SubmissionResult>,
  confirm: (
    s: Pick<ConfirmSubject, "summary" | "eiks" | "period" | "files" | "documents">,
  ) => Promise<PortalContext>,
  o: BatchRunOptions = {},
): Promise<BatchResult> {
  const tracker = o.tracker;
  const listed = new Set(claims.eiks ?? []);
  const groups = [...scan.groups.entries()].sort(([a], [b]) => a.localeCompare(b));
  const chosen = groups.filter(([eik]) => listed.has(eik));
  // Asked even when no listed company was found: the scan read the user's disk.
  const ctx = oneSignatureAtATime(
    await confirm({
      summary: `${op.summary} (${chosen.length})`,
      eiks: chosen.map(([e]) => e),
      period: displayPeriod(body),
      files: chosen.flatMap(([, g]) => g.names),
      documents: chosen.reduce((n, [, g]) => n + g.files.length, 0),
    }),
  );
  // A cloud signature approves the whole batch's files at once (docs/signing.md § 11,
  // remote signing); a failure there is each company's, reported when it is signed.
  await ctx.prepareSignatures?.(
    chosen.flatMap(([, g]) => (g.error ? [] : g.files.map((f) => f.bytes))),
  );
  const run: BatchRun = {
    op,
    body,
    groups,
    submit: (input) => submit(input, ctx),
    tracker,
    now: o.now ?? Date.now,
    sleep: o.sleep ?? sleepMs,
    items: groups.map(() => null),
    queue: [],
    stop: null,
    pausedUntil: 0,
    waits: new Map(),
  };
  groups.forEach(([eik, g], i) => {
    if (!listed.has(eik)) put(run, i, row(eik, g, { outcome: "skipped" }), false);
    else if (g.error) {
      put(run, i, row(eik, g, { errorCode: g.error.code, error: g.error.message }), false);
    } else run.queue.push(i);
  });
  // non-null: the queue holds indexes of groups
  tracker?.plan(groups.length, run.queue.length, run.queue.map((i) => groups[i]![0]));
  tracker?.phase("filing");
  const n = Math.max(1, Math.min(o.concurrency ?? DEFAULT_BATCH_CONCURRENCY, 32));
  await Promise.all(
    Array.from({ length: Math.min(n, Math.max(1, run.queue.length)) }, () => worker(run)),
  );
  tracker?.current(null);
  return batchResult(run.items as Item[], chosen.length, scan);
}

/** The state of one batch while its companies are filed (shared by the workers). */
interface BatchRun {
  readonly op: BatchOperation;
  readonly body: BatchBody;
  readonly groups: [string, SubmissionFiles][];
  readonly submit: (input: SubmissionInput) => Promise<SubmissionResult>;
  readonly tracker: BatchRunOptions["tracker"];
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** One row per group, in the groups' order (null until decided). */
  readonly items: (Item | null)[];
  /** The groups still to file (indexes); a group the portal asked to wait for goes first. */
  readonly queue: number[];
  /** A wrong or locked PIN: the rest of the batch is not sent. */
  stop: AppError | null;
  /** Nothing is sent before this instant (ms; the portal asked the batch to wait). */
  pausedUntil: number;
  /** How many times each group waited. */
  readonly waits: Map<number, number>;
}

/** Record a group's row (and tell the progress tracker; `replayed`: answered from the journal,
 * no time spent on the portal). */
function put(run: BatchRun, i: number, item: Item, queued: boolean, replayed = false): void {
  run.items[i] = item;
  run.tracker?.record(
    {
      eik: item.eik,
      outcome: item.outcome,
      errorCode: item.errorCode,
      filingId: item.filingId ?? null,
      documentId: item.result?.documentId ?? null,
    },
    queued,
    replayed,
  );
}

/** A group's row: failed unless `rest` says otherwise. */
function row(eik: string, g: SubmissionFiles, rest: Partial<Item>): Item {
  return {
    eik,
    files: g.names,
    outcome: "failed",
    result: null,
    errorCode: null,
    error: null,
    ...rest,
  };
}

/** One worker: files the queue's next group once no wait asked by the portal is running. */
async function worker(run: BatchRun): Promise<void> {
  for (;;) {
    const left = run.pausedUntil - run.now();
    if (left > 0) {
      await run.sleep(left);
      continue;
    }
    run.tracker?.waitUntil(null);
    const i = run.queue.shift();
    if (i === undefined) return;
    await fileOne(run, i);
  }
}

/** File group `i`: its row, or back to the queue's head when the portal asked to wait. */
async function fileOne(run: BatchRun, i: number): Promise<void> {
  const { body } = run;
  // non-null: i is an index of run.groups (from run.queue)
  const [eik, g] = run.groups[i]!;
  if (run.stop) {
    return put(run, i, row(eik, g, { errorCode: run.stop.code, error: run.stop.message }), true);
  }
  run.tracker?.current(eik);
  try {
    const request = {
      eik,
      ...("year" in body ? { year: body.year, month: body.month } : {}),
      ...("fund" in body && body.fund !== undefined ? { fund: body.fund } : {}),
    };
    const result = await run.submit({ kind: run.op.kind, eik, request, files: g.files });
    put(
      run,
      i,
      row(eik, g, {
        outcome: result.success ? "submitted" : "failed",
        result,
        errorCode: result.success ? null : "PORTAL_REJECTED",
        error: result.success ? null : result.errorMessage,
      }),
      true,
      wasReplayed(result),
    );
  } catch (e) {
    const err = isAppError(e)
      ? e
      : new AppError("AGENT_INTERNAL_ERROR", "Unexpected failure", undefined, e);
    if (err.code === "PIN_INCORRECT" || err.code === "PIN_LOCKED") run.stop ??= err;
    const wait = run.stop ? null : waitAsked(err);
    const tries = run.waits.get(i) ?? 0;
    if (wait !== null && wait <= MAX_RETRY_AFTER_S && tries < MAX_WAITS) {
      // The portal asked the whole batch to wait: nothing is sent before the instant.
      run.waits.set(i, tries + 1);
      run.pausedUntil = Math.max(run.pausedUntil, run.now() + wait * 1000);
      run.tracker?.waitUntil(run.pausedUntil);
      run.queue.unshift(i);
      return;
    }
    const filingId = typeof err.details?.filingId === "string" ? err.details.filingId : null;
    put(
      run,
      i,
      row(eik, g, {
        outcome: isUnknown(err) ? "unknown" : "failed",
        errorCode: err.code,
        error: err.message,
        ...(filingId ? { filingId } : {}),
      }),
      true,
    );
  }
}

/** The batch's answer: counts, status and one error line (failures, unknowns, scan problems). */
function batchResult(done: Item[], chosen: number, scan: BatchScan): BatchResult {
  const submitted = done.filter((i) => i.outcome === "submitted").length;
  const failed = done.filter((i) => i.outcome === "failed").length;
  const unknown = done.filter((i) => i.outcome === "unknown").length;
  const skipped = done.length - submitted - failed - unknown;
  const problems = scan.problems.map((p) => `${p.path}: ${p.error}`);
  const bad = failed + unknown;
  return {
    status: bad === 0 ? "ok" : submitted > 0 ? "partial" : chosen > 0 ? "error" : "ok",
    items: done,
    submitted,
    skipped,
    failed,
    unknown,
    totalScanned: scan.totalScanned,
    error: [
      ...(failed > 0 ? [`${failed} of ${chosen} companies failed`] : []),
      ...(unknown > 0
        ? [
          `${unknown} of ${chosen} companies were sent and their outcome is unknown: ` +
          "check them on the NRA portal, then resolve them (journal resolve, or the console's " +
          "Filings page)",
        ]
        : []),
      ...problems,
    ].join(" ; ") || null,
  };
}
