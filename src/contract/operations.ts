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
import {
  LOCAL_AND_BATCH_OPERATIONS,
  RESULT_OPERATIONS,
  SCAN_OPERATIONS,
  SUBMISSION_OPERATIONS,
} from "./filing_operations.ts";
import { report } from "./operation_rows.ts";
import { type Family, SAMPLE_EIK, type SampleRequest } from "./operation_spec.ts";
import * as reports from "./reports.ts";
import type { Bilingual } from "./text.ts";

export * from "./operation_spec.ts";
export * from "./operation_rows.ts";

/**
 * The report operations, one {@link report} row each (their answers are typed per generator,
 * see {@link ReportRequestOf}).
 */
const PERIOD = { eik: SAMPLE_EIK, year: 2025, month: 3 } as const;
export const REPORT_OPERATIONS = [
  report({
    typeId: "debt_payments",
    family: "report",
    answer: "debtPayments",
    request: reports.DebtPaymentsRequest,
    result: reports.DebtPaymentsResult,
    scope: "eik",
    sender: "confirm",
    memo: "per_day",
    summary: "Debts and payments by year and type",
    name: { bg: "Задължения и плащания", en: "Debts and payments" },
    sample: { eik: SAMPLE_EIK, year: 2025 },
  }),
  report({
    typeId: "debt_payments_types",
    family: "report",
    answer: "debtPaymentsTypes",
    request: reports.DebtPaymentsTypesRequest,
    result: reports.DebtPaymentsTypesResult,
    scope: "none",
    sender: "none",
    memo: "none",
    summary: "Reference list of debt and payment types (global)",
    name: { bg: "Видове задължения и плащания", en: "Types of debts and payments" },
    sample: {},
  }),
  report({
    typeId: "due_amounts",
    family: "report",
    answer: "dueAmounts",
    request: reports.DueAmountsRequest,
    result: reports.DueAmountsResult,
    scope: "eik",
    sender: "confirm",
    memo: "per_day",
    summary: "Due amounts with outstanding totals",
    name: { bg: "Дължими суми", en: "Amounts due" },
    sample: { eik: SAMPLE_EIK },
  }),
  report({
    typeId: "taxpayers",
    family: "report",
    answer: "taxpayers",
    request: reports.TaxpayersRequest,
    result: reports.TaxpayersResult,
    scope: "none",
    sender: "confirm",
    memo: "none",
    summary: "Taxpayers the sender's certificate holds a power of attorney for",
    name: {
      bg: "Упълномощители по пълномощно",
      en: "Taxpayers you represent by power of attorney",
    },
    sample: {},
  }),
  report({
    typeId: "nap_catalog",
    family: "report",
    answer: "napCatalog",
    request: reports.NapCatalogRequest,
    result: reports.NapCatalogResult,
    scope: "none",
    sender: "none",
    memo: "none",
    summary: "Catalog of portal service links",
    name: { bg: "Каталог на електронните услуги на НАП", en: "NRA e-services catalogue" },
    sample: { filter: "ДДС" },
  }),
  report({
    typeId: "vat_portal_files",
    family: "portal_files",
    answer: "vatPortalFiles",
    request: reports.VatPortalFilesRequest,
    result: reports.VatPortalFilesResult,
    scope: "eik",
    sender: "confirm",
    memo: "none",
    summary: "Files of a VAT submission downloaded from the portal",
    name: {
      bg: "Файлове на подадена справка-декларация по ЗДДС",
      en: "Files of a filed VAT return",
    },
    sample: PERIOD,
  }),
  report({
    typeId: "dec1_6_portal_files",
    family: "portal_files",
    answer: "dec16PortalFiles",
    request: reports.Dec16PortalFilesRequest,
    result: reports.Dec16PortalFilesResult,
    scope: "eik",
    sender: "confirm",
    memo: "none",
    summary: "Files of a D1/D6 submission downloaded from the portal",
    name: {
      bg: "Файлове на подадени декларации обр. 1 и 6",
      en: "Files of filed declarations form 1 and 6",
    },
    sample: PERIOD,
  }),
  report({
    typeId: "vat_monthly_files",
    family: "portal_files",
    answer: "vatMonthlyFiles",
    request: reports.VatMonthlyFilesRequest,
    result: reports.VatMonthlyFilesResult,
    scope: "eik",
    sender: "confirm",
    memo: "none",
    summary: "The month's VAT submissions with their parsed files",
    name: {
      bg: "Подадени справки-декларации по ЗДДС за месеца",
      en: "VAT returns filed for the month",
    },
    sample: PERIOD,
  }),
] as const;

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

/** All operations, in the order the docs list them. */
export const OPERATIONS = [
  ...SUBMISSION_OPERATIONS,
  ...RESULT_OPERATIONS,
  ...REPORT_OPERATIONS,
  ...SCAN_OPERATIONS,
  ...LOCAL_AND_BATCH_OPERATIONS,
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
