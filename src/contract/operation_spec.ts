/**
 * The shape of an operation registry entry (src/contract/operations.ts) and the constructors
 * the registry is written with: per family, what the agent needs to run it — its local reader
 * or scan, its batch grouping, its submission kind, its test-portal generator.
 * @module
 */
import type { Bilingual } from "./text.ts";
import type { z } from "zod";
import * as files from "./files.ts";
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
/** The folder the sample requests of local and batch operations name. */
const SAMPLE_FOLDER = "C:\\Accounting\\2025-12";

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

export const submission = <K extends SubmissionKind, Req extends z.ZodType>(
  kind: K,
  summary: string,
  request: Req,
  localInput: "optional" | "required",
  reader: SubmissionReader,
  sample: SampleRequest,
  pathFields: readonly string[] = [],
): SubmissionOperation<K, Req> => ({
  typeId: kind,
  name: KIND_NAMES[kind],
  family: "submission",
  kind,
  summary,
  request,
  result: sub.SubmissionResult,
  scope: "eik",
  localInput,
  needsSender: true,
  sample,
  reader,
  pathFields,
});

/**
 * A submission as one row of the registry's table: its kind, local input, reader, request,
 * summary, sample request and (for a D1/D6 pair) the body fields naming its files.
 */
export type SubmissionRow = readonly [
  kind: SubmissionKind,
  localInput: "optional" | "required",
  reader: SubmissionReader,
  request: z.ZodType,
  summary: string,
  sample: SampleRequest,
  pathFields?: readonly string[],
];

/** The submissions of a table of rows, each entry typed precisely (kind and request). */
export const submissionTable = <const R extends readonly SubmissionRow[]>(rows: R) =>
  rows.map(([kind, localInput, reader, request, summary, sample, pathFields]) =>
    submission(kind, summary, request, localInput, reader, sample, pathFields)
  ) as unknown as {
    readonly [I in keyof R]: R[I] extends readonly [
      infer K extends SubmissionKind,
      unknown,
      unknown,
      infer Req extends z.ZodType,
      ...unknown[],
    ] ? SubmissionOperation<K, Req>
      : never;
  };

export const result = <K extends SubmissionKind, Req extends z.ZodType>(
  kind: K,
  request: Req,
): ResultOperation<`${K}_result`, Req> => ({
  typeId: `${kind}_result`,
  name: {
    bg: `Резултат от подаването: ${lowerFirst(KIND_NAMES[kind].bg)}`,
    en: `Filing result: ${KIND_NAMES[kind].en}`,
  },
  family: "result",
  kind,
  summary: `Result of a ${kind} submission`,
  request,
  result: sub.SubmissionResultPayload,
  scope: "eik",
  localInput: "none",
  needsSender: true,
  sample: { documentId: "1000000001", eik: SAMPLE_EIK },
});

export const report = <
  T extends string,
  A extends string,
  Req extends z.ZodType,
  Res extends z.ZodType,
>(
  typeId: T,
  name: Bilingual,
  family: "report" | "portal_files",
  summary: string,
  io: { request: Req; result: Res },
  scope: TokenScope,
  needsSender: boolean,
  answer: A,
  sample: SampleRequest,
  dayStable = false,
): ReportOperation<T, A, Req, Res> => ({
  typeId,
  name,
  family,
  summary,
  ...io,
  scope,
  localInput: "none",
  needsSender,
  sample,
  answer,
  dayStable,
});

/**
 * A report as one row of the registry's table: its typeId, family, test-portal generator,
 * request and result, scope, whether it needs a sender, whether it is day-stable, summary, its
 * name in Bulgarian and in English, and a sample request.
 */
export type ReportRow = readonly [
  typeId: string,
  family: "report" | "portal_files",
  answer: string,
  request: z.ZodType,
  result: z.ZodType,
  scope: TokenScope,
  needsSender: boolean,
  dayStable: boolean,
  summary: string,
  bg: string,
  en: string,
  sample: SampleRequest,
];

/** The reports of a table of rows, each entry typed precisely (typeId, generator, schemas). */
export const reportTable = <const R extends readonly ReportRow[]>(rows: R) =>
  rows.map((
    [
      typeId,
      family,
      answer,
      request,
      result,
      scope,
      needsSender,
      dayStable,
      summary,
      bg,
      en,
      sample,
    ],
  ) =>
    report(
      typeId,
      { bg, en },
      family,
      summary,
      { request, result },
      scope,
      needsSender,
      answer,
      sample,
      dayStable,
    )
  ) as unknown as {
    readonly [I in keyof R]: R[I] extends readonly [
      infer T extends string,
      unknown,
      infer A extends string,
      infer Req extends z.ZodType,
      infer Res extends z.ZodType,
      ...unknown[],
    ] ? ReportOperation<T, A, Req, Res>
      : never;
  };

export const local = <T extends string, Req extends z.ZodType>(
  typeId: T,
  name: Bilingual,
  summary: string,
  io: { request: Req; result: z.ZodType },
  run: LocalRun,
): LocalOperation<T, Req> => ({
  typeId,
  name,
  family: "local",
  summary,
  ...io,
  scope: "none",
  localInput: "required",
  needsSender: false,
  sample: run.run === "scan"
    ? { rootFolder: SAMPLE_FOLDER, year: 2025, month: 12 }
    : { directory: SAMPLE_FOLDER },
  local: run,
});

export const batch = <T extends string, Req extends z.ZodType>(
  typeId: T,
  kind: SubmissionKind,
  name: Bilingual,
  summary: string,
  request: Req,
  grouping: BatchGrouping,
): BatchOperation<T, Req> => ({
  typeId,
  name,
  family: "batch",
  kind,
  summary,
  request,
  result: files.BatchResult,
  scope: "eiks",
  localInput: "required",
  needsSender: true,
  sample: grouping.group === "xml_notices"
    ? { rootFolder: SAMPLE_FOLDER }
    : { rootFolder: SAMPLE_FOLDER, year: 2025, month: 12 },
  grouping,
});

/** A folder-wide filing of the XML employment notices of one form (art. 62 or art. 123). */
export const noticeBatch = <F extends "62" | "123">(
  form: F,
  name: Bilingual,
  summary: string,
) =>
  batch(`etz${form}_batch`, `etz${form}`, name, summary, files.NoticeBatchRequest, {
    group: "xml_notices",
    form,
  });

/** "Декларации обр. 1 и 6" → "декларации обр. 1 и 6" (inside a sentence). */
const lowerFirst = (s: string) => s.charAt(0).toLocaleLowerCase("bg") + s.slice(1);

export const scan = (
  fileKind: Extract<LocalRun, { run: "scan" }>["fileKind"],
): LocalRun => ({
  run: "scan",
  fileKind,
  folderField: "rootFolder",
});
