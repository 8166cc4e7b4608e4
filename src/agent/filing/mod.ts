/**
 * Filing: the submission journal (write-ahead, idempotency, reconciliation) and folder-wide batches.
 * @module
 */
export * from "./batch.ts";
export * from "./filing.ts";
export * from "./journal.ts";
export * from "./journal_export.ts";
export * from "./protocols.ts";
export * from "./batch_board.ts";
export * from "./protocol_fetch.ts";
export { BatchLog, type BatchRecord } from "./journal_batches.ts";
