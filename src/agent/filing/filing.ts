/**
 * Filing one declaration through the journal: idempotency, write-ahead, answer recording, and
 * the crash reconciliation run at start (issue #7 § 1). Used by single submissions and by each
 * company of a folder-wide filing.
 * @module
 */
import { createHash } from "node:crypto";
import { AppError, isAppError, type SubmissionResult } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { recordCount } from "../../mock/mod.ts";
import type {
  PortalAdapter,
  PortalContext,
  SubmissionFile,
  SubmissionInput,
} from "../../portal/mod.ts";
import type { Journal } from "./journal.ts";

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
  readonly mode: "test" | "live";
  readonly integrator: string | null;
  readonly batchId: string | null;
  /** The Idempotency-Key header (already scoped by the caller), or null. */
  readonly idempotencyKey: string | null;
  readonly period: string | null;
}

const randomId = () => crypto.randomUUID();

/** Errors after which the declaration certainly did not reach the authority. */
const NOT_SENT = new Set([
  "PORTAL_UNREACHABLE",
  "PORTAL_AUTH_FAILED",
  "PORTAL_NOT_CONFIGURED",
  "PORTAL_OPERATION_UNSUPPORTED",
  "SIGNING_FAILED",
  "PIN_INCORRECT",
  "PIN_LOCKED",
  "KEYSTORE_UNAVAILABLE",
  "PKCS11_MODULE_MISSING",
  "PKCS11_MODULE_WRONG_ARCH",
  "CERTIFICATE_INVALID",
  // Refused while building the request, before any byte went out:
  "VALIDATION_FAILED",
  "FILE_KIND_UNKNOWN",
  "FILE_PARSE_ERROR",
  "LOCAL_INPUT_REQUIRED",
]);

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

/** Filings running now, per journal (one agent = one journal), by idempotency key. */
const running = new WeakMap<Journal, Map<string, Promise<SubmissionResult>>>();

/**
 * File one declaration, journaled and idempotent.
 * @param deps journal, clock, logger
 * @param portal the adapter of the token's mode
 * @param input the submission (kind, EIK, request, files)
 * @param ctx sender and signing context
 * @param meta typeId, mode, integrator, batch id, idempotency key, period
 * @returns the authority's answer (the first answer again for a repeated key)
 * @throws AppError FILING_IN_PROGRESS, FILING_OUTCOME_UNKNOWN, and the adapter's errors
 */
export async function fileSubmission(
  deps: FilingDeps,
  portal: PortalAdapter,
  input: SubmissionInput,
  ctx: PortalContext,
  meta: FilingMeta,
): Promise<SubmissionResult> {
  const files = input.files.map((f) => ({ ...f, numRecords: f.numRecords ?? recordCount(f) }));
  const hash = filesHash(files);
  const scope = `${meta.mode}|${meta.integrator ?? ""}`;
  // The key names one filing: the same key with another operation, company or content is another
  // filing, never a replay of the first answer.
  const content = createHash("sha256").update(JSON.stringify(input.request)).update(hash ?? "")
    .digest("hex");
  const key = meta.idempotencyKey
    ? `${scope}|key:${meta.idempotencyKey}|${meta.typeId}|${input.eik}|${content}`
    : meta.batchId && hash
    ? `${scope}|batch:${meta.batchId}|${meta.typeId}|${input.eik}|${hash}`
    : null;
  const journal = deps.journal;
  if (!journal) return portal.submit({ ...input, files }, ctx);
  const inflight = running.get(journal) ?? new Map<string, Promise<SubmissionResult>>();
  running.set(journal, inflight);
  if (key && inflight.has(key)) {
    throw new AppError("FILING_IN_PROGRESS", "The same filing is running; retry when it finishes");
  }
  const begun = journal.begin({
    id: (deps.randomId ?? randomId)(),
    idempotencyKey: key,
    typeId: meta.typeId,
    kind: input.kind,
    eik: input.eik,
    period: meta.period,
    batchId: meta.batchId,
    filesSha256: hash,
    files: files.map((f) => ({ name: f.name, kind: f.kind, numRecords: f.numRecords })),
    senderId: ctx.sender?.id ?? null,
    mode: meta.mode,
    integrator: meta.integrator,
    request: input.request as Record<string, unknown>,
  }, new Date(deps.clock.now()));
  if (!begun.created) {
    const r = begun.record;
    if (r.state === "answered" && r.result) {
      deps.log("info", "idempotent replay", { filingId: r.id });
      return r.result;
    }
    if (r.state === "sent" || r.state === "pending") {
      throw new AppError(
        "FILING_OUTCOME_UNKNOWN",
        "An earlier attempt was sent and its answer is not known yet",
        {
          filingId: r.id,
        },
      );
    }
    journal.reopen(r.id); // failed before reaching the authority: file it again, same row
  }
  const id = begun.record.id;
  const run = (async () => {
    await deps.hold?.("before_send", id);
    const at = new Date(deps.clock.now());
    journal.markSent(id, at);
    let result: SubmissionResult;
    try {
      deps.log("info", "portal submit", { filingId: id, typeId: meta.typeId, eik: input.eik });
      result = await portal.submit({ ...input, files, clientRef: id, at }, ctx);
    } catch (e) {
      const err = isAppError(e)
        ? e
        : new AppError("AGENT_INTERNAL_ERROR", "Unexpected failure", undefined, e);
      if (NOT_SENT.has(err.code)) {
        journal.fail(id, err.code, err.message, new Date(deps.clock.now()));
      }
      throw err;
    }
    await deps.hold?.("after_send", id);
    journal.answer(id, result, new Date(deps.clock.now()));
    await deps.hold?.("after_answer", id);
    return result;
  })();
  if (key) inflight.set(key, run);
  try {
    return await run;
  } finally {
    if (key) inflight.delete(key);
  }
}

/**
 * Run at start: pending rows of a crashed run become failed (never sent); sent rows without an
 * answer are reconciled through the portal's `reconcile` (the test portal recomputes the
 * answer; the live portal cannot, and such rows stay "sent" for a person to check).
 * @param journal the journal
 * @param portals adapters by mode
 * @param log logger
 * @returns counts of rows fixed
 */
export async function reconcileJournal(
  journal: Journal,
  portals: { test: PortalAdapter; live?: PortalAdapter },
  log: Logger,
  now: () => Date,
): Promise<{ notSent: number; reconciled: number; unknown: number }> {
  let notSent = 0, reconciled = 0, unknown = 0;
  for (const r of journal.inState("pending")) {
    journal.fail(r.id, "NOT_SENT", "The agent stopped before sending this filing", now());
    notSent++;
  }
  for (const r of journal.inState("sent")) {
    const portal = r.mode === "live" ? portals.live : portals.test;
    const res = portal?.reconcile
      ? await portal.reconcile({
        kind: r.kind as SubmissionInput["kind"],
        eik: r.eik,
        request: r.request,
        files: r.files.map((f) => ({ ...f, bytes: new Uint8Array() })),
        clientRef: r.id,
        at: new Date(r.sentAt!),
      }, { sender: r.senderId ? { id: r.senderId, displayName: r.senderId } : null }).catch(() =>
        null
      )
      : null;
    if (res) {
      journal.answer(r.id, res, now());
      reconciled++;
    } else {
      unknown++;
    }
  }
  if (notSent + reconciled + unknown > 0) {
    log("info", "journal reconciled", { notSent, reconciled, unknown });
  }
  return { notSent, reconciled, unknown };
}
