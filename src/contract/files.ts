/**
 * Local file operations (scans, VAT parse) and folder-wide batch filings
 * (docs/local-input.md § Scans, docs/local-input.md § vat_files_parse, README.md § Operations).
 * The batch request and result shapes are our design (the spec does not show them): see
 * docs/local-input.md § Folder-wide filings.
 * @module
 */
import { z } from "zod";
import {
  inlineFields,
  Int,
  LocalPath,
  metadataField,
  Month,
  NStr,
  OkError,
  Year,
} from "./common.ts";
import { SubmissionResult } from "./submissions.ts";

function scanRequest(name: string) {
  return z.object({
    rootFolder: LocalPath.meta({
      description:
        "Absolute folder to walk. With `_inlineDir` it only names the root of the paths returned",
    }),
    year: Year,
    month: Month,
    recursive: z.boolean().default(true),
    ...inlineFields,
  }).meta({ id: name });
}
/** Dec1FilesScanRequest: rootFolder, year, month, recursive (default true). */
export const Dec1FilesScanRequest = scanRequest("Dec1FilesScanRequest");
/** Dec6FilesScanRequest. */
export const Dec6FilesScanRequest = scanRequest("Dec6FilesScanRequest");
/** VatFilesScanRequest. */
export const VatFilesScanRequest = scanRequest("VatFilesScanRequest");

/** VatFilesParseRequest: directory holding DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT. */
export const VatFilesParseRequest = z.object({
  directory: LocalPath.meta({
    description: "Absolute folder. With `_inlineDir` it only names the folder in the result",
  }),
  ...inlineFields,
}).meta({ id: "VatFilesParseRequest" });

const PayrollFileItem = {
  name: z.string(),
  path: z.string().meta({ description: "Full UTF-8 path" }),
  tin: z.string().meta({ description: "Employer EIK / Bulstat from the declaration" }),
  content: z.string().meta({ description: "UTF-8, decoded from CP1251" }),
};
/** Dec1FileItem. */
export const Dec1FileItem = z.object(PayrollFileItem).meta({ id: "Dec1FileItem" });
/** Dec6FileItem. */
export const Dec6FileItem = z.object(PayrollFileItem).meta({ id: "Dec6FileItem" });
/** VatFileItem. */
export const VatFileItem = z.object({
  name: z.string(),
  path: z.string(),
  tin: z.string().meta({
    description: "Filer EIK from DEKLAR.TXT 00-01 (VAT number without BG)",
  }),
  folder: z.string().meta({ description: "Parent folder" }),
  content: z.string(),
}).meta({ id: "VatFileItem" });

/** One file the scan could not read or parse (our addition; the scan goes on). */
export const ScanProblem = z.object({
  path: z.string(),
  errorCode: z.string(),
  error: z.string(),
}).meta({ id: "ScanProblem" });

function scanResult(name: string, item: z.ZodTypeAny) {
  return z.object({
    status: OkError,
    files: z.array(item),
    totalScanned: Int,
    totalMatched: Int,
    error: NStr,
    problems: z.array(ScanProblem).optional().meta({
      description: "Files that could not be read or parsed; they never abort the scan",
    }),
    warnings: z.array(z.string()).optional().meta({
      description: "Files that were read but not as the NRA writes them (UTF-8 or UTF-16 text, " +
        "a byte-order mark), in English; absent when there are none",
    }),
    ...metadataField,
  }).meta({ id: name });
}
/** Dec1FilesScanResult. */
export const Dec1FilesScanResult = scanResult("Dec1FilesScanResult", Dec1FileItem);
/** Dec6FilesScanResult. */
export const Dec6FilesScanResult = scanResult("Dec6FilesScanResult", Dec6FileItem);
/** VatFilesScanResult. */
export const VatFilesScanResult = scanResult("VatFilesScanResult", VatFileItem);

/**
 * VatFileSummary: one row per VAT file; status `ok` or the Bulgarian word `липсва`, the spec's
 * two values (docs/local-input.md § vat_files_parse). A file that is present but cannot be
 * read or parsed is not usable, so it is `липсва` too; its `count` is null (a missing file's is
 * "-") and its parser error is in the result's `error`.
 */
export const VatFileSummary = z.object({
  file: z.enum(["DEKLAR.TXT", "POKUPKI.TXT", "PRODAGBI.TXT"]),
  status: z.enum(["ok", "липсва"]).meta({
    description: "ok (found and parsed), or липсва (no usable file: missing, or present but " +
      "malformed — then `count` is null and the parser error is in the result's `error`)",
  }),
  count: NStr.meta({
    description: 'Record count when ok; "-" when the file is missing; null when it is present ' +
      "but malformed",
  }),
}).meta({ id: "VatFileSummary" });

/** VatFilesParseResult. */
export const VatFilesParseResult = z.object({
  status: z.enum(["ok", "partial", "error"]).meta({
    description: "ok (all three files parsed), partial (some), error (none)",
  }),
  directory: z.string(),
  items: z.array(VatFileSummary),
  error: NStr.meta({
    description: 'Parser (and read) errors joined with " ; ", each naming its file, line and ' +
      "field; null when no file failed (missing files are shown by their rows only)",
  }),
  warnings: z.array(z.string()).optional().meta({
    description:
      "Cross-check warnings in English (filer, periods, counts, totals, and DEKLAR and " +
      "PRODAGBI against VIES.TXT: docs/formats.md § VAT cross-checks); our addition",
  }),
  ...metadataField,
}).meta({ id: "VatFilesParseResult" });

/** Folder-wide request (dec1_6_batch, vat_batch): rootFolder, year, month, recursive. */
export const PeriodBatchRequest = z.object({
  rootFolder: LocalPath.meta({
    description: "Absolute folder. With `_inlineDir` it only names the root of the paths returned",
  }),
  year: Year,
  month: Month,
  recursive: z.boolean().default(true),
  fund: z.boolean().optional().meta({ description: "dec1_6_batch only: insurance fund" }),
  ...inlineFields,
}).meta({ id: "PeriodBatchRequest" });

/** Folder-wide request for notices (etz62_batch, etz123_batch): rootFolder, recursive. */
export const NoticeBatchRequest = z.object({
  rootFolder: LocalPath,
  recursive: z.boolean().default(true),
  ...inlineFields,
}).meta({ id: "NoticeBatchRequest" });

/** One company's row of a folder-wide filing. */
export const BatchItem = z.object({
  eik: z.string(),
  files: z.array(z.string()).meta({ description: "Full paths of the company's files" }),
  outcome: z.enum(["submitted", "skipped", "failed", "unknown"]).meta({
    description: "`unknown`: sent to the authority, whether it filed it is not known; " +
      "check on the NRA portal, then resolve `filingId` (docs/journal.md)",
  }),
  result: SubmissionResult.nullable(),
  errorCode: NStr,
  error: NStr,
  filingId: NStr.optional().meta({
    description: "The journal row of this company's filing (set for `unknown` rows)",
  }),
}).meta({ id: "BatchItem" });

/** Result of a folder-wide filing: one row per EIK found. */
export const BatchResult = z.object({
  status: z.enum(["ok", "partial", "error"]),
  items: z.array(BatchItem),
  submitted: Int,
  skipped: Int,
  failed: Int,
  unknown: Int.meta({
    description: "Companies whose outcome is unknown (items with outcome `unknown`)",
  }),
  totalScanned: Int,
  error: NStr,
  ...metadataField,
}).meta({ id: "BatchResult" });

export { OkError };
