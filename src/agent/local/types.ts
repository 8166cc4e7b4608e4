/**
 * Local file operations the agent performs for operations with local input (scans, VAT parse,
 * reading the files of a submission, folder-wide batches). The implementation lives in
 * `agent/local/`; this interface keeps `app.ts` independent of it.
 * @module
 */
import type {
  BatchOperation,
  ErrorCode,
  LocalOperation,
  OperationBody,
  OperationOf,
  SubmissionOperation,
} from "../../contract/mod.ts";
import type { SubmissionFile } from "../../portal/mod.ts";

/** The body of a `local` operation (a scan or the VAT parse), as its request schema produced it. */
export type LocalBody = OperationBody<OperationOf<"local">>;
/** The body of a folder scan (`local: { run: "scan" }`): the local bodies with a period. */
export type ScanBody = Extract<LocalBody, { readonly year: number }>;
/** The body of a submission, as its request schema produced it. */
export type SubmissionBody = OperationBody<OperationOf<"submission">>;
/** The body of a folder-wide filing, as its request schema produced it. */
export type BatchBody = OperationBody<OperationOf<"batch">>;

/** Where the local input comes from. */
export interface LocalSource {
  /** Path from the body field or X-Svc-File-Path. */
  readonly path: string | null;
  readonly inlineFile?: { name: string; contentBase64: string };
  readonly inlineDir?: { name?: string; files: { path: string; contentBase64: string }[] };
}

/** A company's name as a file states it (DEKLAR.TXT 00-02, D6 field 2). */
export interface CompanyName {
  readonly eik: string;
  readonly name: string;
  /** Where the name comes from: the files, or the portal of the token's mode (test profile). */
  readonly source: "file" | "portal";
}

/** The currency of a tax period's amounts: the files carry none, their period decides (BGN up
 * to 2025-12, EUR from 2026-01, when Bulgaria adopted the euro). */
export type PeriodCurrency = "BGN" | "EUR";

/** What a VAT return's files declare (DEKLAR.TXT and the two ledgers). */
export interface VatFigures {
  readonly kind: "vat";
  readonly eik: string;
  /** Tax period "YYYYMM" (DEKLAR 00-03), or null when blank. */
  readonly period: string | null;
  /** Of the period; null without one. */
  readonly currency: PeriodCurrency | null;
  /** VAT payable, DEKLAR 01-50 (null when blank). */
  readonly payable: number | null;
  /** VAT refundable, DEKLAR 01-60 (null when blank). */
  readonly refundable: number | null;
  /** Records of the purchase ledger, POKUPKI.TXT. */
  readonly purchaseRecords: number;
  /** Records of the sales ledger, PRODAGBI.TXT. */
  readonly salesRecords: number;
}

/** What declarations 1 and 6 declare (either may be absent: its figures are then null). */
export interface PayrollFigures {
  readonly kind: "payroll";
  readonly eik: string;
  /** Period "YYYYMM" ("YYYY13": the annual D6), or null. */
  readonly period: string | null;
  readonly currency: PeriodCurrency | null;
  /** Insured persons of the D1 (distinct EGN/LNCh), or null without a D1. */
  readonly employees: number | null;
  /** D1 insurable income (field 34), summed; null without a D1. */
  readonly insurableIncome: number | null;
  /** D6 social, health and pension-fund contributions and GVRS (each block's DOO, teachers'
   * fund, DZPO UPF and PPF, health, GVRS), summed; null without a D6. */
  readonly contributions: number | null;
  /** D6 income tax (each block's tax amounts 1 and 2), summed; null without a D6. */
  readonly incomeTax: number | null;
}

/** What the files of one declaration declare, shown on the confirmation page. */
export type FileFigures = VatFigures | PayrollFigures;

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
  /** Company names the files state. */
  readonly companies?: readonly CompanyName[];
  /** The amounts and counts the files declare (VAT return, D1/D6). */
  readonly figures?: FileFigures;
  /** Set when the files are unusable (a batch then marks the company failed, unsent). */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/** Told how far a folder scan is: files examined (read) of the files found. */
export type ScanProgress = (examined: number, found: number) => void;

/** Local file operations. */
export interface LocalOps {
  /** Run a `local` family operation (scans, vat_files_parse). */
  runLocal(
    op: LocalOperation,
    body: LocalBody,
    source: LocalSource,
    progress?: ScanProgress,
  ): Promise<Record<string, unknown>>;
  /** Read and check the files of a submission. */
  readSubmission(
    op: SubmissionOperation,
    body: SubmissionBody,
    source: LocalSource,
  ): Promise<SubmissionFiles>;
  /** Scan a folder for a folder-wide batch: documents grouped by EIK. */
  scanBatch(
    op: BatchOperation,
    body: BatchBody,
    source: LocalSource,
  ): Promise<
    {
      groups: Map<string, SubmissionFiles>;
      totalScanned: number;
      problems: { path: string; error: string; errorCode: ErrorCode }[];
    }
  >;
}
