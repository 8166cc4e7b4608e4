/**
 * The operation registry: every typeId of the agent (`POST /api/v1/operations/<typeId>`), with
 * its request and result schema, the token scope it needs (`eik`, `eiks` or none), whether it
 * takes local input, whether it acts on the portal in a sender's name (and so goes through the
 * sender confirmation) — and how the agent runs it: its family handler, which local reader or
 * scan it uses, how a folder-wide batch groups the files, and which generator of the test
 * portal answers it. This is the ONE place that knows each operation: the agent and the portal
 * adapters dispatch on these fields, never on typeId strings (docs/architecture.md § Adding an
 * operation). Implements interface-spec.md § typeId values and § Authentication 4–5; the
 * typeIds the spec does not name follow the project's issue #2.
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
/** Operation families: each has one handler in the agent (src/agent/operations/). */
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

/**
 * How a submission reads its files (src/agent/local/submission_files.ts): a VAT folder
 * (DEKLAR, POKUPKI, PRODAGBI, VIES), a D1/D6 pair (`pathFields` or a folder), or one file.
 */
export type SubmissionReader = "vat_folder" | "payroll_pair" | "single_file";
/** NRA file kinds a scan looks for (src/formats/detect.ts). */
export type ScanKind = "d1" | "d6" | "deklar";
/** What a `local` operation runs on its folder (src/agent/local/scans.ts). */
export type LocalRun =
  | { readonly run: "scan"; readonly fileKind: ScanKind; readonly folderField: "rootFolder" }
  | { readonly run: "vat_parse"; readonly folderField: "directory" };
/** How a folder-wide batch groups the files it finds (src/agent/local/batch_scan.ts). */
export type BatchGrouping =
  | { readonly group: "vat_folders" }
  | { readonly group: "payroll_pairs" }
  | { readonly group: "xml_notices"; readonly form: "62" | "123" };
/** The test portal's generator of a report (src/mock/answers.ts). */
export type ReportAnswer =
  | "debtPayments"
  | "debtPaymentsTypes"
  | "dueAmounts"
  | "taxpayers"
  | "napCatalog"
  | "vatPortalFiles"
  | "dec16PortalFiles"
  | "vatMonthlyFiles";

/** What every registry entry has. */
interface Common<T extends string, Req extends z.ZodType, Res extends z.ZodType> {
  readonly typeId: T;
  readonly summary: string;
  readonly request: Req;
  readonly result: Res;
  readonly scope: TokenScope;
  readonly localInput: LocalInput;
  /** Acts on the portal in a sender's name: needs the sender confirmation. */
  readonly needsSender: boolean;
}

/** A declaration filed with the portal (journaled, signed in live mode). */
export interface SubmissionOperation<
  T extends string = string,
  Req extends z.ZodType = z.ZodType,
> extends Common<T, Req, typeof sub.SubmissionResult> {
  readonly family: "submission";
  readonly kind: SubmissionKind;
  readonly reader: SubmissionReader;
  /** Body fields naming the files' paths (besides X-Svc-File-Path and inline input). */
  readonly pathFields: readonly string[];
}
/** The portal's result of an earlier submission. */
export interface ResultOperation<T extends string = string, Req extends z.ZodType = z.ZodType>
  extends Common<T, Req, typeof sub.SubmissionResultPayload> {
  readonly family: "result";
  readonly kind: SubmissionKind;
}
/** A report or the portal's files of a period, answered by the portal. */
export interface ReportOperation<
  T extends string = string,
  A extends ReportAnswer = ReportAnswer,
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
> extends Common<T, Req, Res> {
  readonly family: "report" | "portal_files";
  /** The test portal's generator. */
  readonly answer: A;
  /** The answer depends only on the request and the calendar day (the test portal memoizes). */
  readonly dayStable: boolean;
}
/** A read of the user's disk, answered by the agent itself. */
export interface LocalOperation<T extends string = string, Req extends z.ZodType = z.ZodType>
  extends Common<T, Req, z.ZodType> {
  readonly family: "local";
  readonly local: LocalRun;
}
/** A folder-wide filing: one submission per listed company found in the folder. */
export interface BatchOperation<T extends string = string, Req extends z.ZodType = z.ZodType>
  extends Common<T, Req, typeof files.BatchResult> {
  readonly family: "batch";
  readonly kind: SubmissionKind;
  readonly grouping: BatchGrouping;
}

const submission = <K extends SubmissionKind, Req extends z.ZodType>(
  kind: K,
  summary: string,
  request: Req,
  localInput: "optional" | "required",
  reader: SubmissionReader,
  pathFields: readonly string[] = [],
): SubmissionOperation<K, Req> => ({
  typeId: kind,
  family: "submission",
  kind,
  summary,
  request,
  result: sub.SubmissionResult,
  scope: "eik",
  localInput,
  needsSender: true,
  reader,
  pathFields,
});

const result = <K extends SubmissionKind, Req extends z.ZodType>(
  kind: K,
  request: Req,
): ResultOperation<`${K}_result`, Req> => ({
  typeId: `${kind}_result`,
  family: "result",
  kind,
  summary: `Result of a ${kind} submission`,
  request,
  result: sub.SubmissionResultPayload,
  scope: "eik",
  localInput: "none",
  needsSender: true,
});

const report = <
  T extends string,
  A extends ReportAnswer,
  Req extends z.ZodType,
  Res extends z.ZodType,
>(
  typeId: T,
  family: "report" | "portal_files",
  summary: string,
  io: { request: Req; result: Res },
  scope: TokenScope,
  needsSender: boolean,
  answer: A,
  dayStable = false,
): ReportOperation<T, A, Req, Res> => ({
  typeId,
  family,
  summary,
  ...io,
  scope,
  localInput: "none",
  needsSender,
  answer,
  dayStable,
});

const local = <T extends string, Req extends z.ZodType>(
  typeId: T,
  summary: string,
  io: { request: Req; result: z.ZodType },
  run: LocalRun,
): LocalOperation<T, Req> => ({
  typeId,
  family: "local",
  summary,
  ...io,
  scope: "none",
  localInput: "required",
  needsSender: false,
  local: run,
});

const batch = <T extends string, Req extends z.ZodType>(
  typeId: T,
  kind: SubmissionKind,
  summary: string,
  request: Req,
  grouping: BatchGrouping,
): BatchOperation<T, Req> => ({
  typeId,
  family: "batch",
  kind,
  summary,
  request,
  result: files.BatchResult,
  scope: "eiks",
  localInput: "required",
  needsSender: true,
  grouping,
});

/** A folder-wide filing of the XML employment notices of one form (art. 62 or art. 123). */
const noticeBatch = <F extends "62" | "123">(form: F, summary: string) =>
  batch(`etz${form}_batch`, `etz${form}`, summary, files.NoticeBatchRequest, {
    group: "xml_notices",
    form,
  });

const scan = (fileKind: ScanKind): LocalRun => ({
  run: "scan",
  fileKind,
  folderField: "rootFolder",
});

/** The report operations (their answers are typed per generator, see {@link ReportRequestOf}). */
export const REPORT_OPERATIONS = [
  report(
    "debt_payments",
    "report",
    "Debts and payments by year and type",
    { request: reports.DebtPaymentsRequest, result: reports.DebtPaymentsResult },
    "eik",
    true,
    "debtPayments",
    true,
  ),
  report(
    "debt_payments_types",
    "report",
    "Reference list of debt and payment types (global)",
    { request: reports.DebtPaymentsTypesRequest, result: reports.DebtPaymentsTypesResult },
    "none",
    false,
    "debtPaymentsTypes",
  ),
  report(
    "due_amounts",
    "report",
    "Due amounts with outstanding totals",
    { request: reports.DueAmountsRequest, result: reports.DueAmountsResult },
    "eik",
    true,
    "dueAmounts",
    true,
  ),
  report(
    "taxpayers",
    "report",
    "Taxpayers the sender's certificate holds a power of attorney for",
    { request: reports.TaxpayersRequest, result: reports.TaxpayersResult },
    "none",
    true,
    "taxpayers",
  ),
  report(
    "nap_catalog",
    "report",
    "Catalog of portal service links",
    { request: reports.NapCatalogRequest, result: reports.NapCatalogResult },
    "none",
    false,
    "napCatalog",
  ),
  report(
    "vat_portal_files",
    "portal_files",
    "Files of a VAT submission downloaded from the portal",
    { request: reports.VatPortalFilesRequest, result: reports.VatPortalFilesResult },
    "eik",
    true,
    "vatPortalFiles",
  ),
  report(
    "dec1_6_portal_files",
    "portal_files",
    "Files of a D1/D6 submission downloaded from the portal",
    { request: reports.Dec16PortalFilesRequest, result: reports.Dec16PortalFilesResult },
    "eik",
    true,
    "dec16PortalFiles",
  ),
  report(
    "vat_monthly_files",
    "portal_files",
    "The month's VAT submissions with their parsed files",
    { request: reports.VatMonthlyFilesRequest, result: reports.VatMonthlyFilesResult },
    "eik",
    true,
    "vatMonthlyFiles",
  ),
] as const;

/** A report operation of the registry (the precise type of one entry). */
export type AnyReportOperation = typeof REPORT_OPERATIONS[number];
/** The report operation a generator answers. */
export type ReportOperationOf<A extends ReportAnswer> = Extract<AnyReportOperation, { answer: A }>;
/** The validated request (zod output) a report generator receives. */
export type ReportRequestOf<A extends ReportAnswer> = z.output<ReportOperationOf<A>["request"]>;
/** The result a report generator returns. */
export type ReportResultOf<A extends ReportAnswer> = z.output<ReportOperationOf<A>["result"]>;

/** All 32 operations, in the order the docs list them. */
export const OPERATIONS = [
  submission(
    "vat",
    "Submit a VAT return (DEKLAR, POKUPKI, PRODAGBI, VIES)",
    sub.VatRequest,
    "optional",
    "vat_folder",
  ),
  submission(
    "dec1_6",
    "Submit payroll declarations 1 and 6",
    sub.Dec16Request,
    "required",
    "payroll_pair",
    ["dec1FilePath", "dec6FilePath"],
  ),
  submission(
    "dec731",
    "Submit an annual tax return (form 731)",
    sub.Dec731Request,
    "optional",
    "single_file",
  ),
  submission(
    "dec736",
    "Submit an annual tax return (form 736)",
    sub.Dec736Request,
    "optional",
    "single_file",
  ),
  submission(
    "etz62",
    "Submit an employment notice (Labour Code art. 62)",
    sub.Etz62Request,
    "optional",
    "single_file",
  ),
  submission(
    "etz123",
    "Submit a change-of-employer notice (art. 123)",
    sub.Etz123Request,
    "optional",
    "single_file",
  ),
  submission(
    "high_fisc_risk",
    "Submit a high fiscal risk goods notification",
    sub.HighFiscRiskRequest,
    "optional",
    "single_file",
  ),
  submission("odit", "Submit an audit file", sub.OditRequest, "optional", "single_file"),
  result("vat", sub.VatResultRequest),
  result("dec1_6", sub.Dec16ResultRequest),
  result("dec731", sub.Dec731ResultRequest),
  result("dec736", sub.Dec736ResultRequest),
  result("etz62", sub.Etz62ResultRequest),
  result("etz123", sub.Etz123ResultRequest),
  result("high_fisc_risk", sub.HighFiscRiskResultRequest),
  result("odit", sub.OditResultRequest),
  ...REPORT_OPERATIONS,
  local(
    "dec1_files_scan",
    "Find D1 files (EMPL2021.TXT) of a period in a folder tree",
    { request: files.Dec1FilesScanRequest, result: files.Dec1FilesScanResult },
    scan("d1"),
  ),
  local(
    "dec6_files_scan",
    "Find D6 files (NRA62007*.TXT) of a period in a folder tree",
    { request: files.Dec6FilesScanRequest, result: files.Dec6FilesScanResult },
    scan("d6"),
  ),
  local(
    "vat_files_scan",
    "Find VAT returns (DEKLAR.TXT) of a period in a folder tree",
    { request: files.VatFilesScanRequest, result: files.VatFilesScanResult },
    scan("deklar"),
  ),
  local(
    "vat_files_parse",
    "Parse and cross-check the VAT files of one folder",
    { request: files.VatFilesParseRequest, result: files.VatFilesParseResult },
    { run: "vat_parse", folderField: "directory" },
  ),
  batch(
    "dec1_6_batch",
    "dec1_6",
    "File the D1/D6 declarations of every listed company found in a folder",
    files.PeriodBatchRequest,
    { group: "payroll_pairs" },
  ),
  batch(
    "vat_batch",
    "vat",
    "File the VAT returns of every listed company found in a folder",
    files.PeriodBatchRequest,
    { group: "vat_folders" },
  ),
  noticeBatch(
    "62",
    "File the art. 62 employment notices of every listed company found in a folder",
  ),
  noticeBatch("123", "File the art. 123 notices of every listed company found in a folder"),
] as const;

/**
 * One registry entry: the precise union of the 32 entries, so that narrowing on `family`
 * keeps each entry's request and result schema (the body is typed from the route on).
 */
export type OperationSpec = typeof OPERATIONS[number];

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
