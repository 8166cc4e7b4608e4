/**
 * Folder-wide scans for `dec1_6_batch`, `vat_batch`, `etz62_batch`, `etz123_batch`: find every
 * company's documents under the root and group them by EIK. A company whose files are malformed
 * becomes a group with `error` (the batch marks it failed and sends nothing for it); an
 * unreadable file is a problem of the scan, never an abort.
 *
 * Grouping rules: VAT — each DEKLAR.TXT of the period with the POKUPKI/PRODAGBI/VIES beside it;
 * payroll — the D1 and D6 files of the period by employer EIK; notices — XML files whose root
 * element is `<etzemploy>` (form 62, per the public XSD) or whose root element name contains
 * "123" (form 123; that root name is not verified), by their `<eik>` element.
 * @module
 */
import { AppError, type BatchGrouping, isAppError } from "../../contract/mod.ts";
import type { SubmissionFiles } from "./types.ts";
import pMap from "p-map";
import { bodyTaxPeriod } from "../period.ts";
import { findFiles } from "./scans.ts";
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

/**
 * Scan a tree for a folder-wide operation.
 * @param grouping how the registry groups this batch (VAT folders, payroll pairs, XML notices)
 * @param body validated request (year, month, recursive)
 * @param tree the root
 * @returns groups by EIK, files examined, problems
 */
export async function scanBatchTree(
  grouping: BatchGrouping,
  body: Readonly<Record<string, unknown>>,
  tree: FileTree,
): Promise<BatchScan> {
  const recursive = body.recursive !== false;
  const period = bodyTaxPeriod(body);
  const groups = new Map<string, SubmissionFiles>();
  if (grouping.group === "vat_folders") {
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
  if (grouping.group === "payroll_pairs") {
    const d1 = await findFiles(tree, "d1", period, recursive);
    const d6 = await findFiles(tree, "d6", null, recursive);
    const by = new Map<string, { d1: TreeFile | null; d6: TreeFile | null }>();
    for (const m of d1.matches) by.set(m.eik, { d1: m.file, d6: null });
    for (const m of d6.matches.filter((x) => period === null || x.period === period)) {
      const g = by.get(m.eik) ?? { d1: null, d6: null };
      g.d6 = m.file;
      by.set(m.eik, g);
    }
    for (const [eik, g] of by) {
      const names = [g.d1?.path, g.d6?.path].filter((x): x is string => !!x);
      try {
        groups.set(eik, await readPayroll(g.d1, g.d6, body));
      } catch (e) {
        groups.set(eik, failed(names, e));
      }
    }
    // Both scans walk the same tree: a folder that could not be walked is one problem.
    const seen = new Set<string>();
    const problems = [...d1.problems, ...d6.problems].filter((p) => {
      const k = `${p.errorCode}\u0000${p.path}`;
      return seen.has(k) ? false : (seen.add(k), true);
    });
    return { groups, totalScanned: d1.scanned, problems };
  }
  // Notices (XML).
  const { files, problems } = await tree.list(recursive);
  const xml = files.filter((f) => f.name.toLowerCase().endsWith(".xml"));
  const want62 = grouping.form === "62";
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
