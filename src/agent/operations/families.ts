/**
 * One handler per operation family (the registry's `family`, src/contract/operations.ts):
 * submissions (journaled filing), results, reports and portal files (the portal answers),
 * local reads (scans, VAT parse) and folder-wide batches. Each takes its registry entry and
 * the body its request schema produced; none knows a typeId.
 *
 * Consent before disclosure: a path on the user's disk is only checked for its syntax before
 * the user confirms (the page shows it resolved); the files are read, parsed and checked after
 * the confirmation, so no answer before it says anything about the file system. That page asks
 * no PIN: only files that passed lead to the PIN step, which shows what was read
 * (docs/confirmation.md § Two steps). Inline input is the caller's own bytes: it is read and
 * checked first, and the page shows what it holds (one step).
 * @module
 */
import {
  type AnyReportOperation,
  AppError,
  bi,
  type Family,
  type OperationBody,
  type OperationOf,
  type OperationSpec,
  type SubmissionOperation,
} from "../../contract/mod.ts";
import type { PortalAdapter, PortalContext, SubmissionInput } from "../../portal/mod.ts";
import { assertEiksCovered } from "../http/mod.ts";
import {
  fileSubmission,
  type FilingMeta,
  keepFiledProtocol,
  runBatch,
  tokenHash,
} from "../filing/mod.ts";
import {
  checkLocalPath,
  type LocalOps,
  type LocalSource,
  type SubmissionFiles,
} from "../local/mod.ts";
import { displayPeriod, displayTaxPeriod } from "../period.ts";
import {
  type ConfirmRequest,
  confirmSender,
  type ConfirmWhat,
  subjectOf,
} from "./confirm_sender.ts";
import { followFiling, pageError, paramsOf, type ShownPath } from "../confirm/mod.ts";
import { markNoData } from "./no_data.ts";
import { hasLocal, localSource, stringField, stripInline } from "./request.ts";

/** What every family handler gets besides its entry and body. */
export interface FamilyRun extends ConfirmRequest {
  /** The portal of the token's mode (test or live). */
  readonly portal: PortalAdapter;
}

/** Any operation's body, as its request schema produced it. */
type Body = OperationBody<OperationSpec>;

/** A family's handler: its registry entry, the body its request schema produced, the request. */
export type FamilyHandler<F extends Family, B = OperationBody<OperationOf<F>>> = (
  op: OperationOf<F>,
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
    typeId: r.op.typeId,
    mode: r.claims.mode,
    integrator: r.claims.intg ?? null,
    batchId: r.batchId,
    idempotencyKey: r.c.req.header("idempotency-key") ?? null,
    period: displayPeriod(body),
    origin: r.claims.origin ?? null,
  };
}

/** Whether the local input is inline (the caller's own bytes). */
const isInline = (src: LocalSource) => !!src.inlineFile || !!src.inlineDir;

/**
 * A local read (family `local`): the user's consent first when a disk path is read.
 * @returns the scan or parse result, with the NO_DATA rule applied
 * @throws AppError LOCAL_INPUT_REQUIRED | LOCAL_PATH_INVALID (before the page) |
 *   CONFIRMATION_* | LOCAL_PATH_* | FILE_* (after the user's consent)
 */
export const runLocalFamily: FamilyHandler<"local"> = async (op, body, r) => {
  const ops = localOpsOf(r);
  const src = localSource(r.c, body, op.local.folderField);
  // Reading the user's disk needs the user's consent (once per batch); inline input does not.
  if (!isInline(src) && src.path) {
    await ask(r, body, { summary: op.summary, paths: [shownPath(src.path)] });
    // A long scan of the user's disk shows its progress in the console.
    const scan = r.deps.batches?.startScan(op.typeId, r.claims.intg ?? r.claims.sub ?? "unknown");
    try {
      return markNoData(await ops.runLocal(op, body, src, scan?.files));
    } finally {
      scan?.done();
    }
  }
  return markNoData(await ops.runLocal(op, body, src));
};

/**
 * A folder-wide filing (family `batch`): one confirmation (the page shows the root folder and
 * the token's companies; nothing is scanned before it), the scan, one filing per listed
 * company. Inline input is scanned first and the page lists what it holds.
 * @returns the BatchResult, with the NO_DATA rule applied
 * @throws AppError LOCAL_INPUT_REQUIRED | LOCAL_PATH_INVALID (before the page) |
 *   CONFIRMATION_* | LOCAL_PATH_* (after the user's consent)
 */
export const runBatchFamily: FamilyHandler<"batch"> = async (op, body, r) => {
  const ops = localOpsOf(r);
  const src = localSource(r.c, body, "rootFolder");
  const meta = { ...filingMeta(r, body), replayFiled: true };
  const submit = (input: SubmissionInput, ctx: PortalContext) =>
    fileSubmission(r.deps, r.portal, input, ctx, meta);
  // A second request of a batch that runs gets FILING_IN_PROGRESS with its progress.
  const tracker = r.batchId && r.deps.batches
    ? r.deps.batches.start(r.batchId, op.typeId, {
      integrator: r.claims.intg ?? r.claims.sub ?? "unknown",
      mode: r.claims.mode,
      origin: r.c.req.header("origin") ?? null,
    }, tokenHash(r.c.req.header("authorization")))
    : undefined;
  const run = { tracker, concurrency: r.deps.batchConcurrency };
  try {
    if (isInline(src) || !src.path) {
      tracker?.phase("scanning");
      const scan = await ops.scanBatch(op, body, src);
      // The page names the companies as their files do (inline input was read first).
      const companies = [...scan.groups.values()].flatMap((g) => g.companies ?? []);
      return markNoData(
        await runBatch(op, body, r.claims, scan, submit, async (subject) => {
          tracker?.phase("confirmation");
          // The files of the listed companies by their bytes: the file set the batch covers.
          const digests = await Promise.all(
            subject.eiks.flatMap((eik) => scan.groups.get(eik)?.files ?? [])
              .map((f) => sha256Hex(f.bytes)),
          );
          return ask(r, body, { ...subject, companies, digests });
        }, run),
      );
    }
    // The folder is read and checked after the consent, and before the PIN step, which shows the
    // companies and files found; with nothing to sign no PIN is asked.
    let scan: Awaited<ReturnType<LocalOps["scanBatch"]>> | null = null;
    const ctx = await ask(r, body, {
      summary: op.summary,
      eiks: r.claims.eiks ?? [],
      paths: [shownPath(src.path)],
    }, async () => {
      tracker?.phase("scanning");
      scan = await ops.scanBatch(op, body, src);
      return shownScan(scan, r.claims.eiks ?? []);
    });
    return markNoData(
      // non-null: ask ran the scan callback above before it answered, which set scan
      await runBatch(op, body, r.claims, scan!, submit, () => Promise.resolve(ctx), run),
    );
  } finally {
    tracker?.done();
  }
};

/**
 * What the PIN step of a folder-wide filing shows of the folder read: the listed companies found
 * with their files, and a warning per company whose files failed their checks (not sent).
 * @returns null when no listed company has files to sign
 */
function shownScan(
  scan: Awaited<ReturnType<LocalOps["scanBatch"]>>,
  listed: readonly string[],
): Partial<ConfirmWhat> | null {
  const found = [...scan.groups.entries()].filter(([eik]) => listed.includes(eik));
  const usable = found.filter(([, g]) => !g.error);
  if (usable.length === 0) return null;
  const warnings = found.flatMap(([eik, g]) => {
    if (!g.error) return [];
    const t = pageError("", g.error);
    return [bi(`${eik}: ${t.bg} Няма да бъде подадена.`, `${eik}: ${t.en} Not filed.`)];
  });
  return {
    eiks: usable.map(([eik]) => eik),
    files: usable.flatMap(([, g]) => g.names),
    documents: usable.reduce((n, [, g]) => n + g.files.length, 0),
    companies: usable.flatMap(([, g]) => g.companies ?? []),
    ...(warnings.length ? { warnings } : {}),
  };
}

/**
 * A disk path as the page shows it: resolved (normalised, absolute) beside what was sent. Only
 * its syntax is checked: nothing is read.
 * @throws AppError LOCAL_PATH_INVALID
 */
function shownPath(sent: string): ShownPath {
  return { resolved: checkLocalPath(sent), sent };
}

/**
 * The disk paths a submission reads, or null when its input is inline.
 * @throws AppError LOCAL_PATH_INVALID
 */
function diskPaths(
  op: SubmissionOperation,
  body: OperationBody<OperationOf<"submission">>,
  src: LocalSource,
): ShownPath[] | null {
  // The D1/D6 path fields are read from disk even beside inline input (submission_files.ts).
  const fields = op.pathFields.map((f) => stringField(body, f)).filter((p) => p !== null);
  if (op.reader === "payroll_pair" && fields.length > 0) return fields.map(shownPath);
  if (isInline(src) || src.path === null) return null;
  return [shownPath(src.path)];
}

/** SHA-256 (hex) of bytes. */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource)).toHex();
}

/** What the page shows of files already read (and their digests: what the batch covers). */
async function shown(files: SubmissionFiles): Promise<Partial<ConfirmWhat>> {
  return {
    files: files.names,
    digests: await Promise.all(files.files.map((f) => sha256Hex(f.bytes))),
    documents: files.files.length,
    ...(files.warnings?.length ? { warnings: files.warnings } : {}),
    ...(files.companies?.length ? { companies: files.companies } : {}),
    ...(files.figures ? { figures: files.figures } : {}),
    ...(files.period ? { period: displayTaxPeriod(files.period) } : {}),
  };
}

/**
 * One declaration (family `submission`): the sender confirmed (the page shows the paths to be
 * read, or what inline input holds), its files read and checked (when given), then filed
 * through the journal.
 * @returns the SubmissionResult
 * @throws AppError LOCAL_INPUT_REQUIRED (field: the first path field or X-Svc-File-Path) |
 *   LOCAL_PATH_INVALID | CONFIRMATION_* | SENDER_NOT_CHOSEN, then after the user's consent (or
 *   before it for inline input) LOCAL_PATH_* | FILE_* | TOKEN_EIK_MISMATCH; PORTAL_*
 */
export const runSubmissionFamily: FamilyHandler<"submission"> = async (op, body, r) => {
  const src = localSource(r.c, body, null);
  const given = hasLocal(src, body, op.pathFields);
  if (!given && op.localInput === "required") {
    throw new AppError(
      "LOCAL_INPUT_REQUIRED",
      `${op.typeId} needs its files (a path, X-Svc-File-Path or inline)`,
      { field: op.pathFields[0] ?? "X-Svc-File-Path" },
    );
  }
  const ops = given ? localOpsOf(r) : null;
  const read = async () => {
    // non-null: read is called only with ops set (`ops && …` below; no paths without ops)
    const f = await ops!.readSubmission(op, body, src);
    assertEiksCovered(r.claims, f.eiks);
    return f;
  };
  const eik = tokenEik(r);
  const paths = ops ? diskPaths(op, body, src) : null;
  let files = ops && !paths ? await read() : null;
  // A path on the disk is read only after the user's consent, and checked before the sender's
  // key store is opened (no PIN used, nothing signed or sent for a file that fails).
  const ctx = await ask(
    r,
    body,
    {
      summary: op.summary,
      eiks: [eik],
      ...(paths ? { paths } : {}),
      ...(files ? await shown(files) : {}),
    },
    paths
      ? async () => {
        files = await read();
        return await shown(files);
      }
      : undefined,
  );
  const result = await fileSubmission(
    r.deps,
    r.portal,
    { kind: op.kind, eik, request: stripInline(body), files: files?.files ?? [] },
    ctx,
    { ...filingMeta(r, body), onRow: followRow(r) },
  );
  // The receipt in the console shows the portal's protocol (docs/journal.md § Protocols).
  await keepFiledProtocol(r.deps, r.portal, op.kind, eik, ctx, result);
  return result;
};

/** Links a filing's journal row to the request's confirmation (the page follows it). */
function followRow(r: FamilyRun): (filingId: string) => void {
  return (filingId) => {
    const subject = subjectOf(r.c);
    if (subject) followFiling(subject, filingId);
  };
}

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

/**
 * The parameters of a request's item (docs/confirmation.md § What a confirmed batch covers): its
 * body without the inline files (the item holds them by their SHA-256) and without the disk paths
 * it names (the item holds them resolved, so `/a/b/../b` is `/a/b`).
 */
function itemParams(body: Body, paths: readonly ShownPath[]): string {
  const sent = new Set(paths.map((p) => p.sent));
  const rest = Object.entries(stripInline(body)).filter(([, v]) =>
    !(typeof v === "string" && sent.has(v))
  );
  return paramsOf(Object.fromEntries(rest));
}

/** Ask the user (once per batch); the period defaults to the body's, lists to empty;
 * `afterConsent` runs between the user's consent and the opening of the sender's key store. */
function ask(
  r: FamilyRun,
  body: Body,
  what: Pick<ConfirmWhat, "summary"> & Partial<ConfirmWhat>,
  afterConsent?: () => Promise<Partial<ConfirmWhat> | null>,
): Promise<PortalContext> {
  return confirmSender(
    r,
    {
      eiks: [],
      period: displayPeriod(body),
      files: [],
      documents: null,
      params: itemParams(body, what.paths ?? []),
      ...what,
    },
    r.c.req.raw.signal,
    afterConsent,
  );
}

/**
 * The portal's result of a submission (family `result`); an HTML protocol is kept in the
 * journal under its document id (the console shows it).
 * @returns the SubmissionResultPayload
 */
export const runResultFamily: FamilyHandler<"result"> = async (op, body, r) => {
  const eik = tokenEik(r);
  const ctx = await portalContext(op, body, r);
  const documentId = body.documentId;
  const payload = await r.portal.result(op.kind, documentId, eik, ctx);
  // The protocol stays with the journal for the console's Filings page (shown sandboxed).
  if (payload.status === "ok" && /html/i.test(payload.rawBodyContentType)) {
    r.deps.journal?.keepProtocol({
      documentId,
      contentType: payload.rawBodyContentType,
      body: payload.rawBody,
      fetchedAt: new Date(r.deps.clock.now()).toISOString(),
    });
  }
  return payload;
};

/**
 * A report or the portal's files (families `report`, `portal_files`).
 * @returns the result, with the NO_DATA rule applied
 */
export const runReportFamily: FamilyHandler<
  "report" | "portal_files",
  Parameters<PortalAdapter["report"]>[1]
> = async (op: AnyReportOperation, body, r) => {
  const ctx = await portalContext(op, body, r);
  return markNoData(await r.portal.report(op, body, ctx));
};
