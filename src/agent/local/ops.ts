/**
 * The agent's {@link LocalOps}: local scans, VAT parse, submission files and folder-wide scans,
 * over disk paths or inline input.
 * @module
 */
import type { LocalOps } from "./types.ts";
import { scanBatchTree } from "./batch_scan.ts";
import { runScan, runVatParse } from "./scans.ts";
import { readSubmissionFiles } from "./submission_files.ts";
import { openTree } from "./tree.ts";

/**
 * Create the local operations.
 * @returns LocalOps reading the real file system (and inline input)
 */
export function createLocalOps(): LocalOps {
  return {
    async runLocal(op, body, source) {
      const display = String(body[op.local.folderField]);
      const tree = await openTree(source, display);
      const run = op.local;
      if (run.run === "vat_parse") return runVatParse(tree, display);
      return runScan(run.fileKind, body, tree);
    },
    readSubmission: (op, body, source) => readSubmissionFiles(op, body, source),
    async scanBatch(op, body, source) {
      return scanBatchTree(op.grouping, body, await openTree(source, String(body.rootFolder)));
    },
  };
}
