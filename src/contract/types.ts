/**
 * The TypeScript types of the results, derived from the operation registry
 * (src/contract/operations.ts): nothing here names a schema, so a new operation needs no line
 * here. A report's result is `ReportResultOf<"generatorName">` (and an item of its list
 * `ReportItemOf<…>`); the submission, result and batch families share one result each.
 * @module
 */
import type { z } from "zod";
import type { OperationOf, ReportAnswer, ReportResultOf } from "./operations.ts";

/** What a submission answers (`POST /api/v1/operations/vat` and the other submissions). */
export type SubmissionResult = z.output<OperationOf<"submission">["result"]>;
/** What the result of an earlier submission answers (`…_result`). */
export type SubmissionResultPayload = z.output<OperationOf<"result">["result"]>;
/** What a folder-wide batch answers (`…_batch`). */
export type BatchResult = z.output<OperationOf<"batch">["result"]>;
/** One element of a report's list (the `items` of its result), by its generator's name. */
export type ReportItemOf<A extends ReportAnswer> = ReportResultOf<A> extends
  { readonly items: readonly (infer I)[] } ? I : never;
