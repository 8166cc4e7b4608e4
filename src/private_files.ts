/**
 * Owner-only data on disk (docs/running.md): the agent's and the token service's data
 * folders are 0700 and their database, key and lock files 0600, so that no other local user can
 * read the journal, agent.json, the loopback TLS key or the token service's signing keys. New
 * folders and files are created with those modes; existing ones that grant group or other
 * access are tightened (an install made before this change). Synchronous: called once at
 * start, before the first file is opened; no npm package (the agent's phase 1 uses it). The one
 * exception is {@link writePrivateFile}, the one atomic owner-only write every data file uses.
 *
 * Windows has no POSIX modes: Deno ignores `mode` there and `chmod` is not available, so every
 * function here only creates what is missing; the per-user `%LOCALAPPDATA%` folder the
 * programs use by default is already private to the user (docs/running.md).
 * @module
 */
import { UserError } from "./user_error.ts";

/** Mode of a data folder: read, write and enter for the owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of a data file: read and write for the owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/** The permission bits of `path`, or null when it does not exist. */
function permissions(path: string): number | null {
  try {
    return (Deno.statSync(path).mode ?? 0) & 0o777;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** Remove group and other bits from `path` when it has any (never on Windows). */
function tighten(path: string, keep: number, os: string): void {
  if (os === "windows") return;
  const mode = permissions(path);
  if (mode === null || (mode & 0o077) === 0) return;
  try {
    Deno.chmodSync(path, mode & keep);
  } catch (e) {
    throw new UserError(
      `Cannot make ${path} private to its owner (chmod ${(mode & keep).toString(8)}): ` +
        `${(e as Error).message}. Use a folder of your own as the data directory.`,
    );
  }
}

/**
 * Create a data folder (and missing parents) with mode 0700, or tighten an existing one that
 * grants group or other access to 0700 (keeping the owner's bits).
 * @param path the folder
 * @param os Deno.build.os value ("windows": create only)
 * @throws Error when the folder cannot be created, or its mode cannot be changed (another
 *   user's folder)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const dir = `${await Deno.makeTempDir()}/svc-filing`; // e.g. ~/.local/share/svc-filing
 * ensurePrivateDirSync(dir);
 * if (Deno.build.os !== "windows") equal(Deno.statSync(dir).mode! & 0o777, 0o700); // drwx------
 * ```
 */
export function ensurePrivateDirSync(path: string, os: string = Deno.build.os): void {
  Deno.mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(path, PRIVATE_DIR_MODE, os);
}

/**
 * Tighten existing files to 0600 when they grant group or other access; missing files are
 * skipped (e.g. a SQLite `-wal` file that does not exist yet).
 * @param paths the files
 * @param os Deno.build.os value ("windows": nothing)
 * @throws Error when a file's mode cannot be changed
 */
export function tightenFilesSync(paths: readonly string[], os: string = Deno.build.os): void {
  for (const p of paths) tighten(p, PRIVATE_FILE_MODE, os);
}

/**
 * Make a SQLite database file owner-only before SQLite opens it: create it empty with mode
 * 0600 when missing (SQLite reads an empty file as an empty database and creates its `-wal`
 * and `-shm` files with the database file's mode), else tighten it and its `-wal`/`-shm`.
 * @param path the database file
 * @param os Deno.build.os value ("windows": create only)
 * @throws Error when the file cannot be created or its mode cannot be changed
 */
export function preparePrivateDbFileSync(path: string, os: string = Deno.build.os): void {
  Deno.openSync(path, { create: true, write: true, mode: PRIVATE_FILE_MODE }).close();
  tightenFilesSync([path, `${path}-wal`, `${path}-shm`, `${path}-journal`], os);
}

/**
 * Write a data file atomically and owner-only: the bytes go to a temporary file next to `path`
 * (`<path>.<uuid>.tmp`, created with mode 0600), which is then renamed over `path` — a reader
 * sees the old file or the new one, never a part. The temporary file is removed when the write
 * or the rename fails. The folder must exist. On Windows `mode` is ignored (the data folder is
 * already private to the user) and the rename replaces an existing file, as on POSIX.
 * Used for agent.json, the update's outcome, the instance lock and the running record, the
 * console's link secret, kept certificates and sealed refresh tokens.
 * @param path the file
 * @param data its new contents (a string is written as UTF-8)
 * @returns when the file holds `data`
 * @throws Error (Deno.errors.*) when the folder is missing or not writable
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await writePrivateFile(`${dir}/agent.json`, "{}\n");
 * await writePrivateFile(`${dir}/agent.json`, '{"senders":[]}\n'); // replaces it whole
 * equal(await Deno.readTextFile(`${dir}/agent.json`), '{"senders":[]}\n');
 * if (Deno.build.os !== "windows") equal(Deno.statSync(`${dir}/agent.json`).mode! & 0o777, 0o600);
 * equal([...Deno.readDirSync(dir)].length, 1); // no temporary file left
 * ```
 */
export async function writePrivateFile(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    if (typeof data === "string") await Deno.writeTextFile(tmp, data, { mode: PRIVATE_FILE_MODE });
    else await Deno.writeFile(tmp, data, { mode: PRIVATE_FILE_MODE });
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}
