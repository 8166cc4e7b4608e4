/**
 * The operation pipeline of `POST /api/v1/operations/:typeId`: token (401/426) → body (size,
 * optional body-hash binding, JSON, schema) → EIK coverage → local input → sender confirmation
 * → portal (test or live adapter by the token's mode) → NO_DATA rule.
 * @module
 */
import type { Context } from "hono";
import { AppError, isAppError, validationError } from "../../contract/errors.ts";
import type { OperationSpec } from "../../contract/operations.ts";
import type { PortalAdapter, PortalContext } from "../../portal/adapter.ts";
import type { AgentDeps } from "../deps.ts";
import {
  assertEiksCovered,
  type OperationClaims,
  type TokenVerifier,
  verifyOperationToken,
} from "../http/auth.ts";
import type { ConfirmationManager, ConfirmSubject } from "../confirm/manager.ts";
import type { LocalSource, SubmissionFiles } from "../local/types.ts";
import { markNoData } from "./no_data.ts";
import { checkRequestedSender, sendersFor } from "../senders/senders.ts";
import { liveContext, needsPin, parseKeystoreRef } from "../senders/sender_keys.ts";
import { runBatch } from "../filing/batch.ts";
import { displayPeriod } from "../period.ts";
import { fileSubmission } from "../filing/filing.ts";

/** What the pipeline needs beyond {@link AgentDeps}. */
export interface PipelineDeps extends AgentDeps {
  readonly verifier: TokenVerifier;
  readonly confirmations: ConfirmationManager;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Strict UTF-8 for request bodies (one decoder for every request). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource)).toHex();
}

/** Parse and validate the body; the raw bytes are checked against `bodySha256` if bound. */
async function readBody(c: Context, op: OperationSpec, claims: OperationClaims) {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (claims.bodySha256 && (await sha256Hex(bytes)) !== claims.bodySha256.toLowerCase()) {
    throw new AppError("TOKEN_BODY_MISMATCH", "The body does not match the token's bodySha256");
  }
  let raw: unknown;
  try {
    raw = bytes.length === 0 ? {} : JSON.parse(UTF8.decode(bytes));
  } catch {
    throw new AppError("INVALID_JSON", "The body is not valid UTF-8 JSON");
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new AppError("INVALID_JSON", "The body must be a JSON object");
  }
  const parsed = op.request.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return parsed.data as Record<string, unknown>;
}

function localSource(
  c: Context,
  body: Record<string, unknown>,
  pathField: string | null,
): LocalSource {
  const header = c.req.header("x-svc-file-path") ?? null;
  const fromBody = pathField && typeof body[pathField] === "string"
    ? (body[pathField] as string)
    : null;
  return {
    path: fromBody ?? header,
    ...(body._inlineFile ? { inlineFile: body._inlineFile as LocalSource["inlineFile"] } : {}),
    ...(body._inlineDir ? { inlineDir: body._inlineDir as LocalSource["inlineDir"] } : {}),
  };
}

function hasLocal(s: LocalSource, body: Record<string, unknown>): boolean {
  return s.path !== null || !!s.inlineFile || !!s.inlineDir ||
    typeof body.dec1FilePath === "string" ||
    typeof body.dec6FilePath === "string";
}

function stripInline(body: Record<string, unknown>): Record<string, unknown> {
  const { _inlineFile: _f, _inlineDir: _d, ...rest } = body;
  return rest;
}

/**
 * Run one operation.
 * @param c Hono context
 * @param op registry entry
 * @param deps pipeline dependencies
 * @returns the result object (200)
 * @throws AppError (mapped to 401/426/502 by the app)
 */
export async function runOperation(
  c: Context,
  op: OperationSpec,
  deps: PipelineDeps,
): Promise<Record<string, unknown>> {
  const cleanups: (() => void)[] = [];
  try {
    return await runOperationInner(c, op, deps, cleanups);
  } finally {
    for (const close of cleanups) close();
  }
}

async function runOperationInner(
  c: Context,
  op: OperationSpec,
  deps: PipelineDeps,
  cleanups: (() => void)[],
): Promise<Record<string, unknown>> {
  const claims = await verifyOperationToken(
    deps.verifier,
    c.req.header("authorization"),
    op.typeId,
  );
  const origin = c.req.header("origin");
  // A token bound to a page origin works only from that page (not from a local program).
  if (claims.origin && origin !== claims.origin) {
    throw new AppError("ORIGIN_NOT_ALLOWED", "The token was issued for another page origin", {
      origin,
    });
  }
  const body = await readBody(c, op, claims);
  const batchId = c.req.header("x-svc-batch-id") ?? null;
  if (batchId !== null && !GUID.test(batchId)) {
    throw new AppError("BATCH_ID_INVALID", "X-Svc-Batch-Id must be a GUID", {
      field: "X-Svc-Batch-Id",
    });
  }
  if (op.scope === "eik") {
    if (!claims.eik) throw new AppError("TOKEN_EIK_MISMATCH", "The token carries no eik");
    if (typeof body.eik === "string") assertEiksCovered(claims, [body.eik]);
  }
  const portal = pickPortal(deps, claims.mode);

  if (op.family === "local") {
    if (!deps.localOps) {
      throw new AppError("LOCAL_INPUT_REQUIRED", "Local file operations are not available");
    }
    const field = op.typeId === "vat_files_parse" ? "directory" : "rootFolder";
    const src = localSource(c, body, field);
    // Reading the user's disk needs the user's consent (once per batch); inline input does not.
    if (!src.inlineFile && !src.inlineDir && src.path) {
      await confirmSender(
        c,
        deps,
        claims,
        batchId,
        {
          summary: `${op.summary} — reads ${src.path}`,
          eiks: [],
          period: displayPeriod(body),
          files: [src.path],
          documents: null,
        },
        op,
        cleanups,
      );
    }
    return markNoData(await deps.localOps.runLocal(op, body, src));
  }
  if (op.family === "batch") {
    if (!deps.localOps) {
      throw new AppError("LOCAL_INPUT_REQUIRED", "Local file operations are not available");
    }
    const scan = await deps.localOps.scanBatch(op, body, localSource(c, body, "rootFolder"));
    const idem = c.req.header("idempotency-key") ?? null;
    return markNoData(
      await runBatch(
        op,
        body,
        claims,
        scan,
        (input, ctx) =>
          fileSubmission(deps, portal, input, ctx, {
            typeId: op.typeId,
            mode: claims.mode,
            integrator: claims.intg ?? null,
            batchId,
            idempotencyKey: idem,
            period: displayPeriod(body),
          }),
        (subject) => confirmSender(c, deps, claims, batchId, subject, op, cleanups),
      ),
    );
  }

  let files: SubmissionFiles | null = null;
  if (op.family === "submission") {
    const src = localSource(c, body, null);
    if (hasLocal(src, body) || op.localInput === "required") {
      if (!deps.localOps) {
        throw new AppError("LOCAL_INPUT_REQUIRED", "Local file operations are not available");
      }
      if (!hasLocal(src, body)) {
        throw new AppError(
          "LOCAL_INPUT_REQUIRED",
          `${op.typeId} needs its files (a path, X-Svc-File-Path or inline)`,
          {
            field: op.typeId === "dec1_6" ? "dec1FilePath" : "X-Svc-File-Path",
          },
        );
      }
      files = await deps.localOps.readSubmission(op, body, src);
      assertEiksCovered(claims, files.eiks);
    }
  }

  let ctx: PortalContext = { sender: null };
  if (op.needsSender) {
    const subject = {
      summary: op.summary,
      eiks: claims.eik ? [claims.eik] : [],
      period: files?.period
        ? `${files.period.slice(0, 4)}-${files.period.slice(4)}`
        : displayPeriod(body),
      files: files?.names ?? [],
      documents: files ? files.files.length : null,
    };
    ctx = await confirmSender(c, deps, claims, batchId, subject, op, cleanups);
  }

  switch (op.family) {
    case "submission":
      return await fileSubmission(
        deps,
        portal,
        { kind: op.kind!, eik: claims.eik!, request: stripInline(body), files: files?.files ?? [] },
        ctx,
        {
          typeId: op.typeId,
          mode: claims.mode,
          integrator: claims.intg ?? null,
          batchId,
          idempotencyKey: c.req.header("idempotency-key") ?? null,
          period: displayPeriod(body),
        },
      );
    case "result":
      return await portal.result(op.kind!, String(body.documentId), claims.eik!, ctx);
    default:
      return markNoData((await portal.report(op.typeId, body, ctx)) as Record<string, unknown>);
  }
}

function pickPortal(deps: AgentDeps, mode: "test" | "live"): PortalAdapter {
  if (mode === "test") return deps.portals.test;
  if (!deps.portals.live) {
    throw new AppError(
      "PORTAL_NOT_CONFIGURED",
      "Live filing needs the portal API settings in the agent's config",
    );
  }
  return deps.portals.live;
}

/**
 * Resolve the sender through the confirmation state machine and build the portal context: in
 * live mode the sender's key store is opened with the PIN typed on the page, and a wrong PIN
 * refuses the rest of the batch at once (no second attempt, no token lock-out).
 * @param cleanups receives the key store's close function
 * @returns the portal context (sender, certificate, CMS signer)
 */
async function confirmSender(
  c: Context,
  deps: PipelineDeps,
  claims: OperationClaims,
  batchId: string | null,
  what: Pick<ConfirmSubject, "summary" | "eiks" | "period" | "files" | "documents">,
  op: OperationSpec,
  cleanups: (() => void)[],
): Promise<PortalContext> {
  const usable = sendersFor(deps.senders, claims.mode);
  const requested = c.req.header("x-svc-sender-id") ?? null;
  checkRequestedSender(deps.senders, usable, requested);
  const subject = {
    ...what,
    batchId,
    senderId: requested,
    typeId: op.typeId,
    integratorId: claims.intg ?? claims.sub ?? "unknown",
    integratorName: claims.intgName ?? claims.intg ?? "Unknown integrator",
    origin: claims.origin ?? null,
    mode: claims.mode,
  };
  const refs = new Map(
    usable.map((s) => [s.id, claims.mode === "live" ? parseKeystoreRef(s.keystore) : null]),
  );
  const chosen = await deps.confirmations.confirm(
    subject,
    usable.map((s) => ({
      id: s.id,
      displayName: s.displayName,
      needsPin: needsPin(refs.get(s.id) ?? null),
    })),
  );
  const s = usable.find((x) => x.id === chosen.senderId)!;
  const sender = { id: s.id, displayName: s.displayName };
  if (claims.mode === "test") return { sender };
  const refuseOnPin = (e: unknown) => {
    if (isAppError(e) && (e.code === "PIN_INCORRECT" || e.code === "PIN_LOCKED")) {
      deps.confirmations.refuse(subject);
    }
    throw e;
  };
  const live = await liveContext(sender, refs.get(s.id) ?? null, chosen.pin).catch(refuseOnPin);
  cleanups.push(live.close);
  const sign = live.ctx.sign!;
  return { ...live.ctx, sign: (bytes) => sign(bytes).catch(refuseOnPin) };
}
