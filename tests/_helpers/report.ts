/**
 * Call a portal's `report()` the way the agent does: look the report operation up in the
 * registry, validate the body once with its request schema (VALIDATION_FAILED otherwise), and
 * pass the entry and the parsed request. A typeId that is no report operation is passed as an
 * entry without a generator, which every portal must refuse (PORTAL_OPERATION_UNSUPPORTED).
 * @module
 */
import { validationError } from "../../src/contract/errors.ts";
import { type AnyReportOperation, REPORT_OPERATIONS } from "../../src/contract/operations.ts";
import type { PortalAdapter, PortalContext } from "../../src/portal/adapter.ts";

/**
 * Run a report by typeId.
 * @returns the portal's answer (its result schema)
 * @throws AppError VALIDATION_FAILED for a body the schema refuses; the portal's errors
 */
export function runReport(
  portal: PortalAdapter,
  typeId: string,
  body: unknown,
  ctx: PortalContext,
): Promise<unknown> {
  const op = REPORT_OPERATIONS.find((o) => o.typeId === typeId);
  if (!op) {
    const unknownOp = { typeId, answer: typeId, dayStable: false } as unknown as AnyReportOperation;
    return portal.report(unknownOp, {} as never, ctx);
  }
  const parsed = op.request.safeParse(body);
  if (!parsed.success) return Promise.reject(validationError(parsed.error.issues));
  return portal.report(op, parsed.data, ctx);
}
