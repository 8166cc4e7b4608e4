/**
 * Report request and result shapes: debts and payments, their types, due amounts, taxpayers,
 * the portal service catalog, and files downloaded from the portal (README.md
 * § Operations; docs/test-portal.md § What each operation returns).
 * @module
 */
import { z } from "zod";
import { Amount, Eik, Int, metadataField, Month, NDate, NStr, OkError, Year } from "./common.ts";

/**
 * A report's result: `status`, its own fields, `error`, the fields after it, `metadata` — in
 * this order (the OpenAPI document lists them so).
 * @param id the schema's OpenAPI component name
 * @param fields the fields between `status` and `error`
 * @param after the fields between `error` and `metadata`
 */
function reportResult<F extends z.ZodRawShape, G extends z.ZodRawShape = Record<never, never>>(
  id: string,
  fields: F,
  after?: G,
) {
  return z.object({
    status: OkError,
    ...fields,
    error: NStr,
    ...(after as G),
    ...metadataField,
  }).meta({ id });
}

/** DebtPaymentsRequest: eik, year, type (default "0" = all kinds). */
export const DebtPaymentsRequest = z.object({
  eik: Eik,
  year: Year,
  type: z.string().max(16).regex(/^[0-9]+$/, "must be a debt payment type id").default("0"),
}).meta({ id: "DebtPaymentsRequest" });

/** DebtPaymentsTypesRequest: no fields. */
export const DebtPaymentsTypesRequest = z.object({}).meta({ id: "DebtPaymentsTypesRequest" });
/** DueAmountsRequest: eik, year (optional). */
export const DueAmountsRequest = z.object({ eik: Eik, year: Year.optional() }).meta({
  id: "DueAmountsRequest",
});
/** TaxpayersRequest: no fields. */
export const TaxpayersRequest = z.object({}).meta({ id: "TaxpayersRequest" });
/** NapCatalogRequest: filter (substring of name, title or URL; empty = all). */
export const NapCatalogRequest = z.object({ filter: z.string().max(200).optional() }).meta({
  id: "NapCatalogRequest",
});

function periodRequest(name: string) {
  return z.object({ eik: Eik, year: Year, month: Month }).meta({ id: name });
}
/** Dec16PortalFilesRequest: eik, year, month. */
export const Dec16PortalFilesRequest = periodRequest("Dec16PortalFilesRequest");
/** VatPortalFilesRequest: eik, year, month. */
export const VatPortalFilesRequest = periodRequest("VatPortalFilesRequest");
/** VatMonthlyFilesRequest: eik, year, month. */
export const VatMonthlyFilesRequest = periodRequest("VatMonthlyFilesRequest");

/** DebtPaymentItem. Amounts in the period's currency (BGN up to 2025, EUR from 2026). */
export const DebtPaymentItem = z.object({
  debtTypeName: z.string(),
  dueAmount: Amount,
  paidAmount: Amount,
  paidAllAmount: Amount,
  outstandingAmount: Amount,
  outstandingInterest: Amount,
  datePayment: NDate,
  debtPeriod: NStr,
  documentDate: NDate,
  documentNumber: NStr,
  documentType: NStr,
  dueDate: NDate,
  paymentTypeName: NStr,
}).meta({ id: "DebtPaymentItem" });

/** DebtPaymentsResult. */
export const DebtPaymentsResult = reportResult("DebtPaymentsResult", {
  rowCount: Int,
  year: Int,
  type: z.string(),
  items: z.array(DebtPaymentItem),
});

/** DebtPaymentTypeItem. */
export const DebtPaymentTypeItem = z.object({
  id: z.string(),
  name: z.string(),
  code: NStr,
  groupId: NStr,
}).meta({ id: "DebtPaymentTypeItem" });

/** DebtPaymentsTypesResult: one global table, identical for all taxpayers. */
export const DebtPaymentsTypesResult = reportResult("DebtPaymentsTypesResult", {
  rowCount: Int,
  items: z.array(DebtPaymentTypeItem),
});

/** DueAmountItem. */
export const DueAmountItem = z.object({
  debtTypeName: z.string(),
  documentType: z.string(),
  documentNumber: z.string(),
  dueAmount: Amount,
  outstandingAmount: Amount,
  outstandingInterest: Amount,
  debtPeriod: NStr,
  documentDate: NDate,
  dueDate: NDate,
}).meta({ id: "DueAmountItem" });

/** DueAmountsResult: totals are sums over items; `year` is the year the data is for. */
export const DueAmountsResult = reportResult("DueAmountsResult", {
  rowCount: Int,
  year: Int.meta({
    format: "int64",
    description:
      "The year the balances are for: the requested year, or without one the last year covered " +
      "(the current year; the items then cover it and the 4 years before it). Never 0",
  }),
  totalOutstanding: Amount,
  totalInterest: Amount,
  items: z.array(DueAmountItem),
});

/** TaxpayerItem. */
export const TaxpayerItem = z.object({
  name: z.string(),
  pin: z.string(),
  pinType: z.enum(["BUS_BULSTAT", "IND_EGN", "IND_BULSTAT", "IND_LNCH", "IND_SLNO"]),
  tin: Int,
  active: z.string(),
  authorization: NStr,
  email: NStr,
}).meta({ id: "TaxpayerItem" });

/** TaxpayersResult: taxpayers for which the signing certificate holds a power of attorney. */
export const TaxpayersResult = reportResult("TaxpayersResult", {
  count: Int,
  items: z.array(TaxpayerItem),
});

/** NapCatalogEntry. */
export const NapCatalogEntry = z.object({
  name: z.string(),
  category: z.string(),
  linkType: z.enum(["NATIVE", "LEGACY"]).nullable(),
  serviceId: NStr,
  systemId: NStr,
  url: NStr,
}).meta({ id: "NapCatalogEntry" });

/** NapCatalogResult. */
export const NapCatalogResult = reportResult("NapCatalogResult", {
  items: z.array(NapCatalogEntry),
  totalLinks: Int,
  matchedLinks: Int,
  categories: Int,
});

/** Dec16PortalFileItem. */
export const Dec16PortalFileItem = z.object({
  name: z.string(),
  type: z.enum(["dec1", "dec6"]),
  docFileId: z.string(),
  content: z.string().meta({ description: "UTF-8, decoded from CP1251" }),
}).meta({ id: "Dec16PortalFileItem" });

/** Dec16PortalFilesResult. */
export const Dec16PortalFilesResult = reportResult("Dec16PortalFilesResult", {
  files: z.array(Dec16PortalFileItem),
}, {
  incomeNumber: NStr,
  period: NStr,
  submittedAt: NStr.meta({ description: "ISO-8601 timestamp" }),
  submissionId: NStr,
});

/** VatPortalFileItem. */
export const VatPortalFileItem = z.object({
  name: z.string(),
  type: z.enum(["declaration", "purchases", "sales", "vies"]),
  docId: z.string(),
  content: z.string().meta({ description: "UTF-8, decoded from CP1251" }),
}).meta({ id: "VatPortalFileItem" });

/** VatPortalFilesResult. */
export const VatPortalFilesResult = reportResult("VatPortalFilesResult", {
  files: z.array(VatPortalFileItem),
}, {
  incomeNumber: NStr,
  period: NStr,
  submittedAt: NStr,
  docId: NStr,
});

/** VatMonthlySubmission: every field a nullable string. */
export const VatMonthlySubmission = z.object({
  docId: NStr.optional(),
  incomeNumber: NStr.optional(),
  submittedAt: NStr.optional(),
  user: NStr.optional(),
  declaration: NStr.optional().meta({ description: "Parsed DEKLAR.TXT as a JSON string" }),
  purchases: NStr.optional(),
  sales: NStr.optional(),
  vies: NStr.optional(),
}).meta({ id: "VatMonthlySubmission" });

/** VatMonthlyFilesResult. */
export const VatMonthlyFilesResult = reportResult("VatMonthlyFilesResult", {
  items: z.array(VatMonthlySubmission),
});
