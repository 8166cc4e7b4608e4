/**
 * The shape of an operation registry entry (src/contract/operations.ts): per family, what the
 * agent needs to run it — its local reader or scan, its batch grouping, its submission kind, its
 * test-portal generator. The rows the registry is written with, and their constructors, are in
 * src/contract/operation_rows.ts.
 * @module
 */
import type { Bilingual } from "./text.ts";
import type { z } from "zod";
import type * as files from "./files.ts";
import type * as sub from "./submissions.ts";

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
/**
 * The kind of an NRA text file: the VAT return (DEKLAR), its purchase and sales ledgers (POKUPKI,
 * PRODAGBI), the VIES declaration, and payroll declarations 1 and 6. The one name of the concept:
 * src/formats/kinds.ts has one format per kind, detection answers one (or "unknown"), a
 * submission's files and the folder scans name them.
 */
export type NraFileKind = "vies" | "d1" | "d6" | "deklar" | "pokupki" | "prodagbi";
/** What a `local` operation runs on its folder (src/agent/local/scans.ts). */
export type LocalRun =
  | {
    readonly run: "scan";
    /** The kinds a folder scan finds (src/formats/detect.ts). */
    readonly fileKind: Extract<NraFileKind, "d1" | "d6" | "deklar">;
    readonly folderField: "rootFolder";
  }
  | { readonly run: "vat_parse"; readonly folderField: "directory" };
/** How a folder-wide batch groups the files it finds (src/agent/local/batch_scan.ts). */
export type BatchGrouping =
  | { readonly group: "vat_folders" }
  | { readonly group: "payroll_pairs" }
  | { readonly group: "xml_notices"; readonly form: "62" | "123" };
/**
 * A valid request body of an operation (its registry row's `sample`): the test tables, the
 * end-to-end suites and the golden files are built from it. Its EIK, where it has one, is
 * {@link SAMPLE_EIK}.
 */
export type SampleRequest = Readonly<Record<string, unknown>>;

/** The EIK of the registry's sample requests (a valid Bulstat with no special behaviour). */
export const SAMPLE_EIK = "121212121";

/** The name of each submission kind; its result, and the folder-wide batches, build on it. */
export const KIND_NAMES: Readonly<Record<SubmissionKind, Bilingual>> = {
  vat: { bg: "Справка-декларация по ЗДДС", en: "VAT return" },
  dec1_6: { bg: "Декларации обр. 1 и 6", en: "Declarations form 1 and 6" },
  dec731: { bg: "Годишна декларация обр. 731", en: "Annual tax return form 731" },
  dec736: { bg: "Годишна декларация обр. 736", en: "Annual tax return form 736" },
  etz62: {
    bg: "Уведомление по чл. 62 КТ",
    en: "Employment contract notice (Labour Code art. 62)",
  },
  etz123: {
    bg: "Уведомление по чл. 123 КТ",
    en: "Change-of-employer notice (Labour Code art. 123)",
  },
  high_fisc_risk: {
    bg: "Уведомление за стоки с висок фискален риск",
    en: "High fiscal risk goods notice",
  },
  odit: { bg: "Одиторски файл (SAF-T)", en: "Audit file (SAF-T)" },
};

/** What every registry entry has. */
interface Common<T extends string, Req extends z.ZodType, Res extends z.ZodType> {
  readonly typeId: T;
  /** The operation as accountants call it (the confirmation page and the console show it). */
  readonly name: Bilingual;
  readonly summary: string;
  readonly request: Req;
  readonly result: Res;
  readonly scope: TokenScope;
  readonly localInput: LocalInput;
  /** Acts on the portal in a sender's name: needs the sender confirmation. */
  readonly needsSender: boolean;
  /** A valid request body (parses with `request`); see {@link SampleRequest}. */
  readonly sample: SampleRequest;
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
  A extends string = string,
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
