/**
 * Local file operations the agent performs for operations with local input (scans, VAT parse,
 * reading the files of a submission, folder-wide batches). The implementation lives in
 * `agent/local/`; this interface keeps `app.ts` independent of it.
 * @module
 */
import type { BatchOperation, LocalOperation, SubmissionOperation } from "../../contract/mod.ts";
import type { SubmissionFile } from "../../portal/mod.ts";

/** Where the local input comes from. */
export interface LocalSource {
  /** Path from the body field or X-Svc-File-Path. */
  readonly path: string | null;
  readonly inlineFile?: { name: string; contentBase64: string };
  readonly inlineDir?: { name?: string; files: { path: string; contentBase64: string }[] };
}

/** The files of one submission, with what was learnt from them. */
export interface SubmissionFiles {
  readonly files: SubmissionFile[];
  /** EIKs found in the files (for the token check). */
  readonly eiks: string[];
  /** Tax period of the files ("YYYYMM"), when they have one. */
  readonly period: string | null;
  /** Display names (full paths) for the confirmation page. */
  readonly names: string[];
  /** Cross-check warnings (not fatal), in Bulgarian and English for the confirmation page. */
  readonly warnings?: readonly { readonly bg: string; readonly en: string }[];
  /** Set when the files are unusable (a batch then marks the company failed, unsent). */
  readonly error?: { readonly code: string; readonly message: string };
}

/** Local file operations. */
export interface LocalOps {
  /** Run a `local` family operation (scans, vat_files_parse). */
  runLocal(
    op: LocalOperation,
    body: Readonly<Record<string, unknown>>,
    source: LocalSource,
  ): Promise<Record<string, unknown>>;
  /** Read and check the files of a submission. */
  readSubmission(
    op: SubmissionOperation,
    body: Readonly<Record<string, unknown>>,
    source: LocalSource,
  ): Promise<SubmissionFiles>;
  /** Scan a folder for a folder-wide batch: documents grouped by EIK. */
  scanBatch(
    op: BatchOperation,
    body: Readonly<Record<string, unknown>>,
    source: LocalSource,
  ): Promise<
    {
      groups: Map<string, SubmissionFiles>;
      totalScanned: number;
      problems: { path: string; error: string; errorCode: string }[];
    }
  >;
}
