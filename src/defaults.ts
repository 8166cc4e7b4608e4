/**
 * Defaults both programs start from, kept free of zod so the agent's first start phase
 * (src/agent/early.ts) can use them before the config schema loads: ports, audience, and the
 * per-OS data directory. src/config.ts re-exports them.
 * @module
 */
import { join } from "node:path";

/** Default agent port (fallback range 17470–17479 when busy; see README § Ports). */
export const DEFAULT_AGENT_PORT = 17470;
/** Default token service port. */
export const DEFAULT_TOKEN_PORT = 17480;
/**
 * V8 flags of the resident agent (issue #7, memory): V8's optimise-for-size mode and a 1 MB
 * young generation keep the agent's RSS after 10,000 operations near 94 MB instead of 158 MB, for
 * a little peak throughput (BENCHMARKS.md § Agent cold start and memory). Used by
 * `agentCommand` (autostart from source) and `deno task agent`.
 */
export const AGENT_V8_FLAGS = "--optimize-for-size,--max-semi-space-size=1";
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
  if (os === "windows") return join(env.LOCALAPPDATA ?? env.APPDATA ?? ".", "svc-filing");
  if (os === "darwin") return join(env.HOME ?? ".", "Library", "Application Support", "svc-filing");
  return join(env.XDG_DATA_HOME ?? join(env.HOME ?? ".", ".local", "share"), "svc-filing");
}
