/**
 * The operation registry: every typeId of the agent (`POST /api/v1/operations/<typeId>`), with
 * its request and result schema, the token scope it needs (`eik`, `eiks` or none), whether it
 * takes local input, and whether it acts on the portal in a sender's name (and so goes through
 * the sender confirmation). Implements interface-spec.md § typeId values and § Authentication
 * 4–5; the typeIds the spec does not name follow the project's issue #2.
 * @module
 */
import type { z } from "zod";
import * as files from "./files.ts";
import * as reports from "./reports.ts";
import * as sub from "./submissions.ts";

/** Token scope: which EIK claim the token must carry. */
export type TokenScope = "eik" | "eiks" | "none";
/** Local input: none, optional (path header or inline), or required. */
export type LocalInput = "none" | "optional" | "required";
/** Operation families, used to dispatch handlers. */
export type Family = "submission" | "result" | "report" | "portal_files" | "local" | "batch";
/** The submission kinds (one per submission typeId). */
export type SubmissionKind =
  | "vat"
  | "dec1_6"
  | "dec731"
  | "dec736"
  | "etz62"
  | "etz123"
  | "high_fisc_risk"
  | "odit";

/** One registry entry. */
export interface OperationSpec {
  readonly typeId: string;
  readonly summary: string;
  readonly family: Family;
  readonly request: z.ZodTypeAny;
  readonly result: z.ZodTypeAny;
  readonly scope: TokenScope;
  readonly localInput: LocalInput;
  /** Acts on the portal in a sender's name: needs the sender confirmation. */
  readonly needsSender: boolean;
  /** For submissions and result retrievals: the submission kind. */
  readonly kind?: SubmissionKind;
}

const op = (
  typeId: string,
  family: Family,
  summary: string,
  request: z.ZodTypeAny,
  result: z.ZodTypeAny,
  scope: TokenScope,
  localInput: LocalInput,
  needsSender: boolean,
  kind?: SubmissionKind,
): OperationSpec => ({
  typeId,
  family,
  summary,
  request,
  result,
  scope,
  localInput,
  needsSender,
  ...(kind ? { kind } : {}),
});

const submission = (
  kind: SubmissionKind,
  summary: string,
  request: z.ZodTypeAny,
  local: LocalInput,
) => op(kind, "submission", summary, request, sub.SubmissionResult, "eik", local, true, kind);
const result = (kind: SubmissionKind, request: z.ZodTypeAny) =>
  op(
    `${kind}_result`,
    "result",
    `Result of a ${kind} submission`,
    request,
    sub.SubmissionResultPayload,
    "eik",
    "none",
    true,
    kind,
  );

/** All 32 operations, in the order the docs list them. */
export const OPERATIONS: readonly OperationSpec[] = [
  submission(
    "vat",
    "Submit a VAT return (DEKLAR, POKUPKI, PRODAGBI, VIES)",
    sub.VatRequest,
    "optional",
  ),
  submission("dec1_6", "Submit payroll declarations 1 and 6", sub.Dec16Request, "required"),
  submission("dec731", "Submit an annual tax return (form 731)", sub.Dec731Request, "optional"),
  submission("dec736", "Submit an annual tax return (form 736)", sub.Dec736Request, "optional"),
  submission(
    "etz62",
    "Submit an employment notice (Labour Code art. 62)",
    sub.Etz62Request,
    "optional",
  ),
  submission(
    "etz123",
    "Submit a change-of-employer notice (art. 123)",
    sub.Etz123Request,
    "optional",
  ),
  submission(
    "high_fisc_risk",
    "Submit a high fiscal risk goods notification",
    sub.HighFiscRiskRequest,
    "optional",
  ),
  submission("odit", "Submit an audit file", sub.OditRequest, "optional"),
  result("vat", sub.VatResultRequest),
  result("dec1_6", sub.Dec16ResultRequest),
  result("dec731", sub.Dec731ResultRequest),
  result("dec736", sub.Dec736ResultRequest),
  result("etz62", sub.Etz62ResultRequest),
  result("etz123", sub.Etz123ResultRequest),
  result("high_fisc_risk", sub.HighFiscRiskResultRequest),
  result("odit", sub.OditResultRequest),
  op(
    "debt_payments",
    "report",
    "Debts and payments by year and type",
    reports.DebtPaymentsRequest,
    reports.DebtPaymentsResult,
    "eik",
    "none",
    true,
  ),
  op(
    "debt_payments_types",
    "report",
    "Reference list of debt and payment types (global)",
    reports.DebtPaymentsTypesRequest,
    reports.DebtPaymentsTypesResult,
    "none",
    "none",
    false,
  ),
  op(
    "due_amounts",
    "report",
    "Due amounts with outstanding totals",
    reports.DueAmountsRequest,
    reports.DueAmountsResult,
    "eik",
    "none",
    true,
  ),
  op(
    "taxpayers",
    "report",
    "Taxpayers the sender's certificate holds a power of attorney for",
    reports.TaxpayersRequest,
    reports.TaxpayersResult,
    "none",
    "none",
    true,
  ),
  op(
    "nap_catalog",
    "report",
    "Catalog of portal service links",
    reports.NapCatalogRequest,
    reports.NapCatalogResult,
    "none",
    "none",
    false,
  ),
  op(
    "vat_portal_files",
    "portal_files",
    "Files of a VAT submission downloaded from the portal",
    reports.VatPortalFilesRequest,
    reports.VatPortalFilesResult,
    "eik",
    "none",
    true,
  ),
  op(
    "dec1_6_portal_files",
    "portal_files",
    "Files of a D1/D6 submission downloaded from the portal",
    reports.Dec16PortalFilesRequest,
    reports.Dec16PortalFilesResult,
    "eik",
    "none",
    true,
  ),
  op(
    "vat_monthly_files",
    "portal_files",
    "The month's VAT submissions with their parsed files",
    reports.VatMonthlyFilesRequest,
    reports.VatMonthlyFilesResult,
    "eik",
    "none",
    true,
  ),
  op(
    "dec1_files_scan",
    "local",
    "Find D1 files (EMPL2021.TXT) of a period in a folder tree",
    files.Dec1FilesScanRequest,
    files.Dec1FilesScanResult,
    "none",
    "required",
    false,
  ),
  op(
    "dec6_files_scan",
    "local",
    "Find D6 files (NRA62007*.TXT) of a period in a folder tree",
    files.Dec6FilesScanRequest,
    files.Dec6FilesScanResult,
    "none",
    "required",
    false,
  ),
  op(
    "vat_files_scan",
    "local",
    "Find VAT returns (DEKLAR.TXT) of a period in a folder tree",
    files.VatFilesScanRequest,
    files.VatFilesScanResult,
    "none",
    "required",
    false,
  ),
  op(
    "vat_files_parse",
    "local",
    "Parse and cross-check the VAT files of one folder",
    files.VatFilesParseRequest,
    files.VatFilesParseResult,
    "none",
    "required",
    false,
  ),
  op(
    "dec1_6_batch",
    "batch",
    "File the D1/D6 declarations of every listed company found in a folder",
    files.PeriodBatchRequest,
    files.BatchResult,
    "eiks",
    "required",
    true,
    "dec1_6",
  ),
  op(
    "vat_batch",
    "batch",
    "File the VAT returns of every listed company found in a folder",
    files.PeriodBatchRequest,
    files.BatchResult,
    "eiks",
    "required",
    true,
    "vat",
  ),
  op(
    "etz62_batch",
    "batch",
    "File the art. 62 employment notices of every listed company found in a folder",
    files.NoticeBatchRequest,
    files.BatchResult,
    "eiks",
    "required",
    true,
    "etz62",
  ),
  op(
    "etz123_batch",
    "batch",
    "File the art. 123 notices of every listed company found in a folder",
    files.NoticeBatchRequest,
    files.BatchResult,
    "eiks",
    "required",
    true,
    "etz123",
  ),
];

const BY_ID: ReadonlyMap<string, OperationSpec> = new Map(OPERATIONS.map((o) => [o.typeId, o]));

/**
 * Look up an operation by typeId.
 * @param typeId the path segment of `POST /api/v1/operations/<typeId>`
 * @returns the registry entry, or undefined for an unknown typeId
 */
export function getOperation(typeId: string): OperationSpec | undefined {
  return BY_ID.get(typeId);
}

/** All typeIds. */
export const TYPE_IDS: readonly string[] = OPERATIONS.map((o) => o.typeId);
