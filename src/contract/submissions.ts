/**
 * Submission request shapes, the shared submission result, and the result-retrieval shapes
 * (README.md § Operations, docs/test-portal.md § Submissions and results).
 * @module
 */
import { z } from "zod";
import {
  Eik,
  inlineFields,
  LocalPath,
  metadataField,
  Month,
  NDateTime,
  NStr,
  Year,
} from "./common.ts";

/** VatRequest: eik, year, month (Req), iban (optional refund account). Files come from local
 * input (X-Svc-File-Path folder or `_inlineDir`) holding DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT
 * and optionally VIES.TXT. */
export const VatRequest = z.object({
  eik: Eik,
  year: Year,
  month: Month,
  iban: z.string().regex(/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/, "must be an IBAN").optional(),
  ...inlineFields,
}).meta({ id: "VatRequest" });

/** Dec16Request: year, month (Req), eik, dec1FilePath, dec6FilePath, fund; at least one path
 * (or inline file); both must belong to the same EIK. */
export const Dec16Request = z.object({
  year: Year,
  month: Month,
  eik: Eik.optional(),
  dec1FilePath: LocalPath.optional(),
  dec6FilePath: LocalPath.optional(),
  fund: z.boolean().optional().meta({
    description: "Filed by an insurance fund (default false)",
  }),
  ...inlineFields,
}).meta({ id: "Dec16Request" });

/** Dec731Request / Dec736Request: eik, year. */
export const Dec731Request = z.object({ eik: Eik, year: Year, ...inlineFields }).meta({
  id: "Dec731Request",
});
/** Dec736Request: eik, year. */
export const Dec736Request = z.object({ eik: Eik, year: Year, ...inlineFields }).meta({
  id: "Dec736Request",
});
/** Etz62Request: eik. */
export const Etz62Request = z.object({ eik: Eik, ...inlineFields }).meta({ id: "Etz62Request" });
/** Etz123Request: eik. */
export const Etz123Request = z.object({ eik: Eik, ...inlineFields }).meta({ id: "Etz123Request" });

/** High fiscal risk notification subtypes. */
export const HighFiscRiskSubtype = z.enum([
  "EU_BG",
  "BG_EU",
  "BG_BG",
  "IMPORT",
  "ANNUL",
  "CONFIRM",
]);

/** HighFiscRiskRequest: eik, subtype. */
export const HighFiscRiskRequest = z.object({
  eik: Eik,
  subtype: HighFiscRiskSubtype,
  ...inlineFields,
}).meta({ id: "HighFiscRiskRequest" });

/** OditRequest (audit file): eik, year, month. */
export const OditRequest = z.object({ eik: Eik, year: Year, month: Month, ...inlineFields })
  .meta({ id: "OditRequest" });

/** Submission result shared by all submissions (docs/test-portal.md § Submissions and results). */
export const SubmissionResult = z.object({
  success: z.boolean(),
  documentId: NStr,
  incomeNumber: NStr,
  submissionDate: NDateTime,
  errorMessage: NStr,
  nativeErrors: z.array(z.string()).nullable(),
  ...metadataField,
}).meta({ id: "SubmissionResult" });

/** Result request: documentId (from the submit operation) and eik. One named schema per
 * submission kind, identical in shape. */
function resultRequest(name: string) {
  return z.object({
    documentId: z.string().min(1).max(64),
    eik: Eik,
  }).meta({ id: name });
}
export const VatResultRequest = resultRequest("VatResultRequest");
export const Dec16ResultRequest = resultRequest("Dec16ResultRequest");
export const Dec731ResultRequest = resultRequest("Dec731ResultRequest");
export const Dec736ResultRequest = resultRequest("Dec736ResultRequest");
export const Etz62ResultRequest = resultRequest("Etz62ResultRequest");
export const Etz123ResultRequest = resultRequest("Etz123ResultRequest");
export const HighFiscRiskResultRequest = resultRequest("HighFiscRiskResultRequest");
export const OditResultRequest = resultRequest("OditResultRequest");

/** SubmissionResultPayload (docs/test-portal.md § Submissions and results). */
export const SubmissionResultPayload = z.object({
  status: z.enum(["ok", "error"]),
  rawBody: z.string(),
  rawBodyContentType: z.string(),
  rawBodyUrl: z.string(),
  error: NStr,
  ...metadataField,
}).meta({ id: "SubmissionResultPayload" });
