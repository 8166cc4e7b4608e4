/**
 * Reproducible archives: the same entries give the same bytes. Entries are sorted by path, every
 * time stamp is one fixed instant (SOURCE_DATE_EPOCH when set, else 1980-01-02, the earliest a
 * zip can hold), owners are dropped, and modes are 0755 (executables) or 0644. Zip through
 * fflate (Windows and macOS packages), tar.gz through node-tar with a gzip header that holds no
 * time (Linux).
 * @module
 */
import { type Zippable, zipSync } from "fflate";
import * as tar from "tar";
import { dirname, join } from "node:path";

/** One file of an archive. */
export interface ArchiveEntry {
  /** Path inside the archive, `/`-separated (e.g. `svc-filing/runtime/deno`). */
  readonly path: string;
  readonly bytes: Uint8Array;
  /** True for launchers and the runtime (mode 0755), else 0644. */
  readonly executable?: boolean;
}

/**
 * The fixed instant of every entry.
 * @param sourceDateEpoch SOURCE_DATE_EPOCH (seconds) or undefined
 * @returns the date
 */
export function fixedTime(sourceDateEpoch?: string): Date {
  const s = Number(sourceDateEpoch);
  return Number.isFinite(s) && s >= 315_619_200
    ? new Date(s * 1000)
    : new Date(Date.UTC(1980, 0, 2));
}

const sorted = (entries: readonly ArchiveEntry[]) =>
  [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/**
 * A zip of the entries (deflate level 9, Unix modes so macOS keeps the executable bits).
 * @param entries the files
 * @param mtime the fixed instant
 * @returns the zip's bytes
 */
export function zipArchive(entries: readonly ArchiveEntry[], mtime: Date): Uint8Array {
  const files: Zippable = {};
  for (const e of sorted(entries)) {
    const mode = e.executable ? 0o100755 : 0o100644;
    files[e.path] = [e.bytes, { mtime, os: 3, attrs: (mode << 16) >>> 0 }];
  }
  return zipSync(files, { level: 9 });
}

/**
 * A gzipped tar of the entries, written through a staging folder.
 * @param entries the files
 * @param mtime the fixed instant
 * @param out the `.tar.gz` path
 * @returns when written
 */
export async function tarGzArchive(
  entries: readonly ArchiveEntry[],
  mtime: Date,
  out: string,
): Promise<void> {
  const stage = await Deno.makeTempDir({ prefix: "svc-package-" });
  try {
    const list = sorted(entries);
    for (const e of list) {
      const p = join(stage, e.path);
      await Deno.mkdir(dirname(p), { recursive: true });
      await Deno.writeFile(p, e.bytes);
      await Deno.chmod(p, e.executable ? 0o755 : 0o644);
    }
    await tar.create(
      { gzip: { level: 9 }, portable: true, mtime, cwd: stage, file: out, noDirRecurse: true },
      list.map((e) => e.path),
    );
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}
