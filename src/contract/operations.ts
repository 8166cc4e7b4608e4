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
import {
  batch,
  type DeclarationName,
  local,
  noticeBatch,
  report,
  type ReportAnswer,
  result,
  scan,
  submission,
} from "./operation_spec.ts";
import * as reports from "./reports.ts";
import * as sub from "./submissions.ts";

export * from "./operation_spec.ts";

/** The report operations (their answers are typed per generator, see {@link ReportRequestOf}). */
export const REPORT_OPERATIONS = [
  report(
    "debt_payments",
    { bg: "Задължения и плащания", en: "Debts and payments" },
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
    { bg: "Видове задължения и плащания", en: "Types of debts and payments" },
    "report",
    "Reference list of debt and payment types (global)",
    { request: reports.DebtPaymentsTypesRequest, result: reports.DebtPaymentsTypesResult },
    "none",
    false,
    "debtPaymentsTypes",
  ),
  report(
    "due_amounts",
    { bg: "Дължими суми", en: "Amounts due" },
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
    { bg: "Упълномощители по пълномощно", en: "Taxpayers you represent by power of attorney" },
    "report",
    "Taxpayers the sender's certificate holds a power of attorney for",
    { request: reports.TaxpayersRequest, result: reports.TaxpayersResult },
    "none",
    true,
    "taxpayers",
  ),
  report(
    "nap_catalog",
    { bg: "Каталог на електронните услуги на НАП", en: "NRA e-services catalogue" },
    "report",
    "Catalog of portal service links",
    { request: reports.NapCatalogRequest, result: reports.NapCatalogResult },
    "none",
    false,
    "napCatalog",
  ),
  report(
    "vat_portal_files",
    { bg: "Файлове на подадена справка-декларация по ЗДДС", en: "Files of a filed VAT return" },
    "portal_files",
    "Files of a VAT submission downloaded from the portal",
    { request: reports.VatPortalFilesRequest, result: reports.VatPortalFilesResult },
    "eik",
    true,
    "vatPortalFiles",
  ),
  report(
    "dec1_6_portal_files",
    {
      bg: "Файлове на подадени декларации обр. 1 и 6",
      en: "Files of filed declarations form 1 and 6",
    },
    "portal_files",
    "Files of a D1/D6 submission downloaded from the portal",
    { request: reports.Dec16PortalFilesRequest, result: reports.Dec16PortalFilesResult },
    "eik",
    true,
    "dec16PortalFiles",
  ),
  report(
    "vat_monthly_files",
    { bg: "Подадени справки-декларации по ЗДДС за месеца", en: "VAT returns filed for the month" },
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

/** The folder scans: [typeId, NRA file kind, request, result, summary, name bg, name en]. */
// deno-fmt-ignore
const SCAN_OPERATIONS = ([
  ["dec1_files_scan", "d1", files.Dec1FilesScanRequest, files.Dec1FilesScanResult, "Find D1 files (EMPL2021.TXT) of a period in a folder tree", "Търсене на декларации обр. 1 в папка", "Find declarations form 1 in a folder"],
  ["dec6_files_scan", "d6", files.Dec6FilesScanRequest, files.Dec6FilesScanResult, "Find D6 files (NRA62007*.TXT) of a period in a folder tree", "Търсене на декларации обр. 6 в папка", "Find declarations form 6 in a folder"],
  ["vat_files_scan", "deklar", files.VatFilesScanRequest, files.VatFilesScanResult, "Find VAT returns (DEKLAR.TXT) of a period in a folder tree", "Търсене на справки-декларации по ЗДДС в папка", "Find VAT returns in a folder"],
] as const).map(([typeId, kind, request, result, summary, bg, en]) =>
  local(typeId, { bg, en }, summary, { request, result }, scan(kind))
);

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
  ...SCAN_OPERATIONS,
  local(
    "vat_files_parse",
    {
      bg: "Проверка на файловете на справка-декларация по ЗДДС",
      en: "Check the files of a VAT return",
    },
    "Parse and cross-check the VAT files of one folder",
    { request: files.VatFilesParseRequest, result: files.VatFilesParseResult },
    { run: "vat_parse", folderField: "directory" },
  ),
  batch(
    "dec1_6_batch",
    "dec1_6",
    {
      bg: "Декларации обр. 1 и 6 на няколко фирми",
      en: "Declarations form 1 and 6 of several companies",
    },
    "File the D1/D6 declarations of every listed company found in a folder",
    files.PeriodBatchRequest,
    { group: "payroll_pairs" },
  ),
  batch(
    "vat_batch",
    "vat",
    { bg: "Справки-декларации по ЗДДС на няколко фирми", en: "VAT returns of several companies" },
    "File the VAT returns of every listed company found in a folder",
    files.PeriodBatchRequest,
    { group: "vat_folders" },
  ),
  noticeBatch(
    "62",
    {
      bg: "Уведомления по чл. 62 КТ на няколко фирми",
      en: "Employment contract notices (art. 62) of several companies",
    },
    "File the art. 62 employment notices of every listed company found in a folder",
  ),
  noticeBatch(
    "123",
    {
      bg: "Уведомления по чл. 123 КТ на няколко фирми",
      en: "Change-of-employer notices (art. 123) of several companies",
    },
    "File the art. 123 notices of every listed company found in a folder",
  ),
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

/**
 * The name of an operation as accountants say it, in Bulgarian and in English: the confirmation
 * page and the agent's console show it instead of the typeId.
 * @param typeId an operation's typeId (the path segment of `POST /api/v1/operations/<typeId>`)
 * @returns `{ bg, en }`; for a typeId the registry does not know, the typeId itself in both
 * @throws nothing
 *
 * @example
 * ```ts
 * declarationName("vat"); // { bg: "Справка-декларация по ЗДДС", en: "VAT return" }
 * declarationName("dec1_6"); // { bg: "Декларации обр. 1 и 6", en: "Declarations form 1 and 6" }
 * declarationName("nope"); // { bg: "nope", en: "nope" }
 * ```
 */
export function declarationName(typeId: string): DeclarationName {
  return BY_ID.get(typeId)?.name ?? { bg: typeId, en: typeId };
}

/** All typeIds. */
export const TYPE_IDS: readonly string[] = OPERATIONS.map((o) => o.typeId);
