/**
 * Filing one declaration through the journal: idempotency, write-ahead, the outcome of each
 * attempt (filed, refused, not filed, unknown; outcome.ts), the guard against filing a
 * declaration twice while an earlier attempt is unresolved (docs/journal.md), and the crash
 * reconciliation run at start (reconcile.ts, docs/journal.md). Used by single submissions and by
 * each company of a folder-wide filing.
 * @module
 */
import { createHash } from "node:crypto";
import { AppError, isAppError, type KeyMode, type SubmissionResult } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { recordCount } from "../../record_count.ts";
import type {
  PortalAdapter,
  PortalContext,
  SubmissionFile,
  SubmissionInput,
} from "../../portal/mod.ts";
import type { FilingRecord, Journal, NewFiling } from "./journal.ts";
import {
  assertNothingUnresolved,
  assertRetryAllowed,
  outcomeUnknownError,
  recordFailure,
} from "./outcome.ts";

export { reconcileJournal } from "./reconcile.ts";

/** Points where a test can hold a filing to kill the agent there (SVC_TEST_HOLD_AT). */
export type HoldPoint = "before_send" | "after_send" | "after_answer";

/** Dependencies of {@link fileSubmission}. */
export interface FilingDeps {
  readonly journal?: Journal;
  readonly clock: Clock;
  readonly log: Logger;
  /** Test instrumentation: wait (forever) at a point so a crash test can SIGKILL there. */
  readonly hold?: (point: HoldPoint, filingId: string) => Promise<void>;
  /** A new unique id (journal row ids); default `crypto.randomUUID`. */
  readonly randomId?: () => string;
}

/** Who and what, for the journal row. */
export interface FilingMeta {
  readonly typeId: string;
  readonly mode: KeyMode;
  readonly integrator: string | null;
  readonly batchId: string | null;
  /** The Idempotency-Key header (already scoped by the caller), or null. */
  readonly idempotencyKey: string | null;
  readonly period: string | null;
  /** A company of a folder-wide filing: when the same declaration (sender, EIK, kind, period,
   * files' hash) was filed already, under any batch id, answer that filing instead of filing
   * again (docs/local-input.md § Resuming). */
  readonly replayFiled?: boolean;
  /** Told the journal row that answers this filing (written, reopened, or replayed), e.g. so
   * the confirmation page can follow it. */
  readonly onRow?: (filingId: string) => void;
  /** The integrator's page that asked (the token's `origin` claim), kept with the row. */
  readonly origin?: string | null;
}

const randomId = () => crypto.randomUUID();

/**
 * SHA-256 (hex) over the files' names and bytes, in name order.
 * @param files the files
 * @returns hex digest, or null for no files
 */
export function filesHash(files: readonly SubmissionFile[]): string | null {
  if (files.length === 0) return null;
  const h = createHash("sha256");
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    h.update(f.name).update("\0").update(createHash("sha256").update(f.bytes).digest("hex")).update(
      "\n",
    );
  }
  return h.digest("hex");
}

/** The answers given from the journal (a replay), not by the portal now. */
const replays = new WeakSet<SubmissionResult>();

/**
 * Whether an answer of {@link fileSubmission} came from the journal (the declaration was filed
 * before) rather than from the portal now: a folder-wide filing's time left counts only the
 * pace of real filings (docs/local-input.md § Progress).
 * @param result an answer of fileSubmission
 * @returns true for a replay
 */
export function wasReplayed(result: SubmissionResult): boolean {
  return replays.has(result);
}

/** The recorded answer of a filed row (marked as a replay). */
function replayOf(r: FilingRecord): SubmissionResult {
  const result = replayAnswer(r);
  replays.add(result);
  return result;
}

function replayAnswer(r: FilingRecord): SubmissionResult {
  return r.result ?? {
    success: true,
    documentId: r.documentId,
    incomeNumber: r.incomeNumber,
    submissionDate: r.submissionDate,
    errorMessage: null,
    nativeErrors: [],
  };
}

/** Filings running now, per journal (one agent = one journal): by idempotency key, and the
 * ids of their rows. */
const running = new WeakMap<
  Journal,
  { byKey: Map<string, Promise<SubmissionResult>>; ids: Set<string> }
>();

/**
 * Whether a journal row's portal call runs in this process now (its state reads "unknown"
 * while the answer is awaited): the console offers no "resolve" for it.
 * @param journal the agent's journal
 * @param id the row
 * @returns true while its filing runs
 */
export function isFilingRunning(journal: Journal, id: string): boolean {
  return running.get(journal)?.ids.has(id) ?? false;
}

/**
 * File one declaration, journaled and idempotent.
 *
 * A repeated key answers the first answer of a filed row; retries a refused row (after its
 * Retry-After) or a row that was not filed; and refuses a row whose outcome is unknown. Any
 * filing of the same declaration (sender, EIK, kind, period, files' hash) waits while an
 * earlier attempt is unknown or running (docs/journal.md). Nothing is written for a refused
 * attempt: the checks run before the row.
 * @param deps journal, clock, logger
 * @param portal the adapter of the token's mode
 * @param input the submission (kind, EIK, request, files)
 * @param ctx sender and signing context
 * @param meta typeId, mode, integrator, batch id, idempotency key, period
 * @returns the authority's answer (the first answer again for a repeated key)
 * @throws AppError FILING_IN_PROGRESS, FILING_OUTCOME_UNKNOWN, FILING_UNRESOLVED,
 *   FILING_RETRY_TOO_EARLY, and the adapter's errors (an unknown outcome with
 *   `details.filingId`)
 */
export async function fileSubmission(
  deps: FilingDeps,
  portal: PortalAdapter,
  input: SubmissionInput,
  ctx: PortalContext,
  meta: FilingMeta,
): Promise<SubmissionResult> {
  const files = countedFiles(input);
  const hash = filesHash(files);
  const key = filingKey(input, hash, meta);
  const journal = deps.journal;
  if (!journal) return portal.submit({ ...input, files }, ctx);
  const inFlight = running.get(journal) ?? { byKey: new Map(), ids: new Set<string>() };
  running.set(journal, inFlight);
  if (key && inFlight.byKey.has(key)) {
    throw new AppError("FILING_IN_PROGRESS", "The same filing is running; retry when it finishes");
  }
  const now = new Date(deps.clock.now());
  const row = newFiling(deps, input, files, hash, key, ctx, meta);
  // From here to the row's insert nothing awaits: the checks and the row are one step.
  const prior = key ? journal.byKey(key) : null;
  if (prior?.state === "filed") {
    meta.onRow?.(prior.id);
    deps.log("info", "idempotent replay", { filingId: prior.id });
    return replayOf(prior);
  }
  if (prior && (prior.state === "unknown" || prior.state === "pending")) {
    throw outcomeUnknownError(prior);
  }
  if (prior?.state === "refused") assertRetryAllowed(prior, now);
  const earlier = !prior && meta.replayFiled ? journal.filedSame(row) : null;
  if (earlier) {
    meta.onRow?.(earlier.id);
    deps.log("info", "already filed", { filingId: earlier.id, eik: input.eik });
    return replayOf(earlier);
  }
  assertNothingUnresolved(journal, row, prior?.id ?? null, inFlight.ids, now);
  let id = row.id;
  if (!prior) journal.begin(row, now);
  else if (prior.state === "not_filed" && !prior.resolution) {
    journal.reopen(prior.id, row.senderId); // it never reached the authority: same row
    id = prior.id;
  } else journal.supersede(prior.id, row, now); // it reached the authority: a row of its own
  meta.onRow?.(id);
  const run = sendJournaled(deps, journal, portal, { ...input, files }, ctx, meta, id);
  inFlight.ids.add(id);
  if (key) inFlight.byKey.set(key, run);
  try {
    return await run;
  } finally {
    inFlight.ids.delete(id);
    if (key) inFlight.byKey.delete(key);
  }
}

/** The input's files, each with its record count. */
function countedFiles(input: SubmissionInput) {
  return input.files.map((f) => ({ ...f, numRecords: f.numRecords ?? recordCount(f) }));
}

/**
 * The key that names one filing: the same key with another operation, company or content is
 * another filing, never a replay of the first answer. From the Idempotency-Key, else the batch
 * id (with files), else none.
 */
function filingKey(input: SubmissionInput, hash: string | null, meta: FilingMeta): string | null {
  const scope = `${meta.mode}|${meta.integrator ?? ""}`;
  const content = createHash("sha256").update(JSON.stringify(input.request)).update(hash ?? "")
    .digest("hex");
  return meta.idempotencyKey
    ? `${scope}|key:${meta.idempotencyKey}|${meta.typeId}|${input.eik}|${content}`
    : meta.batchId && hash
    ? `${scope}|batch:${meta.batchId}|${meta.typeId}|${input.eik}|${hash}`
    : null;
}

/** The journal row of this attempt (not yet written). */
function newFiling(
  deps: FilingDeps,
  input: SubmissionInput,
  files: ReturnType<typeof countedFiles>,
  hash: string | null,
  key: string | null,
  ctx: PortalContext,
  meta: FilingMeta,
): NewFiling {
  return {
    id: (deps.randomId ?? randomId)(),
    idempotencyKey: key,
    typeId: meta.typeId,
    kind: input.kind,
    eik: input.eik,
    period: meta.period,
    batchId: meta.batchId,
    filesSha256: hash,
    files: files.map((f) => ({
      name: f.name,
      kind: f.kind,
      numRecords: f.numRecords,
      sha256: createHash("sha256").update(f.bytes).digest("hex"),
    })),
    senderId: ctx.sender?.id ?? null,
    mode: meta.mode,
    integrator: meta.integrator,
    request: input.request as Record<string, unknown>,
    origin: meta.origin ?? null,
  };
}

/** Send row `id` to the portal and journal each step: sent, then its answer or its failure. */
async function sendJournaled(
  deps: FilingDeps,
  journal: Journal,
  portal: PortalAdapter,
  input: SubmissionInput,
  ctx: PortalContext,
  meta: FilingMeta,
  id: string,
): Promise<SubmissionResult> {
  await deps.hold?.("before_send", id);
  const at = new Date(deps.clock.now());
  // "unknown" from the moment the adapter sends it (after the signature): a filing that
  // waits for the sender's key is still "pending" and was never sent.
  let sent = false;
  const onSend = () => {
    if (sent) return;
    sent = true;
    journal.markSent(id, at);
  };
  let result: SubmissionResult;
  try {
    // The EIK of a natural person (an EGN) is masked by the logger (src/log.ts).
    deps.log("info", "portal submit", { filingId: id, typeId: meta.typeId, eik: input.eik });
    result = await portal.submit({ ...input, clientRef: id, at, onSend }, ctx);
  } catch (e) {
    const err = isAppError(e)
      ? e
      : new AppError("AGENT_INTERNAL_ERROR", "Unexpected failure", undefined, e);
    throw recordFailure(journal, id, err, new Date(deps.clock.now()));
  }
  await deps.hold?.("after_send", id);
  journal.answer(id, result, new Date(deps.clock.now()));
  await deps.hold?.("after_answer", id);
  return result;
}
