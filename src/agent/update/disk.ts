/**
 * The update's files in the data folder (`<data>/updates/`) and the one failure every step of it
 * can meet: a full disk. Layout:
 *
 * ```
 * <data>/updates/
 *   update.lock                     the running update ({pid, startedAt})
 *   <version>.partial               a download in progress
 *   svc-filing-<version>-<target>.* the verified archive
 *   <version>.unpacking/svc-filing/ the unpacked package, until it is swapped in
 *   last.json                       the outcome of the last update (outcome.ts)
 *   update.log, agent.log           the swap's log; the output of an agent the swap started
 * ```
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { joinPath } from "../../defaults.ts";
import { AppError } from "../../contract/mod.ts";

/** Files of `<data>/updates/` that outlive an update. */
export const KEPT_FILES: readonly string[] = [
  "last.json",
  "update.log",
  "agent.log",
  "update.lock",
];

/**
 * The updates folder.
 * @param os Deno.build.os
 * @param dataDir the agent's data folder
 * @returns `<data>/updates`
 */
export function updatesDir(os: string, dataDir: string): string {
  return joinPath(os, dataDir, "updates");
}

/**
 * Whether an error says the disk (or the user's quota) is full.
 * @param e what was thrown (Deno errors carry `code: "ENOSPC"`)
 * @returns true for ENOSPC / EDQUOT, Windows' ERROR_DISK_FULL (112) and ERROR_HANDLE_DISK_FULL
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(isDiskFull(Object.assign(new Error("x"), { code: "ENOSPC" })), true);
 * ```
 */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (code === "ENOSPC" || code === "EDQUOT") return true;
  const text = errorMessage(e);
  return /No space left on device|Disk quota exceeded|os error (28|112|39)\b|disk is full/i.test(
    text,
  );
}

/**
 * The UPDATE_DISK_FULL error of a step.
 * @param where the folder that filled up
 * @param step "download" or "unpack"
 * @param cause the original error (logged only)
 * @returns the AppError
 */
export function diskFullError(where: string, step: string, cause?: unknown): AppError {
  return new AppError(
    "UPDATE_DISK_FULL",
    `No space left in ${where} for the update's ${step}; free some space and try again`,
    { folder: where, step },
    cause,
  );
}

/**
 * Remove what an earlier, interrupted update left in the updates folder (partial downloads,
 * unpacked packages, archives), keeping {@link KEPT_FILES}.
 * @param dir the updates folder
 * @param keep further names to keep
 * @returns when done (errors are ignored: a leftover is retried next time)
 */
export async function removeLeftovers(dir: string, keep: readonly string[] = []): Promise<void> {
  try {
    for await (const e of Deno.readDir(dir)) {
      if (KEPT_FILES.includes(e.name) || keep.includes(e.name)) continue;
      await Deno.remove(joinPath(Deno.build.os, dir, e.name), { recursive: true }).catch(() => {});
    }
  } catch { /* no folder yet */ }
}
