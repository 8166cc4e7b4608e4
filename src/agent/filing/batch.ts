/**
 * Folder-wide filings (`dec1_6_batch`, `vat_batch`, `etz62_batch`, `etz123_batch`;
 * interface-spec.md § typeId values: "The agent submits only the documents of listed companies
 * and marks the others skipped"). One sender confirmation covers the whole batch; the
 * companies are filed one after another; a wrong PIN stops the batch at once (no token
 * lock-out) and marks the rest failed.
 * @module
 */
import {
  AppError,
  type BatchOperation,
  type BatchResult,
  isAppError,
  type SubmissionResult,
} from "../../contract/mod.ts";
import type { PortalContext, SubmissionInput } from "../../portal/mod.ts";
import type { OperationClaims } from "../http/mod.ts";
import { displayPeriod } from "../period.ts";
import type { ConfirmSubject } from "../confirm/mod.ts";
import type { SubmissionFiles } from "../local/mod.ts";

type Item = BatchResult["items"][number];

/**
 * File the companies of a scanned folder that the token lists.
 * @param op the batch operation
 * @param body validated request (year, month, fund, …)
 * @param claims verified token (its `eiks` choose the companies)
 * @param scan documents grouped by EIK
 * @param submit files one company (journaled, idempotent)
 * @param confirm asks the user once for the sender
 * @returns the batch result (one row per EIK found)
 */
export async function runBatch(
  op: BatchOperation,
  body: Record<string, unknown>,
  claims: OperationClaims,
  scan: {
    groups: Map<string, SubmissionFiles>;
    totalScanned: number;
    problems: { path: string; error: string; errorCode: string }[];
  },
  submit: (input: SubmissionInput, ctx: PortalContext) => Promise<SubmissionResult>,
  confirm: (
    s: Pick<ConfirmSubject, "summary" | "eiks" | "period" | "files" | "documents">,
  ) => Promise<PortalContext>,
): Promise<BatchResult> {
  const listed = new Set(claims.eiks ?? []);
  const groups = [...scan.groups.entries()].sort(([a], [b]) => a.localeCompare(b));
  const chosen = groups.filter(([eik]) => listed.has(eik));
  const items: Item[] = [];
  // Asked even when no listed company was found: the scan read the user's disk.
  const ctx: PortalContext = await confirm({
    summary: `${op.summary} (${chosen.length})`,
    eiks: chosen.map(([e]) => e),
    period: displayPeriod(body),
    files: chosen.flatMap(([, g]) => g.names),
    documents: chosen.reduce((n, [, g]) => n + g.files.length, 0),
  });
  let stop: AppError | null = null;
  for (const [eik, g] of groups) {
    if (!listed.has(eik)) {
      items.push({
        eik,
        files: g.names,
        outcome: "skipped",
        result: null,
        errorCode: null,
        error: null,
      });
      continue;
    }
    if (g.error) {
      items.push({
        eik,
        files: g.names,
        outcome: "failed",
        result: null,
        errorCode: g.error.code,
        error: g.error.message,
      });
      continue;
    }
    if (stop) {
      items.push({
        eik,
        files: g.names,
        outcome: "failed",
        result: null,
        errorCode: stop.code,
        error: stop.message,
      });
      continue;
    }
    try {
      const request: Record<string, unknown> = { eik };
      for (const k of ["year", "month", "fund"]) if (body[k] !== undefined) request[k] = body[k];
      const result = await submit({ kind: op.kind, eik, request, files: g.files }, ctx);
      items.push({
        eik,
        files: g.names,
        outcome: result.success ? "submitted" : "failed",
        result,
        errorCode: result.success ? null : "PORTAL_REJECTED",
        error: result.success ? null : result.errorMessage,
      });
    } catch (e) {
      const err = isAppError(e)
        ? e
        : new AppError("AGENT_INTERNAL_ERROR", "Unexpected failure", undefined, e);
      if (err.code === "PIN_INCORRECT" || err.code === "PIN_LOCKED") stop = err;
      items.push({
        eik,
        files: g.names,
        outcome: "failed",
        result: null,
        errorCode: err.code,
        error: err.message,
      });
    }
  }
  const submitted = items.filter((i) => i.outcome === "submitted").length;
  const failed = items.filter((i) => i.outcome === "failed").length;
  const skipped = items.length - submitted - failed;
  const problems = scan.problems.map((p) => `${p.path}: ${p.error}`);
  return {
    status: failed === 0 ? "ok" : submitted > 0 ? "partial" : chosen.length > 0 ? "error" : "ok",
    items,
    submitted,
    skipped,
    failed,
    totalScanned: scan.totalScanned,
    error:
      [...(failed > 0 ? [`${failed} of ${chosen.length} companies failed`] : []), ...problems].join(
        " ; ",
      ) ||
      null,
  };
}
