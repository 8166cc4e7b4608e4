/**
 * Reading and checking the files of one submission before anything is sent (docs/local-input.md):
 * VAT (a folder with DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT and optionally VIES.TXT) and payroll
 * declarations 1 and 6 (`dec1FilePath` / `dec6FilePath`, a folder, or inline files). A
 * malformed file is refused with FILE_PARSE_ERROR listing every parse error; D1 and D6 must
 * belong to the same EIK (FILE_EIK_MISMATCH) and to the requested period
 * (FILE_PERIOD_MISMATCH). Each file must be of the kind its place asks (FILE_KIND_MISMATCH: a D6
 * given as the D1, a ledger named DEKLAR.TXT) and of the request's EIK (FILE_EIK_MISMATCH). A
 * submission of one file (annual returns, ETZ notices, audit files, high-fiscal-risk notices)
 * is checked to be that declaration (src/formats/declaration_file.ts).
 * @module
 */
import {
  AppError,
  bi,
  isAppError,
  type NraFileKind,
  type SubmissionOperation,
} from "../../contract/mod.ts";
// formats/mod.ts leaves out the iconv-lite encoder (src/formats/encode/), so it stays
// out of the agent's load path when it reads files.
import {
  checkDeclarationFile,
  contentKinds,
  detectFileKind,
  type FileWarning,
  kindFromFileName,
  NRA_FORMATS,
  parseD1,
  parseD6,
  parseError,
  parseVatFolderFiles,
  type SingleFileKind,
  summarizeD1,
  summarizeD6,
  summarizeDeklar,
} from "../../formats/mod.ts";
import type { SubmissionFile } from "../../portal/mod.ts";
import type { LocalSource, SubmissionBody, SubmissionFiles } from "./types.ts";
import { REQUIRED_VAT_KINDS, VAT_KINDS, vatFileName } from "./vat_files.ts";
import { diskTree, type FileTree, openTree, type TreeFile } from "./tree.ts";
import { type PeriodFields, taxPeriod } from "../period.ts";
import { requireWindows1251Files } from "./file_encoding.ts";
import { fileCompany, payrollFigures, vatFigures } from "./figures.ts";

function checkPeriod(found: string | null, body: PeriodFields, file: string): void {
  if (typeof body.year !== "number" || typeof body.month !== "number") return;
  const want = taxPeriod(body.year, body.month);
  if (found !== want) {
    throw new AppError(
      "FILE_PERIOD_MISMATCH",
      `${file} is for period ${found ?? "?"}, not for the requested ${want}`,
      { file, period: found, requested: want },
    );
  }
}

/**
 * Read and check a VAT folder.
 * @param tree the folder holding the VAT files
 * @param body validated VatRequest (year, month)
 * @returns the files to submit, the filer EIK and the period
 * @throws AppError FILE_ENCODING_UNSUPPORTED | FILE_PARSE_ERROR | FILE_PERIOD_MISMATCH |
 *   LOCAL_INPUT_REQUIRED
 */
export async function readVatFolder(tree: FileTree, body: PeriodFields): Promise<SubmissionFiles> {
  const found: Partial<Record<NraFileKind, TreeFile>> = {};
  const bytes: Partial<Record<NraFileKind, Uint8Array>> = {};
  for (const k of VAT_KINDS) {
    const f = await tree.find(vatFileName(k));
    if (f) {
      found[k] = f;
      bytes[k] = await f.read();
    }
  }
  const missing = REQUIRED_VAT_KINDS.filter((k) => !found[k]).map(vatFileName);
  if (missing.length) {
    throw new AppError(
      "LOCAL_INPUT_REQUIRED",
      `The VAT folder ${tree.root} lacks ${missing.join(", ")}`,
      {
        missing,
        folder: tree.root,
      },
    );
  }
  for (const k of VAT_KINDS) {
    const file = found[k];
    if (!file) continue;
    // Each file is the kind its name claims (a ledger saved as DEKLAR.TXT is not a return).
    // Its content, not its name: a file the content fits exactly as another kind only.
    // non-null: found[k] and bytes[k] are set together (the loop above)
    const exact = contentKinds(bytes[k]!).exact;
    // non-null: exact is not empty here (exact.length === 0 is the other branch)
    const kind = exact.length === 0 || exact.includes(k) ? k : exact[0]!;
    if (kind !== k) {
      throw new AppError(
        "FILE_KIND_MISMATCH",
        `${file.path} is ${NRA_FORMATS[kind].label}, not ${NRA_FORMATS[k].label}`,
        { file: file.path, found: kind, expected: k },
      );
    }
  }
  requireWindows1251Files(
    VAT_KINDS.filter((k) => found[k]).map((k) => ({
      // non-null: filtered by found[k] on the line above; bytes[k] is set with it
      path: found[k]!.path,
      // non-null: bytes[k] is set with found[k]
      bytes: bytes[k]!,
    })),
  );
  const r = parseVatFolderFiles(bytes, {
    fileNames: Object.fromEntries(Object.entries(found).map(([k, f]) => [k, f.path])),
  });
  if (r.errors.length) {
    // non-null: errorMessage is null only when errors is empty
    throw new AppError("FILE_PARSE_ERROR", r.errorMessage!, {
      errors: r.errors.map((e) => ({ message: e.message, ...e.details })),
    });
  }
  // non-null: DEKLAR.TXT is required (checked above) and parsed without errors
  const deklar = r.deklar.data!;
  const s = summarizeDeklar(deklar);
  // non-null: DEKLAR.TXT is required (missing files are refused above)
  const deklarPath = found.deklar!.path;
  checkPeriod(s.period, body, deklarPath);
  if (typeof body.eik === "string" && s.eik !== body.eik) {
    throw new AppError(
      "FILE_EIK_MISMATCH",
      `${deklarPath} is for EIK ${s.eik}, not for ${body.eik}`,
      { file: deklarPath, eiks: [s.eik], requested: body.eik },
    );
  }
  const files: SubmissionFile[] = VAT_KINDS.filter((k) => found[k]).map((k) => ({
    name: vatFileName(k),
    kind: k,
    // non-null: filtered by found[k] above; bytes[k] is set with it
    bytes: bytes[k]!,
    ...(r[k].count === null ? {} : { numRecords: r[k].count }),
  }));
  return {
    files,
    eiks: [s.eik],
    period: s.period,
    names: Object.values(found).map((f) => f.path),
    warnings: [...r.readWarnings, ...r.warnings].map((
      w,
    ) => (bi((w as { messageBg?: string }).messageBg ?? w.message, w.message))),
    companies: fileCompany(s.eik, deklar.name),
    figures: vatFigures(s.eik, deklar, {
      purchases: r.pokupki.count ?? 0,
      sales: r.prodagbi.count ?? 0,
    }),
  };
}

async function payrollFile(f: TreeFile, want: "d1" | "d6") {
  const bytes = await f.read();
  requireWindows1251Files([{ path: f.path, bytes }]);
  const kind = detectFileKind(bytes, f.name);
  if (kind !== want) {
    throw new AppError(
      kind === "unknown" ? "FILE_KIND_UNKNOWN" : "FILE_KIND_MISMATCH",
      `${f.path} is not a ${
        want === "d1" ? "declaration 1 (EMPL2021.TXT)" : "declaration 6 (NRA62007.TXT)"
      } file${kind === "unknown" ? "" : ` but ${NRA_FORMATS[kind].label}`}`,
      { file: f.path, ...(kind === "unknown" ? {} : { found: kind, expected: want }) },
    );
  }
  const warnings: FileWarning[] = []; // blank lines skipped
  const d1 = want === "d1" ? parseD1(bytes, f.path, { warnings }) : null;
  const d6 = want === "d6" ? parseD6(bytes, f.path, { warnings }) : null;
  // non-null: `want` is "d1" or "d6", so exactly one of the two was parsed.
  const s = d1 ? summarizeD1(d1) : summarizeD6(d6!);
  if (s.numRecords === 0) {
    // A 0-byte file or one of blank lines only, named as a D1 or D6: no record, so no EIK or
    // period to check and nothing to file (docs/local-input.md § What is checked per filing);
    // the parsers' whole-file error, as an empty DEKLAR.TXT gets.
    throw parseError({ file: f.path }, "is empty; expected at least one record");
  }
  if (s.eiks.length > 1) {
    throw new AppError(
      "FILE_EIK_MISMATCH",
      `${f.path} holds records of several EIKs: ${s.eiks.join(", ")}`,
      {
        file: f.path,
        eiks: s.eiks,
      },
    );
  }
  return { f, bytes, s, warnings, d1, d6 };
}

/**
 * Read and check a D1/D6 pair (one of them may be absent).
 * @param d1 the D1 file or null
 * @param d6 the D6 file or null
 * @param body validated request (year, month, eik?)
 * @returns the files to submit
 * @throws AppError FILE_ENCODING_UNSUPPORTED | FILE_PARSE_ERROR (also for a file of no
 *   records) | FILE_KIND_UNKNOWN | FILE_EIK_MISMATCH | FILE_PERIOD_MISMATCH
 */
export async function readPayroll(
  d1: TreeFile | null,
  d6: TreeFile | null,
  body: PeriodFields,
): Promise<SubmissionFiles> {
  if (!d1 && !d6) {
    throw new AppError(
      "LOCAL_INPUT_REQUIRED",
      "Give dec1FilePath or dec6FilePath (or the files inline)",
      {
        field: "dec1FilePath",
      },
    );
  }
  const parts = [];
  const errors: AppError[] = [];
  for (const [f, k] of [[d1, "d1"], [d6, "d6"]] as const) {
    if (!f) continue;
    try {
      parts.push(await payrollFile(f, k));
    } catch (e) {
      if (isAppError(e) && e.code === "FILE_PARSE_ERROR") errors.push(e);
      else throw e;
    }
  }
  if (errors.length) {
    throw new AppError("FILE_PARSE_ERROR", errors.map((e) => e.message).join(" ; "), {
      errors: errors.map((e) => ({ message: e.message, ...e.details })),
    });
  }
  // non-null: payrollFile refuses a file of no records, and a record always has an EIK.
  const eiks = [...new Set(parts.map((p) => p.s.eik!))];
  if (eiks.length > 1) {
    throw new AppError(
      "FILE_EIK_MISMATCH",
      `D1 and D6 belong to different EIKs: ${eiks.join(", ")}`,
      { eiks },
    );
  }
  if (typeof body.eik === "string" && eiks[0] !== body.eik) {
    throw new AppError(
      "FILE_EIK_MISMATCH",
      `The files are for EIK ${eiks[0]}, not for ${body.eik}`,
      {
        eiks,
        requested: body.eik,
      },
    );
  }
  for (const p of parts) checkPeriod(p.s.period, body, p.f.path);
  // non-null: at least one file was given (checked above) and each has an EIK.
  const eik = eiks[0]!;
  const d1Records = parts.find((p) => p.d1)?.d1 ?? null;
  const d6Records = parts.find((p) => p.d6)?.d6 ?? null;
  return {
    files: parts.map((p) => ({
      name: p.f.name,
      kind: p.f === d1 ? "d1" : "d6",
      bytes: p.bytes,
      numRecords: p.s.numRecords,
    })),
    eiks,
    // non-null: at least one of D1 and D6 was found (refused at the start), and a file that fails
    // to parse is refused just above, so parts is not empty
    period: parts[0]!.s.period,
    names: parts.map((p) => p.f.path),
    warnings: parts.flatMap((p) => p.warnings).map((w) => (bi(w.messageBg, w.message))),
    // D6 field 2 names the employer (D1 carries no company name).
    companies: fileCompany(eik, d6Records?.[0]?.name),
    // non-null: at least one of D1 and D6 was found (refused at the start), and a file that fails
    // to parse is refused just above, so parts is not empty
    figures: payrollFigures(eik, parts[0]!.s.period, d1Records, d6Records),
  };
}

/** Find a payroll pair in a folder: the top-level D1 and D6 files of the requested period. */
async function payrollInTree(tree: FileTree, body: PeriodFields) {
  const { files } = await tree.list(false);
  let d1: TreeFile | null = null;
  let d6: TreeFile | null = null;
  for (const f of files) {
    if (!f.name.toUpperCase().endsWith(".TXT")) continue;
    const kind = detectFileKind(await f.read(), f.name);
    // A file named as a D1 or D6 (EMPL*, NRA6*) must be one: never skipped as something else.
    const named = kindFromFileName(f.name);
    if ((named === "d1" || named === "d6") && kind !== named) {
      const what = named === "d1"
        ? "a declaration 1 (EMPL2021.TXT)"
        : "a declaration 6 (NRA62007.TXT)";
      throw new AppError(
        kind === "unknown" ? "FILE_KIND_UNKNOWN" : "FILE_KIND_MISMATCH",
        `${f.path} is named as ${what} but is ${
          kind === "unknown" ? "no NRA file format" : NRA_FORMATS[kind].label
        }`,
        { file: f.path, ...(kind === "unknown" ? {} : { found: kind, expected: named }) },
      );
    }
    if (kind === "d1" && !d1) d1 = f;
    if (kind === "d6" && !d6) d6 = f;
  }
  return readPayroll(d1, d6, body);
}

/**
 * Read the files of a submission from its local input.
 * @param op the submission's registry entry (its `reader` and `pathFields`)
 * @param body validated body
 * @param source path (X-Svc-File-Path) and inline input
 * @returns the files and what was learnt from them
 */
export async function readSubmissionFiles(
  op: SubmissionOperation,
  body: SubmissionBody,
  source: LocalSource,
): Promise<SubmissionFiles> {
  const fields: PeriodFields = body;
  if (op.reader === "vat_folder") return readVatFolder(await openTree(source, "inline"), body);
  if (op.reader === "payroll_pair") {
    // The D1 and D6 paths (the registry's pathFields, in that order), or a folder / inline.
    const [d1Path, d6Path] = op.pathFields.map((f) => fields[f]);
    if (typeof d1Path === "string" || typeof d6Path === "string") {
      const one = async (p: unknown) => {
        if (typeof p !== "string") return null;
        const t = await diskTree(p);
        return (await t.list(false)).files[0] ?? null;
      };
      return readPayroll(await one(d1Path), await one(d6Path), body);
    }
    return payrollInTree(await openTree(source, "inline"), body);
  }
  const tree = await openTree(source, "inline");
  const { files } = await tree.list(false);
  if (files.length !== 1) {
    throw new AppError("LOCAL_INPUT_REQUIRED", `${op.typeId} takes exactly one file`, {
      files: files.length,
    });
  }
  // non-null: files is not empty (checked above)
  const f = files[0]!;
  const bytes = await f.read();
  // The file must be the declaration the operation files, of the request's EIK (and period where
  // the format has one): the same check in test and live mode (docs/local-input.md).
  const checked = checkDeclarationFile(op.kind as SingleFileKind, bytes, f.path, {
    eik: String(body.eik),
    ...(fields.year !== undefined ? { year: fields.year } : {}),
    ...(fields.month !== undefined ? { month: fields.month } : {}),
  });
  return {
    files: [{ name: f.name, kind: checked.fileType === "xml" ? "xml" : "other", bytes }],
    eiks: [...checked.eiks],
    period: null,
    names: [f.path],
  };
}
