/**
 * The `files` of a scan result (docs/local-input.md § Scans): each match's
 * content as UTF-8 text, decoded from whatever encoding the file was saved in (Windows-1251,
 * or UTF-8/UTF-16 with a warning naming the file, docs/formats.md). A file that cannot be
 * decoded (UTF-8 and Windows-1251 mixed) becomes a problem, never a garbled name.
 * @module
 */
import { isAppError } from "../../contract/mod.ts";
import { decodeNraBytes, encodingWarning } from "../../formats/mod.ts";
import type { TreeFile, TreeProblem } from "./tree.ts";

/** What a scan item is built from. */
export interface ScanMatch {
  readonly file: TreeFile;
  /** Employer / filer EIK. */
  readonly eik: string;
  /** The whole file. */
  readonly bytes: Uint8Array;
}

/** A scan result's item: Dec1FileItem / Dec6FileItem, or VatFileItem with its folder. */
export interface ScanItem {
  readonly name: string;
  readonly path: string;
  readonly tin: string;
  readonly folder?: string;
  readonly content: string;
}

/**
 * Build the items of a scan result.
 * @param matches the files found
 * @param withFolder whether items name their folder (VatFileItem)
 * @param problems where files that cannot be decoded go (appended)
 * @returns the items and the encoding warnings (English, each naming its file)
 * @throws nothing (decoding failures become problems)
 */
export function scanItems(
  matches: readonly ScanMatch[],
  withFolder: boolean,
  problems: TreeProblem[],
): { files: ScanItem[]; warnings: string[] } {
  const files: ScanItem[] = [];
  const warnings: string[] = [];
  for (const m of matches) {
    const { name, path, folder } = m.file;
    let content: string;
    try {
      const d = decodeNraBytes(m.bytes, path);
      const w = encodingWarning(d, path);
      if (w !== null) warnings.push(w.message);
      content = d.text;
    } catch (e) {
      if (!isAppError(e)) throw e;
      problems.push({ path, errorCode: e.code, error: e.message });
      continue;
    }
    files.push(
      withFolder
        ? { name, path, tin: m.eik, folder, content }
        : { name, path, tin: m.eik, content },
    );
  }
  return { files, warnings };
}
