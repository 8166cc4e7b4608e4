/**
 * One handler per operation family (the registry's `family`, src/contract/operations.ts):
 * submissions (journaled filing), results, reports and portal files (the portal answers),
 * local reads (scans, VAT parse) and folder-wide batches. Each takes its registry entry and
 * the body its request schema produced; none knows a typeId.
 * @module
 */
import {
  type AnyReportOperation,
  AppError,
  type BatchOperation,
  type LocalOperation,
  type ResultOperation,
  type SubmissionOperation,
} from "../../contract/mod.ts";
import type { PortalAdapter, PortalContext } from "../../portal/mod.ts";
import { assertEiksCovered } from "../http/mod.ts";
import { fileSubmission, type FilingMeta, runBatch } from "../filing/mod.ts";
import type { LocalOps, SubmissionFiles } from "../local/mod.ts";
import { displayPeriod } from "../period.ts";
import { type ConfirmRequest, confirmSender, type ConfirmWhat } from "./confirm_sender.ts";
import { markNoData } from "./no_data.ts";
import { hasLocal, localSource, stringField, stripInline } from "./request.ts";

/** What every family handler gets besides its entry and body. */
export interface FamilyRun extends ConfirmRequest {
  /** The portal of the token's mode (test or live). */
  readonly portal: PortalAdapter;
}

type Body = Readonly<Record<string, unknown>>;

/** A family's handler: its registry entry, the body its request schema produced, the request. */
export type FamilyHandler<O, B = Body> = (
  op: O,
  body: B,
  r: FamilyRun,
) => Promise<Record<string, unknown>>;

function localOpsOf(r: FamilyRun): LocalOps {
  if (!r.deps.localOps) {
    throw new AppError("LOCAL_INPUT_REQUIRED", "Local file operations are not available");
  }
  return r.deps.localOps;
}

function filingMeta(r: FamilyRun, body: Body): FilingMeta {
  return {
    typeId: r.typeId,
    mode: r.claims.mode,
    integrator: r.claims.intg ?? null,
    batchId: r.batchId,
    idempotencyKey: r.c.req.header("idempotency-key") ?? null,
    period: displayPeriod(body),
  };
}

/**
 * A local read (family `local`): the user's consent first when a disk path is read.
 * @returns the scan or parse result, with the NO_DATA rule applied
 * @throws AppError LOCAL_INPUT_REQUIRED | CONFIRMATION_* | LOCAL_PATH_* | FILE_*
 */
export const runLocalFamily: FamilyHandler<LocalOperation> = async (op, body, r) => {
  const ops = localOpsOf(r);
  const src = localSource(r.c, body, op.local.folderField);
  // Reading the user's disk needs the user's consent (once per batch); inline input does not.
  if (!src.inlineFile && !src.inlineDir && src.path) {
    await ask(r, body, { summary: `${op.summary} — reads ${src.path}`, files: [src.path] });
  }
  return markNoData(await ops.runLocal(op, body, src));
};

/**
 * A folder-wide filing (family `batch`): scan, one confirmation, one filing per listed company.
 * @returns the BatchResult, with the NO_DATA rule applied
 */
export const runBatchFamily: FamilyHandler<BatchOperation> = async (op, body, r) => {
  const scan = await localOpsOf(r).scanBatch(op, body, localSource(r.c, body, "rootFolder"));
  const meta = filingMeta(r, body);
  return markNoData(
    await runBatch(
      op,
      body,
      r.claims,
      scan,
      (input, ctx) => fileSubmission(r.deps, r.portal, input, ctx, meta),
      (subject) => confirmSender(r, subject),
    ),
  );
};

/**
 * One declaration (family `submission`): its files read and checked (when given), the
 * sender confirmed, then filed through the journal.
 * @returns the SubmissionResult
 * @throws AppError LOCAL_INPUT_REQUIRED (field: the first path field or X-Svc-File-Path) | FILE_* |
 *   TOKEN_EIK_MISMATCH | CONFIRMATION_* | PORTAL_*
 */
export const runSubmissionFamily: FamilyHandler<SubmissionOperation> = async (op, body, r) => {
  let files: SubmissionFiles | null = null;
  const src = localSource(r.c, body, null);
  const given = hasLocal(src, body, op.pathFields);
  if (given || op.localInput === "required") {
    const ops = localOpsOf(r);
    if (!given) {
      throw new AppError(
        "LOCAL_INPUT_REQUIRED",
        `${op.typeId} needs its files (a path, X-Svc-File-Path or inline)`,
        { field: op.pathFields[0] ?? "X-Svc-File-Path" },
      );
    }
    files = await ops.readSubmission(op, body, src);
    assertEiksCovered(r.claims, files.eiks);
  }
  const eik = tokenEik(r);
  const ctx = await ask(r, body, {
    summary: op.summary,
    eiks: [eik],
    ...(files
      ? {
        files: files.names,
        documents: files.files.length,
        ...(files.period ? { period: `${files.period.slice(0, 4)}-${files.period.slice(4)}` } : {}),
      }
      : {}),
  });
  return await fileSubmission(
    r.deps,
    r.portal,
    { kind: op.kind, eik, request: stripInline(body), files: files?.files ?? [] },
    ctx,
    filingMeta(r, body),
  );
};

/** The token's EIK (an `eik`-scoped operation's token always carries one). */
function tokenEik(r: FamilyRun): string {
  if (!r.claims.eik) throw new AppError("TOKEN_EIK_MISMATCH", "The token carries no eik");
  return r.claims.eik;
}

async function portalContext(
  op: { readonly needsSender: boolean; readonly summary: string; readonly scope: string },
  body: Body,
  r: FamilyRun,
): Promise<PortalContext> {
  if (!op.needsSender) return { sender: null };
  return await ask(r, body, { summary: op.summary, eiks: r.claims.eik ? [r.claims.eik] : [] });
}

/** Ask the user (once per batch); the period defaults to the body's, lists to empty. */
function ask(
  r: FamilyRun,
  body: Body,
  what: Pick<ConfirmWhat, "summary"> & Partial<ConfirmWhat>,
): Promise<PortalContext> {
  return confirmSender(r, {
    eiks: [],
    period: displayPeriod(body),
    files: [],
    documents: null,
    ...what,
  });
}

/**
 * The portal's result of a submission (family `result`).
 * @returns the SubmissionResultPayload
 */
export const runResultFamily: FamilyHandler<ResultOperation> = async (op, body, r) => {
  const eik = tokenEik(r);
  const ctx = await portalContext(op, body, r);
  return await r.portal.result(op.kind, stringField(body, "documentId") ?? "", eik, ctx);
};

/**
 * A report or the portal's files (families `report`, `portal_files`).
 * @returns the result, with the NO_DATA rule applied
 */
export const runReportFamily: FamilyHandler<
  AnyReportOperation,
  Parameters<PortalAdapter["report"]>[1]
> = async (op, body, r) => {
  const ctx = await portalContext(op, body, r);
  return markNoData(await r.portal.report(op, body, ctx));
};
