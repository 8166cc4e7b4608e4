/**
 * The agent's start, step 2 of 6 (docs/architecture.md § The start): one agent per user and
 * data folder — the instance lock (src/agent/start/instance.ts). Phase 1 takes it before it
 * listens (agent_early.ts); a start without phase 1 takes it here. Imports only
 * src/agent/start/mod.ts and tiny modules: phase 1 loads this file.
 * @module
 */
import { errorMessage } from "../error_message.ts";
import { acquireInstanceLock, type InstanceLock } from "../agent/start/mod.ts";
import type { Clock } from "../clock.ts";
import { VERSION } from "../version.ts";

/** What taking the lock needs from the outside world. */
export interface LockEnv {
  readonly clock: Clock;
  /** Prints one line on standard output. */
  readonly print: (line: string) => void;
  /** Called when this data folder's agent already runs (main.ts: open its console). */
  readonly alreadyRunning?: (dataDir: string) => Promise<void>;
}

/**
 * One agent per user: take the instance lock in `dataDir`, or print the running agent and call
 * `alreadyRunning` (the caller then exits 0; docs/running.md § One instance per user).
 * @param dataDir the agent's data directory
 * @param e clock, output
 * @returns the lock (port 0 until the caller records the port), or null when an agent runs
 * @throws Error when the lock file cannot be written
 */
export async function lockAgent(dataDir: string, e: LockEnv): Promise<InstanceLock | null> {
  const lock = await acquireInstanceLock(dataDir, {
    pid: Deno.pid,
    port: 0,
    startedAt: new Date(e.clock.now()).toISOString(),
    version: VERSION,
  });
  if ("running" in lock) {
    const r = lock.running;
    e.print(`Agent already running at ${r.url} (pid ${r.pid ?? "?"}, version ${r.version})`);
    await e.alreadyRunning?.(dataDir).catch((err) => e.print(errorMessage(err)));
    return null;
  }
  return lock;
}

/**
 * Step 2: the lock phase 1 took, or take it now.
 * @param dataDir the agent's data directory
 * @param held the lock phase 1 holds, or null
 * @param e clock, output
 * @returns the lock, or null when another agent runs with this data folder (printed)
 * @throws Error when the lock file cannot be written
 */
export async function holdAgentLock(
  dataDir: string,
  held: InstanceLock | null,
  e: LockEnv,
): Promise<InstanceLock | null> {
  return held ?? await lockAgent(dataDir, e);
}
