/**
 * Which agent is this data folder's: the file `agent.running.json` the agent writes in its data
 * directory once it listens (`src/cli/agent_servers.ts`, for `agent` and `demo` alike) — its pid,
 * port, HTTPS port, version and the token service URL it was started with — and
 * {@link findOwnAgent}, which tells this data folder's running agent apart from other agents on
 * the same machine (another user's, or another data folder's: the port range 17470–17479 is
 * shared by everyone on the computer). The doctor uses it (docs/running.md § Diagnostics).
 *
 * A record or a lock counts only while its process is alive and its port answers `GET /health`
 * as `svc-agent`: a record left by a killed agent (the demo ends on Ctrl+C without clean-up)
 * whose port now belongs to another agent is not mistaken for this folder's agent.
 * @module
 */
import { joinPath } from "../../defaults.ts";
import { writePrivateFile } from "../../private_files.ts";
import { AGENT_PORTS, type InstanceDeps, LOCK_FILE, probeAgent, processAlive } from "./instance.ts";

/** Name of the running agent's record in the data directory. */
export const RUNNING_FILE = "agent.running.json";

/** What a running agent records about itself in its data directory. */
export interface RunningRecord {
  readonly pid: number;
  /** The HTTP port on 127.0.0.1 it listens on. */
  readonly port: number;
  /** The HTTPS port (SVC_AGENT_TLS_PORT), or null. */
  readonly tlsPort: number | null;
  /** ISO-8601 time the agent listened. */
  readonly startedAt: string;
  readonly version: string;
  /** The token service the agent verifies tokens against (its --token-service / config). */
  readonly tokenServiceUrl: string;
}

/** This data folder's agent, as {@link findOwnAgent} found it. */
export interface OwnAgent {
  readonly pid: number | null;
  /** Its port; 0 while it is still starting and has not recorded one. */
  readonly port: number;
  readonly version: string;
  /** "running": it answers `/health` on `port`; "starting": alive, not answering yet. */
  readonly state: "running" | "starting";
  /** The token service it was started with (null when only the lock was found). */
  readonly tokenServiceUrl: string | null;
  /** Where it was found. */
  readonly from: "running-file" | "lock";
}

/** Side effects of {@link findOwnAgent}, injectable for tests. */
export interface OwnAgentDeps
  extends Pick<InstanceDeps, "fetch" | "isAlive" | "now" | "startupGraceMs"> {
  /** Timeout of one `/health` probe (default 1 000 ms). */
  readonly timeoutMs?: number;
  /** Deno.build.os (paths). */
  readonly os?: string;
}

const path = (os: string, dataDir: string) => joinPath(os, dataDir, RUNNING_FILE);

function parseRecord(text: string): RunningRecord | null {
  try {
    const j = JSON.parse(text);
    if (
      Number.isInteger(j?.pid) && Number.isInteger(j.port) && j.port > 0 &&
      typeof j.tokenServiceUrl === "string"
    ) {
      return {
        pid: j.pid,
        port: j.port,
        tlsPort: Number.isInteger(j.tlsPort) ? j.tlsPort : null,
        startedAt: String(j.startedAt ?? ""),
        version: String(j.version ?? "unknown"),
        tokenServiceUrl: j.tokenServiceUrl,
      };
    }
  } catch { /* fall through */ }
  return null;
}

/**
 * Records the running agent in its data directory (owner-only file, replaced atomically).
 * @param dataDir the agent's data directory (exists: the agent created it)
 * @param rec pid, ports, start time, version, token service URL
 * @param os Deno.build.os value (paths)
 * @throws Error when the file cannot be written
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const tokenServiceUrl = "http://127.0.0.1:17480";
 * const startedAt = new Date().toISOString();
 * const rec = { pid: Deno.pid, port: 17470, tlsPort: null, startedAt, version: "0.1.0", tokenServiceUrl };
 * await writeRunningRecord(dir, rec);
 * equal((await readRunningRecord(dir))?.tokenServiceUrl, tokenServiceUrl);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeRunningRecord(
  dataDir: string,
  rec: RunningRecord,
  os: string = Deno.build.os,
): Promise<void> {
  await writePrivateFile(path(os, dataDir), JSON.stringify(rec) + "\n");
}

/**
 * Reads the running agent's record (without checking that it still runs).
 * @param dataDir the agent's data directory
 * @param os Deno.build.os value (paths)
 * @returns the record, or null when there is none or it is unreadable
 * @throws never
 */
export async function readRunningRecord(
  dataDir: string,
  os: string = Deno.build.os,
): Promise<RunningRecord | null> {
  const text = await Deno.readTextFile(path(os, dataDir)).catch(() => null);
  return text === null ? null : parseRecord(text);
}

/**
 * Removes the record when it is the one of process `pid` (an agent ending; `unload` handlers).
 * @param dataDir the agent's data directory
 * @param pid the ending process
 * @param os Deno.build.os value (paths)
 * @throws never
 */
export function removeRunningRecordSync(
  dataDir: string,
  pid: number,
  os: string = Deno.build.os,
): void {
  const file = path(os, dataDir);
  try {
    if (parseRecord(Deno.readTextFileSync(file))?.pid === pid) Deno.removeSync(file);
  } catch { /* gone or unreadable */ }
}

/**
 * Finds this data folder's running agent: its {@link RUNNING_FILE} record, else its instance
 * lock (an agent still in phase 1, or of a version without the record), each confirmed by a live
 * process and a `svc-agent` answer to `GET /health` on the recorded port. Another agent on the
 * machine (another user's, another data folder's) never has this folder's record or lock.
 * @param dataDir the data directory
 * @param deps injected fetch, liveness check, clock, timeout, OS
 * @returns the agent, or null when none of this folder runs
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const dataDir = await Deno.makeTempDir();
 * const own = await findOwnAgent(dataDir);
 * if (own?.state === "running") console.log(`This folder's agent: port ${own.port}`);
 * equal(own, null); // no agent runs for a new folder
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export async function findOwnAgent(
  dataDir: string,
  deps: OwnAgentDeps = {},
): Promise<OwnAgent | null> {
  const fetchFn = deps.fetch ?? fetch;
  const isAlive = deps.isAlive ?? processAlive;
  const timeoutMs = deps.timeoutMs ?? 1000;
  const os = deps.os ?? Deno.build.os;
  const rec = await readRunningRecord(dataDir, os);
  if (rec && await isAlive(rec.pid)) {
    const a = await probeAgent(rec.port, fetchFn, timeoutMs);
    if (a) {
      return {
        pid: rec.pid,
        port: rec.port,
        version: a.version,
        state: "running",
        tokenServiceUrl: rec.tokenServiceUrl,
        from: "running-file",
      };
    }
  }
  let lock: { pid?: unknown; port?: unknown; startedAt?: unknown; version?: unknown };
  try {
    lock = JSON.parse(await Deno.readTextFile(joinPath(os, dataDir, LOCK_FILE)));
  } catch {
    return null;
  }
  const pid = Number.isInteger(lock?.pid) ? lock.pid as number : null;
  const port = Number.isInteger(lock?.port) ? lock.port as number : 0;
  if (pid === null || !await isAlive(pid)) return null;
  // The record of this very process names its token service even when found through the lock.
  const tokenServiceUrl = rec?.pid === pid ? rec.tokenServiceUrl : null;
  const version = String(lock.version ?? "unknown");
  if (port > 0) {
    const a = await probeAgent(port, fetchFn, timeoutMs);
    if (a) {
      return { pid, port, version: a.version, state: "running", tokenServiceUrl, from: "lock" };
    }
  }
  const since = Date.parse(String(lock.startedAt ?? ""));
  const young = (deps.now ?? Date.now)() - since < (deps.startupGraceMs ?? 30_000);
  return young ? { pid, port, version, state: "starting", tokenServiceUrl, from: "lock" } : null;
}

/**
 * The ports an agent started on `port` tries, in order (what `serveLoopback` does): the
 * documented range 17470–17479 for the default or `0`, else `port` and the next nine.
 * @param port the configured start port (--port / SVC_AGENT_PORT)
 * @returns the ports, preferred first
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(agentPortRange(18000), [18000, 18001, 18002, 18003, 18004, 18005, 18006, 18007, 18008, 18009]);
 * ```
 */
export function agentPortRange(port: number): readonly number[] {
  if (port <= 0 || port === AGENT_PORTS[0]) return AGENT_PORTS;
  return Array.from({ length: 10 }, (_, i) => port + i).filter((p) => p <= 65535);
}
