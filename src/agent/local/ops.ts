/**
 * The agent's {@link LocalOps}: local scans, VAT parse, submission files and folder-wide scans,
 * over disk paths or inline input.
 * @module
 */
import type { LocalOps, ScanProgress } from "./types.ts";
import type { PeriodFields } from "../period.ts";
import { scanBatchTree } from "./batch_scan.ts";
import { runScan, runVatParse } from "./scans.ts";
import { readSubmissionFiles } from "./submission_files.ts";
import { type FileTree, openTree, type TreeFile } from "./tree.ts";

/**
 * A tree that reports how many of its files were examined (read, or their head read) of those
 * found, for the console's progress of a long scan.
 */
function counted(tree: FileTree, progress: ScanProgress): FileTree {
  let found = 0;
  const seen = new Set<string>();
  const mark = (f: TreeFile) => {
    if (seen.has(f.path)) return;
    seen.add(f.path);
    progress(seen.size, found);
  };
  const wrap = (f: TreeFile): TreeFile => ({
    ...f,
    read: () => (mark(f), f.read()),
    readHead: (n) => (mark(f), f.readHead(n)),
  });
  return {
    root: tree.root,
    async list(recursive) {
      const out = await tree.list(recursive);
      found = out.files.length;
      progress(seen.size, found);
      return { ...out, files: out.files.map(wrap) };
    },
    async find(name) {
      const f = await tree.find(name);
      return f ? wrap(f) : null;
    },
  };
}

/**
 * Create the local operations.
 * @returns LocalOps reading the real file system (and inline input)
 */
export function createLocalOps(): LocalOps {
  return {
    async runLocal(op, body, source, progress) {
      const fields: PeriodFields = body;
      const display = String(fields[op.local.folderField]);
      const opened = await openTree(source, display);
      const tree = progress ? counted(opened, progress) : opened;
      const run = op.local;
      if (run.run === "vat_parse") return runVatParse(tree, display);
      // A programming error: the registry pairs every scan with a scan request schema.
      if (!("year" in body)) throw new Error(`${op.typeId}: a scan without year and month`);
      return runScan(run.fileKind, body, tree);
    },
    readSubmission: (op, body, source) => readSubmissionFiles(op, body, source),
    async scanBatch(op, body, source) {
      return scanBatchTree(op.grouping, body, await openTree(source, body.rootFolder));
    },
  };
}
