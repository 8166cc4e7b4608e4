/**
 * The processes a swap deals with: the running agent it stops, the agent it starts from a
 * package (detached, its output appended to `<data>/updates/agent.log`), and the wait for that
 * agent to answer `GET /health` as the expected version. Side effects are passed in
 * ({@link ProcessDeps}); src/agent/update/system.ts has the real ones.
 * @module
 */
import { joinPath } from "../../defaults.ts";
import { LOCK_FILE } from "../start/mod.ts";

/** An agent started by the swap. */
export interface StartedAgent {
  /** The started process (the launcher; on Linux and macOS it becomes the runtime). */
  readonly pid: number;
  /** Settles with the exit code when the process ends. */
  readonly exited: Promise<number>;
}

/** The side effects of stopping, starting and probing. */
export interface ProcessDeps {
  /** Start `launcher args…` detached (it outlives the swap). */
  readonly startAgent: (launcher: string, args: readonly string[]) => StartedAgent;
  /** Send a signal (SIGTERM: the agent finishes its requests and exits; SIGKILL). */
  readonly signal: (pid: number, sig: "SIGTERM" | "SIGKILL") => void;
  /** Whether a process exists. */
  readonly isAlive: (pid: number) => Promise<boolean>;
  readonly fetch: typeof fetch;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** The agent that answered /health. */
export interface HealthyAgent {
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
}

/**
 * Wait for a process to end.
 * @param pid the process
 * @param d isAlive, now, sleep
 * @param timeoutMs how long at most
 * @returns true when it ended in time
 */
export async function waitExit(pid: number, d: ProcessDeps, timeoutMs: number): Promise<boolean> {
  const until = d.now() + timeoutMs;
  while (await d.isAlive(pid)) {
    if (d.now() >= until) return false;
    await d.sleep(100);
  }
  return true;
}

/**
 * Stop a process: SIGTERM (an agent finishes its running requests, releases its lock and exits
 * 0), then SIGKILL when it is still there after `graceMs`.
 * @param pid the process
 * @param d signal, isAlive, now, sleep
 * @param graceMs how long SIGTERM may take
 * @param exited for a process the swap started: its exit (a child is only gone once reaped)
 * @returns true when it is gone
 */
export async function stopProcess(
  pid: number,
  d: ProcessDeps,
  graceMs: number,
  exited?: Promise<number>,
): Promise<boolean> {
  const gone = async (ms: number) =>
    exited
      ? await Promise.race([exited.then(() => true), d.sleep(ms).then(() => false)])
      : await waitExit(pid, d, ms);
  const send = (sig: "SIGTERM" | "SIGKILL") => {
    try {
      d.signal(pid, sig);
    } catch { /* already gone */ }
  };
  send("SIGTERM");
  if (await gone(graceMs)) return true;
  send("SIGKILL");
  return await gone(5_000);
}

/** The agent lock's `{pid, port, version}` (src/agent/start/instance.ts), or null. */
export async function readAgentLock(
  os: string,
  dataDir: string,
): Promise<{ pid: number; port: number; version: string } | null> {
  try {
    const j = JSON.parse(await Deno.readTextFile(joinPath(os, dataDir, LOCK_FILE)));
    if (typeof j?.pid === "number" && typeof j.port === "number") {
      return { pid: j.pid, port: j.port, version: String(j.version ?? "") };
    }
  } catch { /* none, or being written */ }
  return null;
}

/**
 * Ask one port's `GET /health` for the agent's status and version.
 * @param port the port
 * @param fetchFn injected fetch
 * @returns `{status, version}` of an svc-agent, or null
 */
export async function probeHealth(
  port: number,
  fetchFn: typeof fetch,
): Promise<{ status: string; version: string } | null> {
  try {
    const res = await fetchFn(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(2_000),
    });
    const j = res.ok ? await res.json() : (await res.body?.cancel(), null);
    return j?.service === "svc-agent"
      ? { status: String(j.status), version: String(j.version) }
      : null;
  } catch {
    return null;
  }
}

/**
 * Wait until the agent of `dataDir` runs as `version` and answers `/health` with status "ok"
 * (its lock names the port), or fail early when the started process ends first.
 * @param os Deno.build.os
 * @param dataDir the agent's data folder (its lock)
 * @param version the version expected
 * @param started the process the swap started
 * @param d fetch, now, sleep
 * @param timeoutMs how long at most (the 30 s)
 * @returns the agent, or the reason it is not there (one sentence)
 */
export async function waitHealthy(
  os: string,
  dataDir: string,
  version: string,
  started: StartedAgent,
  d: ProcessDeps,
  timeoutMs: number,
): Promise<HealthyAgent | { reason: string }> {
  const ended: { code: number | null } = { code: null };
  started.exited.then((c) => (ended.code = c), () => (ended.code = -1));
  const until = d.now() + timeoutMs;
  while (d.now() < until) {
    const lock = await readAgentLock(os, dataDir);
    if (lock && lock.version === version && lock.port > 0) {
      const h = await probeHealth(lock.port, d.fetch);
      if (h?.status === "ok" && h.version === version) {
        return { pid: lock.pid, port: lock.port, url: `http://127.0.0.1:${lock.port}` };
      }
    }
    if (ended.code !== null) {
      return {
        reason: `version ${version} exited with code ${ended.code} before answering /health`,
      };
    }
    await d.sleep(200);
  }
  return { reason: `version ${version} did not answer /health within ${timeoutMs / 1000} s` };
}
