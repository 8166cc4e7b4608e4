/**
 * Defaults both programs start from, kept free of zod so the agent's first start phase
 * (src/agent/early.ts) can use them before the config schema loads: ports, audience, and the
 * per-OS data directory. src/config.ts re-exports them.
 * @module
 */

/** Default agent port (fallback range 17470–17479 when busy; see README § Ports). */
export const DEFAULT_AGENT_PORT = 17470;
/** Default token service port. */
export const DEFAULT_TOKEN_PORT = 17480;
/**
 * V8 flags of the resident agent (BENCHMARKS.md): V8's optimise-for-size mode, a 1 MB young
 * generation, optimising compilation on the main thread (no background compiler threads holding
 * their own memory) and no Maglev tier (TurboFan still optimises hot code). Measured with
 * `deno run -A scripts/bench_agent_start.ts`: RSS after 10,000 operations 85 MB instead of 94 MB
 * with the first two flags alone (158 MB with none), for ~3 % fewer operations per second
 * (BENCHMARKS.md § Agent cold start and memory). Used by `agentCommand` (autostart from source)
 * and `deno task agent`.
 */
export const AGENT_V8_FLAGS =
  "--optimize-for-size,--max-semi-space-size=1,--no-concurrent-recompilation,--no-maglev";
/** The `aud` claim the token service issues and the agent expects. */
export const DEFAULT_AUDIENCE = "svc-agent";

/**
 * The per-OS data directory.
 * @param os Deno.build.os value
 * @param env environment (HOME, XDG_DATA_HOME, LOCALAPPDATA, APPDATA)
 * @returns `%LOCALAPPDATA%\svc-filing`, `~/Library/Application Support/svc-filing`, or
 *   `$XDG_DATA_HOME/svc-filing` (default `~/.local/share/svc-filing`)
 */
export function defaultDataDir(os: string, env: Record<string, string | undefined>): string {
  const join = (...parts: string[]) => joinPath(os, ...parts);
  if (os === "windows") return join(env.LOCALAPPDATA ?? env.APPDATA ?? ".", "svc-filing");
  if (os === "darwin") return join(env.HOME ?? ".", "Library", "Application Support", "svc-filing");
  return join(env.XDG_DATA_HOME ?? join(env.HOME ?? ".", ".local", "share"), "svc-filing");
}

/**
 * Joins path segments with the separator of `os` (`\` on Windows, `/` elsewhere), dropping
 * empty and `.` segments and the separators at the joints. For the agent's first start phase,
 * which must not load Node compatibility (`node:path` costs ~8 ms before the first answer,
 * BENCHMARKS.md § Agent cold start). Unlike node:path it does not resolve `..`, drops a
 * trailing separator, and has no drive-relative paths (`C:` + `x` is `C:\x`): callers join a
 * directory and plain names.
 * @param os Deno.build.os value
 * @param parts path segments; the first may be absolute (`/home/a`, `C:\Users\a`)
 * @returns the joined path (`.` when nothing is left)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(joinPath("linux", "/home/a/", "svc-filing"), "/home/a/svc-filing");
 * ```
 */
export function joinPath(os: string, ...parts: string[]): string {
  const win = os === "windows";
  const sep = win ? "\\" : "/";
  const kept = parts.filter((p) => p !== "" && p !== ".");
  if (!kept.length) return ".";
  // One separator at every joint; a UNC prefix (\\server) keeps its two.
  // non-null: kept is not empty (returned above when it is)
  const unc = win && /^[\\/]{2}[^\\/]/.test(kept[0]!) ? sep : "";
  const out = unc + kept.join(sep).replace(win ? /[\\/]+/g : /\/+/g, sep);
  const root = out === sep || (win && /^[A-Za-z]:\\$/.test(out));
  return out.endsWith(sep) && !root ? out.slice(0, -1) : out;
}
