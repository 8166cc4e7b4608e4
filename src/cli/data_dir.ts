/**
 * The one place that decides the data directory of every command (README § Configuration):
 * the `--data-dir` flag, else `SVC_DATA_DIR`, else the per-OS default of src/defaults.ts. Kept
 * free of npm packages and Node compatibility: the agent's phase 1 uses it before anything loads.
 * @module
 */
import { defaultDataDir } from "../defaults.ts";

/**
 * The data directory.
 * @param flag `--data-dir` as given (undefined when absent)
 * @param env the environment (`SVC_DATA_DIR`; `HOME`, `XDG_DATA_HOME`, `LOCALAPPDATA` for the
 *   default); an empty variable counts as unset
 * @param os Deno.build.os value
 * @returns the directory: flag > SVC_DATA_DIR > OS default
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(resolveDataDir(undefined, { SVC_DATA_DIR: "/srv/svc" }, "linux"), "/srv/svc");
 * equal(resolveDataDir("/tmp/a", { SVC_DATA_DIR: "/srv/svc" }, "linux"), "/tmp/a");
 * equal(resolveDataDir(undefined, { HOME: "/home/a" }, "linux"), "/home/a/.local/share/svc-filing");
 * ```
 */
export function resolveDataDir(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  os: string,
): string {
  if (flag) return flag;
  if (env.SVC_DATA_DIR) return env.SVC_DATA_DIR;
  return defaultDataDir(os, env);
}
