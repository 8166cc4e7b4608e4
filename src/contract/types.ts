/**
 * TypeScript types inferred from the contract schemas (one source of truth).
 * @module
 */
import type { z } from "zod";
import type * as files from "./files.ts";
import type * as reports from "./reports.ts";
import type * as sub from "./submissions.ts";

export type SubmissionResult = z.infer<typeof sub.SubmissionResult>;
export type SubmissionResultPayload = z.infer<typeof sub.SubmissionResultPayload>;
export type DebtPaymentsResult = z.infer<typeof reports.DebtPaymentsResult>;
export type DebtPaymentItem = z.infer<typeof reports.DebtPaymentItem>;
export type DebtPaymentsTypesResult = z.infer<typeof reports.DebtPaymentsTypesResult>;
export type DueAmountsResult = z.infer<typeof reports.DueAmountsResult>;
export type DueAmountItem = z.infer<typeof reports.DueAmountItem>;
export type TaxpayersResult = z.infer<typeof reports.TaxpayersResult>;
export type TaxpayerItem = z.infer<typeof reports.TaxpayerItem>;
export type NapCatalogResult = z.infer<typeof reports.NapCatalogResult>;
export type NapCatalogEntry = z.infer<typeof reports.NapCatalogEntry>;
export type VatPortalFilesResult = z.infer<typeof reports.VatPortalFilesResult>;
export type Dec16PortalFilesResult = z.infer<typeof reports.Dec16PortalFilesResult>;
export type VatMonthlyFilesResult = z.infer<typeof reports.VatMonthlyFilesResult>;
export type BatchResult = z.infer<typeof files.BatchResult>;
export type VatFilesParseResult = z.infer<typeof files.VatFilesParseResult>;
