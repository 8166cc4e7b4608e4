/**
 * The constructors the operation registry (src/contract/operations.ts) is written with: one row
 * per operation, every field named — a family's row type says what its author writes, and the
 * constructor turns it into the registry entry of src/contract/operation_spec.ts. Flags are
 * words of their own and names are checked, so a row with two values swapped does not compile
 * (docs/architecture.md § Adding an operation).
 * @module
 */
import type { z } from "zod";
import * as files from "./files.ts";
import {
  type BatchGrouping,
  type BatchOperation,
  KIND_NAMES,
  type LocalOperation,
  type LocalRun,
  type ReportOperation,
  type ResultOperation,
  SAMPLE_EIK,
  type SampleRequest,
  type SubmissionKind,
  type SubmissionOperation,
  type SubmissionReader,
  type TokenScope,
} from "./operation_spec.ts";
import * as sub from "./submissions.ts";
import type { Bilingual } from "./text.ts";

/** The folder the sample requests of local and batch operations name. */
const SAMPLE_FOLDER = "C:\\Accounting\\2025-12";

/** A letter of the Cyrillic alphabet (U+0410–U+044F), upper or lower case. */
type CyrillicLetter = Letters<"АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюя">;
/** The letters of a string literal type, as a union (tail-recursive: one letter a step). */
type Letters<S extends string, Acc extends string = never> = S extends `${infer C}${infer Rest}`
  ? Letters<Rest, Acc | C>
  : Acc;
/** Whether a string literal type has a Cyrillic letter (`false` for `string`). */
type HasCyrillic<S extends string> = S extends `${infer C}${infer Rest}`
  ? C extends CyrillicLetter ? true : HasCyrillic<Rest>
  : false;
/**
 * The check a registry row's name `{ bg, en }` passes: literal texts, the Bulgarian one with
 * Cyrillic letters and the English one without. A name with its two languages swapped (or not
 * written as literals) meets a property whose type says what is wrong, and does not compile.
 */
export type NameCheck<N extends Bilingual> = HasCyrillic<N["bg"]> extends false
  ? { readonly bg: "the Bulgarian name is written in Cyrillic" }
  : HasCyrillic<N["en"]> extends true ? { readonly en: "the English name has no Cyrillic letters" }
  : unknown;

/**
 * A submission as the registry writes it: its kind (which is its typeId and names it, see
 * {@link KIND_NAMES}), its local input, its reader, its request schema, summary, sample request
 * and (for a D1/D6 pair) the body fields naming its files.
 */
export interface SubmissionRow<K extends SubmissionKind, Req extends z.ZodType> {
  readonly kind: K;
  readonly localInput: "optional" | "required";
  readonly reader: SubmissionReader;
  readonly request: Req;
  readonly summary: string;
  readonly sample: SampleRequest;
  readonly pathFields?: readonly string[];
}

/** A submission's registry entry from its row (scope `eik`; always confirmed by a sender). */
export const submission = <K extends SubmissionKind, Req extends z.ZodType>(
  row: SubmissionRow<K, Req>,
): SubmissionOperation<K, Req> => ({
  typeId: row.kind,
  name: KIND_NAMES[row.kind],
  family: "submission",
  kind: row.kind,
  summary: row.summary,
  request: row.request,
  result: sub.SubmissionResult,
  scope: "eik",
  localInput: row.localInput,
  needsSender: true,
  sample: row.sample,
  reader: row.reader,
  pathFields: row.pathFields ?? [],
});

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

/** What the rows of reports, local operations and batches all name, as their entries have it. */
export interface NamedRow<T extends string, Req extends z.ZodType> {
  readonly typeId: T;
  /** Its name as accountants say it; the confirmation page and the console show it. */
  readonly name: Bilingual;
  readonly summary: string;
  readonly request: Req;
}

/** A row whose name passed {@link NameCheck} (`N` is the name's literal type). */
type Checked<R, N extends Bilingual> = R & { readonly name: N & NameCheck<N> };

/**
 * Whether an operation acts on the portal in a sender's name: `"confirm"` — the person at the
 * machine confirms the sender (and in live mode types the PIN) before it runs; `"none"` — it
 * runs without a sender and without the confirmation page. A word, not a boolean, so that it
 * cannot be swapped with {@link ReportMemo} in a row.
 */
export type SenderStep = "confirm" | "none";
/**
 * Whether the test portal may keep a report's answer for the calendar day: `"per_day"` — the
 * answer depends only on the request and the day (memoized); `"none"` — computed on every call.
 */
export type ReportMemo = "per_day" | "none";

/**
 * A report as the registry writes it (docs/architecture.md § Adding an operation, step 2):
 * every field named, the flags words of their own ({@link SenderStep}, {@link ReportMemo}) and
 * the name `{ bg, en }` checked by {@link NameCheck}, so a row with two values swapped does not
 * compile.
 */
export interface ReportRow<
  T extends string = string,
  A extends string = string,
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
> extends NamedRow<T, Req> {
  readonly family: "report" | "portal_files";
  /** The test portal's generator (its key in src/mock/answers.ts `REPORT_ANSWERS`). */
  readonly answer: A;
  readonly result: Res;
  readonly scope: TokenScope;
  readonly sender: SenderStep;
  readonly memo: ReportMemo;
  /** A valid request body; see {@link SampleRequest}. */
  readonly sample: SampleRequest;
}

/** A report's registry entry from its row. */
export const report = <
  const T extends string,
  const A extends string,
  Req extends z.ZodType,
  Res extends z.ZodType,
  const N extends Bilingual,
>(
  row: Checked<ReportRow<T, A, Req, Res>, N>,
): ReportOperation<T, A, Req, Res> => ({
  ...named(row),
  family: row.family,
  result: row.result,
  scope: row.scope,
  localInput: "none",
  needsSender: row.sender === "confirm",
  sample: row.sample,
  answer: row.answer,
  dayStable: row.memo === "per_day",
});

/** A local operation as the registry writes it: typeId, name, summary, schemas, what it runs. */
export interface LocalRow<T extends string, Req extends z.ZodType> extends NamedRow<T, Req> {
  readonly result: z.ZodType;
  readonly run: LocalRun;
}

/** What every local operation is: a read of the disk, without token scope or sender. */
const LOCAL = {
  family: "local",
  scope: "none",
  localInput: "required",
  needsSender: false,
} as const satisfies Partial<LocalOperation>;

/** A local operation's registry entry (no token scope, no sender, input required). */
export const local = <const T extends string, Req extends z.ZodType, const N extends Bilingual>(
  row: Checked<LocalRow<T, Req>, N>,
): LocalOperation<T, Req> => localEntry(row);

const localEntry = <T extends string, Req extends z.ZodType>(
  row: LocalRow<T, Req>,
): LocalOperation<T, Req> => ({
  ...named(row),
  ...LOCAL,
  result: row.result,
  sample: row.run.run === "scan"
    ? { rootFolder: SAMPLE_FOLDER, year: 2025, month: 12 }
    : { directory: SAMPLE_FOLDER },
  local: row.run,
});

/** A folder scan as the registry writes it: a local operation that finds files of one kind. */
export interface ScanRow<T extends string, Req extends z.ZodType>
  extends Omit<LocalRow<T, Req>, "run"> {
  readonly fileKind: Extract<LocalRun, { run: "scan" }>["fileKind"];
}

/** A folder scan's registry entry. */
export const scan = <const T extends string, Req extends z.ZodType, const N extends Bilingual>(
  row: Checked<ScanRow<T, Req>, N>,
): LocalOperation<T, Req> =>
  localEntry({
    ...named(row),
    result: row.result,
    run: { run: "scan", fileKind: row.fileKind, folderField: "rootFolder" },
  });

/** A folder-wide filing as the registry writes it: typeId, the submission kind, name, summary,
 * request schema and how it groups the files it finds. */
export interface BatchRow<T extends string, Req extends z.ZodType> extends NamedRow<T, Req> {
  readonly kind: SubmissionKind;
  readonly grouping: BatchGrouping;
}

/** What every folder-wide filing is: files from the disk, filed for the token's EIKs by a
 * sender. */
const BATCH = {
  family: "batch",
  result: files.BatchResult,
  scope: "eiks",
  localInput: "required",
  needsSender: true,
} as const satisfies Partial<BatchOperation>;

/** A folder-wide filing's registry entry (scope `eiks`; confirmed by a sender). */
export const batch = <const T extends string, Req extends z.ZodType, const N extends Bilingual>(
  row: Checked<BatchRow<T, Req>, N>,
): BatchOperation<T, Req> => batchEntry(row);

const batchEntry = <T extends string, Req extends z.ZodType>(
  row: BatchRow<T, Req>,
): BatchOperation<T, Req> => ({
  ...named(row),
  ...BATCH,
  kind: row.kind,
  sample: row.grouping.group === "xml_notices"
    ? { rootFolder: SAMPLE_FOLDER }
    : { rootFolder: SAMPLE_FOLDER, year: 2025, month: 12 },
  grouping: row.grouping,
});

/** A folder-wide filing of the XML employment notices of one form (art. 62 or art. 123). */
export const noticeBatch = <const F extends "62" | "123", const N extends Bilingual>(
  row: { readonly form: F; readonly name: N & NameCheck<N>; readonly summary: string },
): BatchOperation<`etz${F}_batch`, typeof files.NoticeBatchRequest> =>
  batchEntry({
    typeId: `etz${row.form}_batch`,
    kind: `etz${row.form}`,
    name: row.name,
    summary: row.summary,
    request: files.NoticeBatchRequest,
    grouping: { group: "xml_notices", form: row.form },
  });

/** The fields a row names as its entry has them: typeId, name, summary, request schema. */
function named<T extends string, Req extends z.ZodType>(row: NamedRow<T, Req>) {
  return { typeId: row.typeId, name: row.name, summary: row.summary, request: row.request };
}

/** "Декларации обр. 1 и 6" → "декларации обр. 1 и 6" (inside a sentence). */
const lowerFirst = (s: string) => s.charAt(0).toLocaleLowerCase("bg") + s.slice(1);
