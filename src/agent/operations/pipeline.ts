/**
 * The operation pipeline of `POST /api/v1/operations/:typeId`: token (401/426) → page origin
 * → batch id → body (size, optional body-hash binding, JSON, the registry's schema, parsed
 * once) → EIK coverage → the family's handler (families.ts: local input, sender confirmation,
 * portal of the token's mode, journal) → NO_DATA rule. Dispatch is on the registry entry's
 * `family`; no typeId is compared here.
 * @module
 */
import type { Context } from "hono";
import {
  AppError,
  type KeyMode,
  type OperationBody,
  type OperationSpec,
} from "../../contract/mod.ts";
import type { PortalAdapter } from "../../portal/mod.ts";
import type { AgentDeps } from "../deps.ts";
import { assertEiksCovered, type OperationClaims, verifyOperationToken } from "../http/mod.ts";
import type { PipelineDeps } from "./confirm_sender.ts";
import {
  type FamilyRun,
  runBatchFamily,
  runLocalFamily,
  runReportFamily,
  runResultFamily,
  runSubmissionFamily,
} from "./families.ts";
import { readBody, stringField } from "./request.ts";

export type { PipelineDeps };

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
    return await dispatch(c, op, deps, cleanups);
  } finally {
    for (const close of cleanups) close();
  }
}

async function dispatch(
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
  deps.callers?.record({
    integrator: claims.intg ?? claims.sub ?? "unknown",
    integratorName: claims.intgName ?? claims.intg ?? "Unknown integrator",
    origin: origin ?? null,
    mode: claims.mode,
  });
  const batchId = c.req.header("x-svc-batch-id") ?? null;
  /** The body, validated by the entry's schema, with the batch id and the EIKs checked. */
  const bodyOf = async <O extends OperationSpec>(o: O): Promise<OperationBody<O>> => {
    const body = await readBody(c, o, claims);
    if (batchId !== null && !GUID.test(batchId)) {
      throw new AppError("BATCH_ID_INVALID", "X-Svc-Batch-Id must be a GUID", {
        field: "X-Svc-Batch-Id",
      });
    }
    checkEik(op, claims, body);
    return body;
  };
  // Built once the body has passed (arguments are evaluated in order), so the portal of the
  // token's mode is chosen after the body's errors, as the wire always answered.
  const r = (): FamilyRun => ({
    c,
    deps,
    claims,
    batchId,
    op,
    cleanups,
    portal: pickPortal(deps, claims.mode),
  });

  switch (op.family) {
    case "local":
      return await runLocalFamily(op, await bodyOf(op), r());
    case "batch":
      return await runBatchFamily(op, await bodyOf(op), r());
    case "submission":
      return await runSubmissionFamily(op, await bodyOf(op), r());
    case "result":
      return await runResultFamily(op, await bodyOf(op), r());
    case "report":
    case "portal_files":
      return await runReportFamily(op, await bodyOf(op), r());
  }
}

function checkEik(op: OperationSpec, claims: OperationClaims, body: unknown): void {
  if (op.scope !== "eik") return;
  if (!claims.eik) throw new AppError("TOKEN_EIK_MISMATCH", "The token carries no eik");
  const eik = typeof body === "object" && body !== null ? stringField(body, "eik") : null;
  if (eik !== null) assertEiksCovered(claims, [eik]);
}

function pickPortal(deps: AgentDeps, mode: KeyMode): PortalAdapter {
  if (mode === "test") return deps.portals.test;
  if (!deps.portals.live) {
    throw new AppError(
      "PORTAL_NOT_CONFIGURED",
      "Live filing needs the portal API settings in the agent's config",
    );
  }
  return deps.portals.live;
}
