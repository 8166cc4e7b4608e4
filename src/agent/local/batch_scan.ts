/**
 * Folder-wide scans for `dec1_6_batch`, `vat_batch`, `etz62_batch`, `etz123_batch`: find every
 * company's documents under the root and group them by EIK. A company whose files are malformed
 * becomes a group with `error` (the batch marks it failed and sends nothing for it); an
 * unreadable file is a problem of the scan, never an abort.
 *
 * Grouping rules: VAT — each DEKLAR.TXT of the period with the POKUPKI/PRODAGBI/VIES beside it;
 * payroll — the D1 and D6 files of the period by employer EIK, one of each at most: a company
 * with two D1 or two D6 files for the period (say a regular and a corrective one) fails with
 * FILE_AMBIGUOUS, nothing is guessed; an annual D6 (month 13), found with December, is not
 * filed by a monthly batch and is reported as a problem (FILE_PERIOD_MISMATCH), so the
 * accountant knows it is still to be filed; notices — XML files whose root
 * element is `<etzemploy>` (form 62, per the public XSD) or whose root element name contains
 * "123" (form 123; that root name is not verified), by their `<eik>` element.
 * @module
 */
import { AppError, type BatchGrouping, isAppError } from "../../contract/mod.ts";
import { checkDeclarationFile } from "../../formats/mod.ts";
import type { BatchBody, SubmissionFiles } from "./types.ts";
import pMap from "p-map";
import { bodyTaxPeriod, displayPeriod, type PeriodFields } from "../period.ts";
import { findFiles, type Identified } from "./scans.ts";
import { readPayroll, readVatFolder } from "./submission_files.ts";
import { diskTree, type FileTree, inlineTree, type TreeFile, type TreeProblem } from "./tree.ts";

/** Result of a folder-wide scan. */
export interface BatchScan {
  groups: Map<string, SubmissionFiles>;
  totalScanned: number;
  problems: TreeProblem[];
}

function failed(names: string[], e: unknown): SubmissionFiles {
  const err = isAppError(e) ? e : new AppError("LOCAL_PATH_UNREADABLE", String(e));
  return {
    files: [],
    eiks: [],
    period: null,
    names,
    error: { code: err.code, message: err.message },
  };
}

/** A tree holding exactly the files of one folder of another tree. */
function folderOf(files: TreeFile[], folder: string): FileTree {
  const inFolder = files.filter((f) => f.folder === folder);
  return {
    root: folder,
    list: () => Promise.resolve({ files: inFolder, problems: [] }),
    find: (name) =>
      Promise.resolve(inFolder.find((f) => f.name.toUpperCase() === name.toUpperCase()) ?? null),
  };
}

/** How a payroll file's correction code reads in messages (D1 field 52, D6 block 1). */
function correctionLabel(code: number | null): string {
  if (code === 0) return "regular";
  if (code === 1) return "corrective, code 1";
  if (code === 8) return "deleting, code 8";
  return code === null ? "no correction code" : `correction code ${code}`;
}

/** A company with more than one D1 (or D6) for the batch's period: which files, which kinds. */
function ambiguous(eik: string, files: Identified[], body: PeriodFields) {
  // non-null: called only for a company with more than one file
  const kind = files[0]!.kind === "d1" ? "declaration 1" : "declaration 6";
  const list = files.map((m) => `${m.file.path} (${correctionLabel(m.correctionCode)})`);
  return new AppError(
    "FILE_AMBIGUOUS",
    `EIK ${eik} has ${files.length} ${kind} files for ${displayPeriod(body)}: ${
      list.join(", ")
    }. A batch files one of each per company and does not guess which: keep one in the ` +
      "folder, or file them one at a time (dec1_6)",
    { eik, files: files.map((m) => m.file.path), corrections: files.map((m) => m.correctionCode) },
  );
}

/** An annual D6 found with December: reported, never filed as the month's declaration. */
function annualNotFiled(m: Identified, body: PeriodFields): TreeProblem {
  return {
    path: m.file.path,
    errorCode: "FILE_PERIOD_MISMATCH",
    error: `${m.file.path} is the annual declaration 6 of ${
      m.period.slice(0, 4)
    } (month 13), not the monthly one for ${displayPeriod(body)}: the batch did not file it`,
  };
}

/**
 * Scan a tree for a folder-wide operation.
 * @param grouping how the registry groups this batch (VAT folders, payroll pairs, XML notices)
 * @param body validated request (year, month, recursive)
 * @param tree the root
 * @returns groups by EIK, files examined, problems
 */
export async function scanBatchTree(
  grouping: BatchGrouping,
  body: BatchBody,
  tree: FileTree,
): Promise<BatchScan> {
  if (grouping.group === "vat_folders") return await scanVatFolders(body, tree);
  if (grouping.group === "payroll_pairs") return await scanPayrollPairs(body, tree);
  return await scanNotices(grouping.form === "62", body, tree);
}

/** VAT: one folder per return found (its deklar.txt), read as a whole; a second return of
 * one EIK is refused (FILE_EIK_MISMATCH). */
async function scanVatFolders(body: BatchBody, tree: FileTree): Promise<BatchScan> {
  const recursive = body.recursive;
  const period = bodyTaxPeriod(body);
  const groups = new Map<string, SubmissionFiles>();
  const { matches, scanned, problems } = await findFiles(tree, "deklar", period, recursive);
  const { files } = await tree.list(recursive);
  for (const m of matches) {
    const folder = folderOf(files, m.file.folder);
    try {
      const g = await readVatFolder(folder, body);
      groups.set(
        m.eik,
        groups.has(m.eik)
          ? failed(
            [m.file.path],
            new AppError("FILE_EIK_MISMATCH", `Two VAT returns for EIK ${m.eik}`),
          )
          : g,
      );
    } catch (e) {
      groups.set(m.eik, failed([m.file.path], e));
    }
  }
  return { groups, totalScanned: scanned, problems };
}

/** Payroll: declarations 1 and 6 of the period paired by EIK (an annual declaration 6 of
 * another period is a problem; two of one kind for an EIK are ambiguous). */
async function scanPayrollPairs(body: BatchBody, tree: FileTree): Promise<BatchScan> {
  const recursive = body.recursive;
  const period = bodyTaxPeriod(body);
  const groups = new Map<string, SubmissionFiles>();
  const d1 = await findFiles(tree, "d1", period, recursive);
  const d6 = await findFiles(tree, "d6", period, recursive);
  // Both scans walk the same tree: a folder that could not be walked is one problem.
  const seen = new Set<string>();
  const problems = [...d1.problems, ...d6.problems].filter((p) => {
    const k = `${p.errorCode}\u0000${p.path}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const by = new Map<string, { d1: Identified[]; d6: Identified[] }>();
  // non-null: set() on the same line has just stored it
  const of = (eik: string) => by.get(eik) ?? by.set(eik, { d1: [], d6: [] }).get(eik)!;
  for (const m of d1.matches) of(m.eik).d1.push(m);
  for (const m of d6.matches) {
    if (m.annual && m.period !== period) problems.push(annualNotFiled(m, body));
    else of(m.eik).d6.push(m);
  }
  for (const [eik, g] of by) {
    const names = [...g.d1, ...g.d6].map((m) => m.file.path);
    const twice = g.d1.length > 1 ? g.d1 : g.d6.length > 1 ? g.d6 : null;
    if (twice !== null) {
      groups.set(eik, failed(names, ambiguous(eik, twice, body)));
      continue;
    }
    try {
      groups.set(eik, await readPayroll(g.d1[0]?.file ?? null, g.d6[0]?.file ?? null, body));
    } catch (e) {
      groups.set(eik, failed(names, e));
    }
  }
  return { groups, totalScanned: d1.scanned, problems };
}

/** Notices (XML): every .xml file of the form asked (62, else 123), checked and grouped by its
 * <eik>. */
async function scanNotices(want62: boolean, body: BatchBody, tree: FileTree): Promise<BatchScan> {
  const groups = new Map<string, SubmissionFiles>();
  const { files, problems } = await tree.list(body.recursive);
  const xml = files.filter((f) => f.name.toLowerCase().endsWith(".xml"));
  const dec = new TextDecoder("windows-1251");
  await pMap(xml, async (f) => {
    try {
      const bytes = await f.read();
      const text = dec.decode(bytes.subarray(0, 64 * 1024));
      const root =
        /<([A-Za-z_][\w.-]*)[\s>]/.exec(text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ""))?.[1] ??
          "";
      const is62 = root.toLowerCase() === "etzemploy";
      if (want62 ? !is62 : !root.includes("123")) return;
      const eik = /<eik>\s*(\d{9,13})\s*<\/eik>/i.exec(text)?.[1];
      if (!eik) {
        problems.push({
          path: f.path,
          errorCode: "FILE_PARSE_ERROR",
          error: `${f.path}: no <eik> element`,
        });
        return;
      }
      // The whole file is then checked as the notice it claims to be, of that EIK (well-formed,
      // its encoding, its root and <eik>): the same check as a notice filed on its own.
      checkDeclarationFile(want62 ? "etz62" : "etz123", bytes, f.path, { eik });
      const g = groups.get(eik) ?? { files: [], eiks: [eik], period: null, names: [] };
      g.files.push({ name: f.name, kind: "xml", bytes });
      g.names.push(f.path);
      groups.set(eik, g);
    } catch (e) {
      problems.push({
        path: f.path,
        errorCode: isAppError(e) ? e.code : "LOCAL_PATH_UNREADABLE",
        error: String((e as Error).message),
      });
    }
  }, { concurrency: 16 });
  return { groups, totalScanned: xml.length, problems };
}

export { diskTree, inlineTree };
