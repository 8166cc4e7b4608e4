/**
 * The sender confirmation: batch state machine, the page and its routes.
 * @module
 */
export * from "./dialog.ts";
export * from "./manager.ts";
export * from "./page.ts";
export { formatAmount } from "./page_rows.ts";
export * from "./routes.ts";
export type { ConfirmDeps } from "./refusals.ts";
export * from "./scope.ts";
export { pageError } from "./check_texts.ts";
export * from "./follow.ts";
export { CONFIRM_ASSETS } from "./assets/mod.ts";
export { type RemoteApprovalDeps, RemoteApprovals } from "./remote_approval.ts";
