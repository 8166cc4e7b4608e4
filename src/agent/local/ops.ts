/**
 * The agent's {@link LocalOps}: local scans, VAT parse, submission files and folder-wide scans,
 * over disk paths or inline input.
 * @module
 */
import type { OperationSpec } from "../../contract/operations.ts";
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
    async runLocal(op: OperationSpec, body, source) {
      const display = String(op.typeId === "vat_files_parse" ? body.directory : body.rootFolder);
      const tree = await openTree(source, display);
      if (op.typeId === "vat_files_parse") return runVatParse(tree, display);
      return runScan(op.typeId, body, tree);
    },
    readSubmission: (op, body, source) => readSubmissionFiles(op.typeId, body, source),
    async scanBatch(op, body, source) {
      return scanBatchTree(op.typeId, body, await openTree(source, String(body.rootFolder)));
    },
  };
}
