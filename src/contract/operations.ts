/**
 * The operation registry: every typeId of the agent (`POST /api/v1/operations/<typeId>`), with
 * its request and result schema, the token scope it needs (`eik`, `eiks` or none), whether it
 * takes local input, whether it acts on the portal in a sender's name (and so goes through the
 * sender confirmation) — and how the agent runs it: its family handler, which local reader or
 * scan it uses, how a folder-wide batch groups the files, and which generator of the test
 * portal answers it. This is the ONE place that knows each operation: the agent and the portal
 * adapters dispatch on these fields, never on typeId strings (docs/architecture.md § Adding an
 * operation). Implements README.md § Operations and docs/tokens.md § Claims 4–5; the
 * typeIds the spec does not name follow the README's operations table.
 * @module
 */
import type { z } from "zod";
import * as files from "./files.ts";
import {
  batch,
  type Family,
  local,
  noticeBatch,
  reportTable,
  result,
  SAMPLE_EIK,
  type SampleRequest,
  scan,
  submissionTable,
} from "./operation_spec.ts";
import * as reports from "./reports.ts";
import type { Bilingual } from "./text.ts";
import * as sub from "./submissions.ts";

export * from "./operation_spec.ts";

/**
 * The report operations (their answers are typed per generator, see {@link ReportRequestOf}):
 * [typeId, family, generator, request, result, scope, needs a sender, day-stable, summary,
 * name bg, name en, sample request].
 */
const PERIOD = { eik: SAMPLE_EIK, year: 2025, month: 3 } as const;
// deno-fmt-ignore
export const REPORT_OPERATIONS = reportTable([
  ["debt_payments", "report", "debtPayments", reports.DebtPaymentsRequest, reports.DebtPaymentsResult, "eik", true, true, "Debts and payments by year and type", "Задължения и плащания", "Debts and payments", { eik: SAMPLE_EIK, year: 2025 }],
  ["debt_payments_types", "report", "debtPaymentsTypes", reports.DebtPaymentsTypesRequest, reports.DebtPaymentsTypesResult, "none", false, false, "Reference list of debt and payment types (global)", "Видове задължения и плащания", "Types of debts and payments", {}],
  ["due_amounts", "report", "dueAmounts", reports.DueAmountsRequest, reports.DueAmountsResult, "eik", true, true, "Due amounts with outstanding totals", "Дължими суми", "Amounts due", { eik: SAMPLE_EIK }],
  ["taxpayers", "report", "taxpayers", reports.TaxpayersRequest, reports.TaxpayersResult, "none", true, false, "Taxpayers the sender's certificate holds a power of attorney for", "Упълномощители по пълномощно", "Taxpayers you represent by power of attorney", {}],
  ["nap_catalog", "report", "napCatalog", reports.NapCatalogRequest, reports.NapCatalogResult, "none", false, false, "Catalog of portal service links", "Каталог на електронните услуги на НАП", "NRA e-services catalogue", { filter: "ДДС" }],
  ["vat_portal_files", "portal_files", "vatPortalFiles", reports.VatPortalFilesRequest, reports.VatPortalFilesResult, "eik", true, false, "Files of a VAT submission downloaded from the portal", "Файлове на подадена справка-декларация по ЗДДС", "Files of a filed VAT return", PERIOD],
  ["dec1_6_portal_files", "portal_files", "dec16PortalFiles", reports.Dec16PortalFilesRequest, reports.Dec16PortalFilesResult, "eik", true, false, "Files of a D1/D6 submission downloaded from the portal", "Файлове на подадени декларации обр. 1 и 6", "Files of filed declarations form 1 and 6", PERIOD],
  ["vat_monthly_files", "portal_files", "vatMonthlyFiles", reports.VatMonthlyFilesRequest, reports.VatMonthlyFilesResult, "eik", true, false, "The month's VAT submissions with their parsed files", "Подадени справки-декларации по ЗДДС за месеца", "VAT returns filed for the month", PERIOD],
]);

/** A report operation of the registry (the precise type of one entry). */
export type AnyReportOperation = typeof REPORT_OPERATIONS[number];
/** The test portal's generator names (src/mock/answers.ts): one per report row above. */
export type ReportAnswer = AnyReportOperation["answer"];
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

/**
 * The submissions: [kind, local input, reader, request, summary, sample request, body fields
 * naming the files]. Each one's name is its kind's (KIND_NAMES).
 */
const MONTH = { eik: SAMPLE_EIK, year: 2025, month: 12 } as const;
const YEAR = { eik: SAMPLE_EIK, year: 2025 } as const;
// deno-fmt-ignore
const SUBMISSION_OPERATIONS = submissionTable([
  ["vat", "optional", "vat_folder", sub.VatRequest, "Submit a VAT return (DEKLAR, POKUPKI, PRODAGBI, VIES)", MONTH],
  ["dec1_6", "required", "payroll_pair", sub.Dec16Request, "Submit payroll declarations 1 and 6", MONTH, ["dec1FilePath", "dec6FilePath"]],
  ["dec731", "optional", "single_file", sub.Dec731Request, "Submit an annual tax return (form 731)", YEAR],
  ["dec736", "optional", "single_file", sub.Dec736Request, "Submit an annual tax return (form 736)", YEAR],
  ["etz62", "optional", "single_file", sub.Etz62Request, "Submit an employment notice (Labour Code art. 62)", { eik: SAMPLE_EIK }],
  ["etz123", "optional", "single_file", sub.Etz123Request, "Submit a change-of-employer notice (art. 123)", { eik: SAMPLE_EIK }],
  ["high_fisc_risk", "optional", "single_file", sub.HighFiscRiskRequest, "Submit a high fiscal risk goods notification", { eik: SAMPLE_EIK, subtype: "BG_BG" }],
  ["odit", "optional", "single_file", sub.OditRequest, "Submit an audit file", MONTH],
]);

/** All operations, in the order the docs list them. */
export const OPERATIONS = [
  ...SUBMISSION_OPERATIONS,
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
 * One registry entry: the precise union of the entries, so that narrowing on `family`
 * keeps each entry's request and result schema (the body is typed from the route on).
 */
export type OperationSpec = typeof OPERATIONS[number];

/** The registry entries of one family (or several), each typed precisely. */
export type OperationOf<F extends Family> = Extract<OperationSpec, { readonly family: F }>;

/**
 * The body an operation's request schema produced (`z.output` of its `request`), parsed once by
 * the agent's pipeline: for a union of entries, the union of their bodies.
 */
export type OperationBody<O extends { readonly request: z.ZodType }> = z.output<O["request"]>;

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
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(declarationName("vat"), { bg: "Справка-декларация по ЗДДС", en: "VAT return" });
 * deepStrictEqual(declarationName("dec1_6"), { bg: "Декларации обр. 1 и 6", en: "Declarations form 1 and 6" });
 * deepStrictEqual(declarationName("nope"), { bg: "nope", en: "nope" });
 * ```
 */
export function declarationName(typeId: string): Bilingual {
  return BY_ID.get(typeId)?.name ?? { bg: typeId, en: typeId };
}

/** All typeIds. */
export const TYPE_IDS: readonly string[] = OPERATIONS.map((o) => o.typeId);

/**
 * A valid request body of an operation, from its registry row (a fresh copy): the tables of
 * bodies in the tests are built from it.
 * @param typeId a registered typeId
 * @param eik the EIK to put in place of {@link SAMPLE_EIK} (bodies without an `eik` field keep
 *   none)
 * @returns the body (parses with the operation's request schema)
 * @throws Error for a typeId the registry does not know (a programming error of the caller)
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(sampleRequest("debt_payments", "999999956"), { eik: "999999956", year: 2025 });
 * deepStrictEqual(sampleRequest("taxpayers"), {});
 * ```
 */
export function sampleRequest(typeId: string, eik: string = SAMPLE_EIK): Record<string, unknown> {
  const op = BY_ID.get(typeId);
  // A programming error: callers pass registered typeIds.
  if (!op) throw new Error(`sampleRequest: unknown typeId ${typeId}`);
  const body: Record<string, unknown> = structuredClone(op.sample as SampleRequest);
  if ("eik" in body) body.eik = eik;
  return body;
}
