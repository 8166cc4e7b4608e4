/**
 * One call for the agent's `vat_files_parse` operation (docs/local-input.md § vat_files_parse):
 * parse whichever of DEKLAR, POKUPKI, PRODAGBI and VIES are present, report each file's status
 * and count, collect errors without throwing for one bad file, and cross-check the files that
 * parsed (docs/nra-formats.md §1; checks in check.ts). What the readers tolerated (another
 * encoding, blank lines, short lines; file_warnings.ts) is in `readWarnings`.
 * @module
 */
import { type AppError, isAppError } from "../contract/mod.ts";
import { detectFileKind } from "./detect.ts";
import type { FileWarning } from "./file_warnings.ts";
import { NRA_FORMATS, type NraFileKind } from "./kinds.ts";
import { parseError } from "./format_error.ts";
import {
  checkVatSet,
  type DeklarRecord,
  parseDeklar,
  type PokupkiRecord,
  type ProdagbiRecord,
  type VatWarning,
  type ViesRecord,
} from "./vat/mod.ts";

/** The bytes of the VAT files found in a folder; leave out (or null) the missing ones. */
export interface VatFolderFiles {
  readonly deklar?: Uint8Array | null | undefined;
  readonly pokupki?: Uint8Array | null | undefined;
  readonly prodagbi?: Uint8Array | null | undefined;
  readonly vies?: Uint8Array | null | undefined;
}

/** Outcome for one file of the set. */
export interface VatFileOutcome<T> {
  /** File name, e.g. "POKUPKI.TXT". */
  readonly file: string;
  /** ok = parsed; missing = not given; error = given but unreadable (see `error`). */
  readonly status: "ok" | "missing" | "error";
  /** Number of records (lines) when ok, else null. */
  readonly count: number | null;
  /** The parsed content when ok, else null. */
  readonly data: T | null;
  /** The FILE_PARSE_ERROR (or FILE_ENCODING_UNSUPPORTED) when status is error, else null. */
  readonly error: AppError | null;
  /** What the reader tolerated (encoding, blank lines, short lines padded). */
  readonly warnings: FileWarning[];
}

/** Everything `vat_files_parse` reports. */
export interface VatFolderParseResult {
  /** DEKLAR.TXT (one record). */
  readonly deklar: VatFileOutcome<DeklarRecord>;
  /** POKUPKI.TXT (purchase ledger). */
  readonly pokupki: VatFileOutcome<PokupkiRecord[]>;
  /** PRODAGBI.TXT (sales ledger). */
  readonly prodagbi: VatFileOutcome<ProdagbiRecord[]>;
  /** VIES.TXT (optional in a VAT set). */
  readonly vies: VatFileOutcome<ViesRecord[]>;
  /** Errors of the files with status error, in file order. */
  readonly errors: AppError[];
  /** The error messages joined with " ; " (the spec's `error` field), or null. */
  readonly errorMessage: string | null;
  /** What the readers tolerated, file by file (encoding, blank lines, short lines padded). */
  readonly readWarnings: FileWarning[];
  /** Cross-check warnings over the files that parsed. */
  readonly warnings: VatWarning[];
}

function outcome<T>(
  bytes: Uint8Array | null | undefined,
  file: string,
  kind: NraFileKind,
  parse: (b: Uint8Array, f: string, o: { warnings: FileWarning[] }) => T,
  count: (t: T) => number,
): VatFileOutcome<T> {
  const warnings: FileWarning[] = [];
  if (bytes === undefined || bytes === null) {
    return { file, status: "missing", count: null, data: null, error: null, warnings };
  }
  try {
    // The slot's canonical name: content that allows this kind is read as it (a VIES.TXT
    // padded to 373 also fits a purchase ledger's padded width).
    const detected = detectFileKind(bytes, NRA_FORMATS[kind].fileName);
    if (detected !== "unknown" && detected !== kind) {
      throw parseError(
        { file },
        `looks like ${NRA_FORMATS[detected].label}, not ${NRA_FORMATS[kind].label}`,
      );
    }
    const data = parse(bytes, file, { warnings });
    return { file, status: "ok", count: count(data), data, error: null, warnings };
  } catch (e) {
    if (!isAppError(e)) throw e; // a bug, not a bad file: let the agent's onError log it
    return { file, status: "error", count: null, data: null, error: e, warnings };
  }
}

/**
 * Parse the files of one VAT submission, never throwing for a bad file.
 * @param files the bytes of DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT and VIES.TXT (any subset)
 * @param options `fileNames` to show instead of the canonical names
 * @returns per-file outcomes, errors (and their messages joined with " ; ") and cross-check
 *   warnings
 * @throws only non-AppError exceptions (bugs); bad files become `status: "error"`
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const read = (f: string) => Deno.readFile(`fixtures/formats/${f.toLowerCase()}/${f}.TXT`);
 * const r = parseVatFolderFiles({
 *   deklar: await read("DEKLAR"),
 *   pokupki: await read("POKUPKI"),
 *   prodagbi: await read("PRODAGBI"),
 * });
 * equal(r.pokupki.status, "ok");
 * ```
 */
export function parseVatFolderFiles(
  files: VatFolderFiles,
  options: { fileNames?: Partial<Record<keyof VatFolderFiles, string>> } = {},
): VatFolderParseResult {
  const n = options.fileNames ?? {};
  const deklar = outcome(
    files.deklar,
    n.deklar ?? NRA_FORMATS.deklar.fileName,
    "deklar",
    parseDeklar,
    () => 1,
  );
  /** A ledger or VIES: the registry's parser, its record count. */
  const records = <K extends "pokupki" | "prodagbi" | "vies">(k: K) =>
    outcome(files[k], n[k] ?? NRA_FORMATS[k].fileName, k, NRA_FORMATS[k].parse, (r) => r.length);
  const pokupki = records("pokupki");
  const prodagbi = records("prodagbi");
  const vies = records("vies");
  const outcomes = [deklar, pokupki, prodagbi, vies];
  const errors = outcomes.map((o) => o.error).filter((e): e is AppError => e !== null);
  const checks = checkVatSet({
    deklar: deklar.data,
    pokupki: pokupki.data,
    prodagbi: prodagbi.data,
    vies: vies.data,
    fileNames: {
      deklar: deklar.file,
      pokupki: pokupki.file,
      prodagbi: prodagbi.file,
      vies: vies.file,
    },
  });
  return {
    deklar,
    pokupki,
    prodagbi,
    vies,
    errors,
    errorMessage: errors.length === 0 ? null : errors.map((e) => e.message).join(" ; "),
    readWarnings: outcomes.flatMap((o) => o.warnings),
    warnings: checks,
  };
}
