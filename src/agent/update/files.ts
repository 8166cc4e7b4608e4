/**
 * Moving a package folder into place: a rename where it can be (same file system: atomic), else a
 * copy (the data folder on another disk than the install, or Windows, where a folder holding a
 * running program cannot be renamed) that keeps the executable bits.
 * @module
 */
import { joinPath } from "../../defaults.ts";

/**
 * Move a folder to a path that does not exist yet.
 * @param from the folder
 * @param to the new path
 * @param os Deno.build.os
 * @returns "renamed" or "copied" (the source is then removed where it can be)
 * @throws the file system's error when neither works (a partial copy is removed first)
 */
export async function moveFolder(
  from: string,
  to: string,
  os: string,
): Promise<"renamed" | "copied"> {
  try {
    await Deno.rename(from, to);
    return "renamed";
  } catch { /* another file system, or busy: copy */ }
  try {
    await copyTree(from, to, os);
  } catch (e) {
    await Deno.remove(to, { recursive: true }).catch(() => {});
    throw e;
  }
  await Deno.remove(from, { recursive: true }).catch(() => {});
  return "copied";
}

/**
 * Copy a folder tree (files, folders; symbolic links are copied as the files they name).
 * @param from the source folder
 * @param to the target (must not exist)
 * @param os Deno.build.os
 * @returns when copied
 * @throws the file system's error
 */
export async function copyTree(from: string, to: string, os: string): Promise<void> {
  await Deno.mkdir(to);
  for await (const e of Deno.readDir(from)) {
    const src = joinPath(os, from, e.name);
    const dst = joinPath(os, to, e.name);
    const st = await Deno.stat(src);
    if (st.isDirectory) await copyTree(src, dst, os);
    else {
      await Deno.copyFile(src, dst);
      if (os !== "windows" && st.mode !== null) await Deno.chmod(dst, st.mode & 0o777);
    }
  }
}

/**
 * Remove a path if it exists.
 * @param path file or folder
 * @returns when gone
 * @throws the file system's error other than "not found"
 */
export async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}
