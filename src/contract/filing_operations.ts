/**
 * The registry's rows of the operations that file declarations or read the files to be filed:
 * the submissions, their results, the folder scans, the VAT folder check and the folder-wide
 * batches (src/contract/operations.ts joins them with the reports). One row each, every field
 * named (src/contract/operation_rows.ts).
 * @module
 */
import * as files from "./files.ts";
import { batch, local, noticeBatch, result, scan, submission } from "./operation_rows.ts";
import { SAMPLE_EIK } from "./operation_spec.ts";
import * as sub from "./submissions.ts";

/** The folder scans, one {@link scan} row each. */
export const SCAN_OPERATIONS = [
  scan({
    typeId: "dec1_files_scan",
    fileKind: "d1",
    request: files.Dec1FilesScanRequest,
    result: files.Dec1FilesScanResult,
    summary: "Find D1 files (EMPL2021.TXT) of a period in a folder tree",
    name: {
      bg: "Търсене на декларации обр. 1 в папка",
      en: "Find declarations form 1 in a folder",
    },
  }),
  scan({
    typeId: "dec6_files_scan",
    fileKind: "d6",
    request: files.Dec6FilesScanRequest,
    result: files.Dec6FilesScanResult,
    summary: "Find D6 files (NRA62007*.TXT) of a period in a folder tree",
    name: {
      bg: "Търсене на декларации обр. 6 в папка",
      en: "Find declarations form 6 in a folder",
    },
  }),
  scan({
    typeId: "vat_files_scan",
    fileKind: "deklar",
    request: files.VatFilesScanRequest,
    result: files.VatFilesScanResult,
    summary: "Find VAT returns (DEKLAR.TXT) of a period in a folder tree",
    name: {
      bg: "Търсене на справки-декларации по ЗДДС в папка",
      en: "Find VAT returns in a folder",
    },
  }),
] as const;

/**
 * The submissions, one {@link submission} row each; each one's name is its kind's
 * (KIND_NAMES).
 */
const MONTH = { eik: SAMPLE_EIK, year: 2025, month: 12 } as const;
const YEAR = { eik: SAMPLE_EIK, year: 2025 } as const;
export const SUBMISSION_OPERATIONS = [
  submission({
    kind: "vat",
    localInput: "optional",
    reader: "vat_folder",
    request: sub.VatRequest,
    summary: "Submit a VAT return (DEKLAR, POKUPKI, PRODAGBI, VIES)",
    sample: MONTH,
  }),
  submission({
    kind: "dec1_6",
    localInput: "required",
    reader: "payroll_pair",
    request: sub.Dec16Request,
    summary: "Submit payroll declarations 1 and 6",
    sample: MONTH,
    pathFields: ["dec1FilePath", "dec6FilePath"],
  }),
  submission({
    kind: "dec731",
    localInput: "optional",
    reader: "single_file",
    request: sub.Dec731Request,
    summary: "Submit an annual tax return (form 731)",
    sample: YEAR,
  }),
  submission({
    kind: "dec736",
    localInput: "optional",
    reader: "single_file",
    request: sub.Dec736Request,
    summary: "Submit an annual tax return (form 736)",
    sample: YEAR,
  }),
  submission({
    kind: "etz62",
    localInput: "optional",
    reader: "single_file",
    request: sub.Etz62Request,
    summary: "Submit an employment notice (Labour Code art. 62)",
    sample: { eik: SAMPLE_EIK },
  }),
  submission({
    kind: "etz123",
    localInput: "optional",
    reader: "single_file",
    request: sub.Etz123Request,
    summary: "Submit a change-of-employer notice (art. 123)",
    sample: { eik: SAMPLE_EIK },
  }),
  submission({
    kind: "high_fisc_risk",
    localInput: "optional",
    reader: "single_file",
    request: sub.HighFiscRiskRequest,
    summary: "Submit a high fiscal risk goods notification",
    sample: { eik: SAMPLE_EIK, subtype: "BG_BG" },
  }),
  submission({
    kind: "odit",
    localInput: "optional",
    reader: "single_file",
    request: sub.OditRequest,
    summary: "Submit an audit file",
    sample: MONTH,
  }),
] as const;

/** The results of earlier submissions, one per submission kind. */
export const RESULT_OPERATIONS = [
  result("vat", sub.VatResultRequest),
  result("dec1_6", sub.Dec16ResultRequest),
  result("dec731", sub.Dec731ResultRequest),
  result("dec736", sub.Dec736ResultRequest),
  result("etz62", sub.Etz62ResultRequest),
  result("etz123", sub.Etz123ResultRequest),
  result("high_fisc_risk", sub.HighFiscRiskResultRequest),
  result("odit", sub.OditResultRequest),
] as const;

/** The VAT folder check and the folder-wide batches. */
export const LOCAL_AND_BATCH_OPERATIONS = [
  local({
    typeId: "vat_files_parse",
    name: {
      bg: "Проверка на файловете на справка-декларация по ЗДДС",
      en: "Check the files of a VAT return",
    },
    summary: "Parse and cross-check the VAT files of one folder",
    request: files.VatFilesParseRequest,
    result: files.VatFilesParseResult,
    run: { run: "vat_parse", folderField: "directory" },
  }),
  batch({
    typeId: "dec1_6_batch",
    kind: "dec1_6",
    name: {
      bg: "Декларации обр. 1 и 6 на няколко фирми",
      en: "Declarations form 1 and 6 of several companies",
    },
    summary: "File the D1/D6 declarations of every listed company found in a folder",
    request: files.PeriodBatchRequest,
    grouping: { group: "payroll_pairs" },
  }),
  batch({
    typeId: "vat_batch",
    kind: "vat",
    name: {
      bg: "Справки-декларации по ЗДДС на няколко фирми",
      en: "VAT returns of several companies",
    },
    summary: "File the VAT returns of every listed company found in a folder",
    request: files.PeriodBatchRequest,
    grouping: { group: "vat_folders" },
  }),
  noticeBatch({
    form: "62",
    name: {
      bg: "Уведомления по чл. 62 КТ на няколко фирми",
      en: "Employment contract notices (art. 62) of several companies",
    },
    summary: "File the art. 62 employment notices of every listed company found in a folder",
  }),
  noticeBatch({
    form: "123",
    name: {
      bg: "Уведомления по чл. 123 КТ на няколко фирми",
      en: "Change-of-employer notices (art. 123) of several companies",
    },
    summary: "File the art. 123 notices of every listed company found in a folder",
  }),
] as const;
