/**
 * Local scans: `dec1_files_scan`, `dec6_files_scan`, `vat_files_scan` (docs/local-input.md
 * § Scans) and `vat_files_parse` (§ vat_files_parse).
 *
 * Scans walk `rootFolder` (recursive by default), examine every `.TXT` file (DEKLAR.TXT files
 * for the VAT scan; those count in `totalScanned`), recognise the kind by content, read the
 * employer EIK and period from the first record, and return the matches of the period with
 * their content as UTF-8 (a D6 for month 13 — the annual declaration of a year — is a match of
 * that year's December: {@link periodMatches}). A file that cannot be read or parsed goes to
 * `problems` and never aborts the scan. Only recognised NRA files are ever returned, so a scan
 * cannot be used to read arbitrary files.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { isAppError, type LocalRun } from "../../contract/mod.ts";
// formats/mod.ts leaves out the iconv-lite encoder (src/formats/encode/), so it stays
// out of the agent's load path when it reads files.
import {
  detectFileKind,
  parseD1,
  parseD6,
  parseDeklar,
  parseVatFolderFiles,
  summarizeD1,
  summarizeD6,
  summarizeDeklar,
} from "../../formats/mod.ts";
import { REQUIRED_VAT_KINDS, VAT_KINDS, vatFileName } from "./vat_files.ts";
import { scanItems } from "./scan_content.ts";
import { type FileTree, type TreeFile, type TreeProblem, YIELD_EVERY, yieldNow } from "./tree.ts";
import { taxPeriod } from "../period.ts";
import type { ScanBody } from "./types.ts";

/** Bytes read first from each candidate file (one payroll record is far shorter). */
const HEAD_BYTES = 4096;

/** A folder scan of the registry: its `fileKind` is d1, d6 or deklar. */
type LocalScan = Extract<LocalRun, { run: "scan" }>;

/** The first record of a file (up to the first line break), for cheap period checks. */
export function firstLine(bytes: Uint8Array): Uint8Array {
  const i = bytes.indexOf(0x0a);
  return i < 0 ? bytes : bytes.subarray(0, i + 1);
}

/** What a scan learnt about one file. */
export interface Identified {
  readonly file: TreeFile;
  readonly kind: LocalScan["fileKind"];
  readonly eik: string;
  /** "YYYYMM" as the file writes it; "YYYY13" for an annual D6. */
  readonly period: string;
  /** An annual D6 (month 13, docs/nra-formats.md §2.2): it covers the whole year. */
  readonly annual: boolean;
  /** Payroll correction code of the first record (0 regular, 1 corrective, 8 deleting), or
   * null (VAT returns; an empty field). */
  readonly correctionCode: number | null;
  readonly bytes: Uint8Array;
}

/**
 * Whether a file of period `found` answers a search for `wanted`: the same period, or — for
 * the annual D6 of a year (month 13, docs/nra-formats.md §2.2), which no request can name (months
 * are 1–12, docs/local-input.md § Scans) — a search for the December of that year, the last
 * month the declaration covers.
 * @param found the file's period "YYYYMM" ("YYYY13": annual)
 * @param wanted the requested period "YYYYMM", or null for any
 * @returns true when the file belongs to the search
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(periodMatches("202613", "202612"), true);
 * deepStrictEqual(periodMatches("202613", "202611"), false);
 * ```
 */
export function periodMatches(found: string, wanted: string | null): boolean {
  if (wanted === null || found === wanted) return true;
  return found.endsWith("13") && wanted.endsWith("12") && found.slice(0, 4) === wanted.slice(0, 4);
}

/**
 * Identify a payroll or VAT return file: kind, employer EIK and period ("YYYYMM").
 * @returns the identification, or null when the file is of another kind
 * @throws AppError FILE_PARSE_ERROR when it is of the kind but its first record is malformed
 */
export function identify(
  file: TreeFile,
  bytes: Uint8Array,
  want: LocalScan["fileKind"],
): Identified | null {
  const kind = detectFileKind(firstLine(bytes), file.name);
  if (kind !== want) return null;
  if (want === "deklar") {
    const s = summarizeDeklar(parseDeklar(bytes, file.path));
    return s.period
      ? {
        file,
        kind: want,
        eik: s.eik,
        period: s.period,
        annual: false,
        correctionCode: null,
        bytes,
      }
      : null;
  }
  const s = want === "d1"
    ? summarizeD1(parseD1(firstLine(bytes), file.path))
    : summarizeD6(parseD6(firstLine(bytes), file.path));
  if (!s.eik || !s.period) return null;
  const { annual, correctionCode } = s;
  return { file, kind: want, eik: s.eik, period: s.period, annual, correctionCode, bytes };
}

/**
 * Find the files of one kind and period in a tree.
 * @param tree the folder
 * @param kind d1, d6 or deklar
 * @param period "YYYYMM" (null = any); an annual D6 is found with December ({@link periodMatches})
 * @param recursive walk subfolders
 * @returns matches, the number of candidate files examined, and problems
 */
export async function findFiles(
  tree: FileTree,
  kind: LocalScan["fileKind"],
  period: string | null,
  recursive: boolean,
): Promise<{ matches: Identified[]; scanned: number; problems: TreeProblem[] }> {
  const { files, problems } = await tree.list(recursive);
  const candidates = files.filter((f) =>
    kind === "deklar"
      ? f.name.toUpperCase() === "DEKLAR.TXT"
      : f.name.toUpperCase().endsWith(".TXT")
  );
  const matches: Identified[] = [];
  let n = 0;
  for (const f of candidates) {
    if (++n % YIELD_EVERY === 0) await yieldNow();
    try {
      // Payroll files: the first record tells kind, EIK and period; read the rest only for a match.
      let bytes = kind === "deklar" ? await f.read() : await f.readHead(HEAD_BYTES);
      if (kind !== "deklar" && bytes.indexOf(0x0a) < 0 && bytes.length === HEAD_BYTES) {
        bytes = await f.read();
      }
      const id = identify(f, bytes, kind);
      if (!id || !periodMatches(id.period, period)) continue;
      matches.push(bytes.length === HEAD_BYTES ? { ...id, bytes: await f.read() } : id);
    } catch (e) {
      problems.push({
        path: f.path,
        errorCode: isAppError(e) ? e.code : "LOCAL_PATH_UNREADABLE",
        error: errorMessage(e),
      });
    }
  }
  return { matches, scanned: candidates.length, problems };
}

/**
 * Run a scan operation (the registry's `local: { run: "scan", fileKind }`).
 * @param kind the NRA file kind the scan looks for (d1, d6 or deklar)
 * @param body validated request (year, month, recursive)
 * @param tree the folder
 * @returns the scan result shape (Dec1FilesScanResult, Dec6FilesScanResult, VatFilesScanResult)
 */
export async function runScan(
  kind: LocalScan["fileKind"],
  body: ScanBody,
  tree: FileTree,
): Promise<Record<string, unknown>> {
  const { matches, scanned, problems } = await findFiles(
    tree,
    kind,
    taxPeriod(body.year, body.month),
    body.recursive,
  );
  // Content decoded from the file's own encoding; UTF-8/UTF-16 files come with a warning.
  const { files, warnings } = scanItems(matches, kind === "deklar", problems);
  return {
    status: "ok",
    files,
    totalScanned: scanned,
    totalMatched: files.length,
    error: null,
    ...(problems.length ? { problems } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** The spec's word for a file that is not there (docs/local-input.md § vat_files_parse). */
const MISSING = "липсва";

/**
 * `vat_files_parse`: parse and cross-check DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT (and VIES.TXT)
 * of one folder (docs/local-input.md § vat_files_parse). Status ok (all three parsed),
 * partial (some), error (none). A row is `ok` with its record count, or `липсва` — the spec's
 * two values — with count "-" for a missing file and null for one that is present but cannot
 * be read or parsed; `error` holds the read and parser errors joined with " ; " (null when no
 * file failed); `warnings` the cross-checks' English messages.
 * @param tree the folder
 * @param directory the folder as given (echoed in the result)
 * @returns VatFilesParseResult
 */
export async function runVatParse(
  tree: FileTree,
  directory: string,
): Promise<Record<string, unknown>> {
  const bytes: Record<string, Uint8Array | null> = {};
  const readErrors: string[] = [];
  const unreadable = new Set<string>();
  for (const k of VAT_KINDS) {
    const n = vatFileName(k);
    const f = await tree.find(n);
    try {
      bytes[k] = f ? await f.read() : null;
    } catch (e) {
      bytes[k] = null;
      unreadable.add(k);
      readErrors.push(`${n}: ${(e as Error).message}`);
    }
  }
  const r = parseVatFolderFiles(bytes);
  const rows = REQUIRED_VAT_KINDS.map((k) => {
    const o = r[k];
    return {
      file: vatFileName(k),
      status: o.status === "ok" ? "ok" : MISSING,
      // A file that could not be read is "missing" for the parser but present: count null.
      count: o.status === "ok"
        ? String(o.count)
        : o.status === "missing" && !unreadable.has(k)
        ? "-"
        : null,
    };
  });
  const ok = rows.filter((x) => x.status === "ok").length;
  const errors = [...readErrors, ...(r.errorMessage ? [r.errorMessage] : [])];
  return {
    status: ok === 3 ? "ok" : ok === 0 ? "error" : "partial",
    directory,
    items: rows,
    error: errors.length ? errors.join(" ; ") : null,
    warnings: [...r.readWarnings, ...r.warnings].map((w) => w.message),
  };
}
