/**
 * One agent per user: a lock file `agent.lock` in the data directory holding
 * `{pid, port, startedAt, version, instanceId}`, created with `createNew` (O_EXCL), and
 * discovery of a running agent over the documented port range 17470–17479 by `GET /health`
 * (`service: "svc-agent"`). See docs/running.md § One instance per user.
 *
 * A lock is live when its agent answers `/health` on the recorded port, or when its process
 * is alive and the lock is younger than the start-up grace (the agent is still starting). A
 * lock of a dead process, or of a process that has not answered `/health` within the grace
 * (a reused pid, a hung agent), is stale and taken over. Take-over renames the stale file
 * first, so two starters racing for one stale lock cannot both win.
 * @module
 */
import { joinPath } from "../../defaults.ts";
import { ensurePrivateDirSync, writePrivateFile } from "../../private_files.ts";
import { win32ProcessState } from "./win32_process.ts";
import { UserError } from "../../user_error.ts";

/** Name of the lock file in the data directory. */
export const LOCK_FILE = "agent.lock";
/** The documented fallback range of the agent's port (17470–17479). */
export const AGENT_PORTS: readonly number[] = Array.from({ length: 10 }, (_, i) => 17470 + i);

/** What the lock file holds. `port` is 0 until the agent listens (see `update`). */
export interface InstanceInfo {
  readonly pid: number;
  readonly port: number;
  /** ISO-8601 time the agent started. */
  readonly startedAt: string;
  readonly version: string;
}

/** A running agent found by the lock or by discovery. */
export interface RunningAgent {
  readonly pid: number | null;
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly version: string;
}

/** A held lock. */
export interface InstanceLock {
  readonly path: string;
  /** Records the port actually bound (after the fallback range was tried). */
  update(port: number): Promise<void>;
  /** Deletes the lock if it is still ours. Idempotent. */
  release(): Promise<void>;
  /** Synchronous {@link InstanceLock.release} for `unload` handlers. */
  releaseSync(): void;
}

/** Side effects of {@link acquireInstanceLock}, injectable for tests. */
export interface InstanceDeps {
  readonly fetch?: typeof fetch;
  /** Whether a process exists (default {@link processAlive}). */
  readonly isAlive?: (pid: number) => Promise<boolean>;
  /** Milliseconds since the epoch (default Date.now). */
  readonly now?: () => number;
  /** How long a starting agent may go without answering /health (default 30 000 ms). */
  readonly startupGraceMs?: number;
  /** Timeout of one /health probe (default 1 000 ms). */
  readonly probeTimeoutMs?: number;
  /** How long to wait for a starting agent to record its port (default 3 000 ms). */
  readonly startWaitMs?: number;
}

interface StoredLock extends InstanceInfo {
  readonly instanceId: string;
}

const url = (port: number) => `http://127.0.0.1:${port}`;

/**
 * Asks `GET /health` on one loopback port whether our agent listens there.
 * @param port the port to probe
 * @param fetchFn injected fetch
 * @param timeoutMs probe timeout
 * @returns the agent's version and port, or null (no answer, another program, timeout)
 * @throws never
 */
export async function probeAgent(
  port: number,
  fetchFn: typeof fetch = fetch,
  timeoutMs = 1000,
): Promise<RunningAgent | null> {
  try {
    const res = await fetchFn(`${url(port)}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = res.ok ? await res.json().catch(() => null) : (await res.body?.cancel(), null);
    if (body?.service !== "svc-agent") return null;
    return { pid: null, port, url: url(port), version: String(body.version ?? "unknown") };
  } catch {
    return null;
  }
}

/**
 * Finds a running agent by probing `GET /health` on the fallback range (in parallel).
 * @param ports ports to probe, in order of preference (default 17470–17479)
 * @param fetchFn injected fetch
 * @param timeoutMs timeout of each probe
 * @returns the agent on the first port of `ports` that answers as `svc-agent`, or null
 * @throws never
 */
export async function discoverAgent(
  ports: readonly number[] = AGENT_PORTS,
  fetchFn: typeof fetch = fetch,
  timeoutMs = 1000,
): Promise<RunningAgent | null> {
  const found = await Promise.all(ports.map((p) => probeAgent(p, fetchFn, timeoutMs)));
  return found.find((a) => a !== null) ?? null;
}

/**
 * Whether a process exists, without signalling it: `kill(pid, 0)` on Linux/macOS (EPERM
 * means it exists under another user), `OpenProcess` / `GetExitCodeProcess` of kernel32.dll on
 * Windows (`Deno.kill` there terminates; src/agent/start/win32_process.ts).
 * @param pid process id
 * @returns true when the process exists (or its state cannot be determined)
 * @throws never
 */
export function processAlive(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return Promise.resolve(false);
  if (pid === Deno.pid) return Promise.resolve(true);
  if (Deno.build.os === "windows") {
    try {
      const state = win32ProcessState(pid);
      return Promise.resolve(state === "running" || state === "denied");
    } catch {
      return Promise.resolve(true);
    }
  }
  try {
    Deno.kill(pid, 0 as unknown as Deno.Signal);
    return Promise.resolve(true);
  } catch (e) {
    return Promise.resolve(!(e instanceof Deno.errors.NotFound));
  }
}

function parseLock(text: string): StoredLock | null {
  try {
    const j = JSON.parse(text);
    if (
      typeof j?.pid === "number" && typeof j.port === "number" &&
      typeof j.startedAt === "string" && typeof j.instanceId === "string"
    ) return { ...j, version: String(j.version ?? "unknown") };
  } catch { /* fall through */ }
  return null;
}

async function readLock(path: string): Promise<{ text: string; mtime: number } | null> {
  try {
    const [text, st] = await Promise.all([Deno.readTextFile(path), Deno.stat(path)]);
    return { text, mtime: st.mtime?.getTime() ?? 0 };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** Whether an existing lock belongs to a live agent: the agent, "wait" (starting), or null. */
async function liveOwner(
  found: { text: string; mtime: number },
  deps: Required<InstanceDeps>,
): Promise<RunningAgent | "wait" | null> {
  const lock = parseLock(found.text);
  const since = lock ? Date.parse(lock.startedAt) : NaN;
  const young = deps.now() - (Number.isNaN(since) ? found.mtime : since) < deps.startupGraceMs;
  if (!lock) return young ? "wait" : null; // being written, or garbage
  if (lock.port > 0) {
    const a = await probeAgent(lock.port, deps.fetch, deps.probeTimeoutMs);
    if (a) return { ...a, pid: lock.pid };
  }
  if (!young || !await deps.isAlive(lock.pid)) return null;
  return lock.port > 0
    ? { pid: lock.pid, port: lock.port, url: url(lock.port), version: lock.version }
    : "wait";
}

/**
 * Takes the per-user agent lock in `dataDir`, or reports the agent that holds it.
 * @param dataDir the agent's data directory (created 0700 if missing, tightened to 0700 if it
 *   grants group or other access; the lock file is 0600)
 * @param info this process: pid, port (0 until listening), startedAt, version
 * @param deps injected fetch, liveness check, clock
 * @returns the held lock, or `{running}` describing the live agent (`port` 0 and `url`
 *   "" when it is still starting and has not recorded its port within `startWaitMs`)
 * @throws Error when the lock cannot be created or read (e.g. the directory is not writable)
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const startedAt = new Date().toISOString();
 * const r = await acquireInstanceLock(dir, { pid: Deno.pid, port: 0, startedAt, version: "0.1.0" });
 * if ("running" in r) console.log(`Agent already running at ${r.running.url}`);
 * ok(!("running" in r), "a new data folder's lock is this process's");
 * if (!("running" in r)) await r.release();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function acquireInstanceLock(
  dataDir: string,
  info: InstanceInfo,
  deps: InstanceDeps = {},
): Promise<InstanceLock | { running: RunningAgent }> {
  const d: Required<InstanceDeps> = {
    fetch: deps.fetch ?? fetch,
    isAlive: deps.isAlive ?? processAlive,
    now: deps.now ?? Date.now,
    startupGraceMs: deps.startupGraceMs ?? 30_000,
    probeTimeoutMs: deps.probeTimeoutMs ?? 1000,
    startWaitMs: deps.startWaitMs ?? 3000,
  };
  // Synchronous file calls: this runs before the agent listens, with nothing else to do, and a
  // synchronous call costs a fraction of an asynchronous one (BENCHMARKS.md). The
  // data directory is the first thing the agent creates: owner-only (0700, docs/running.md).
  ensurePrivateDirSync(dataDir);
  const path = joinPath(Deno.build.os, dataDir, LOCK_FILE);
  const mine: StoredLock = { ...info, instanceId: crypto.randomUUID() };
  const waitUntil = d.now() + d.startWaitMs;
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const f = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
      try {
        const bytes = new TextEncoder().encode(JSON.stringify(mine) + "\n");
        for (let n = 0; n < bytes.length;) n += f.writeSync(bytes.subarray(n));
      } finally {
        f.close();
      }
      return heldLock(path, mine);
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    const found = await readLock(path);
    if (!found) continue; // released meanwhile
    const owner = await liveOwner(found, d);
    if (owner === null) {
      await takeOver(path, found.text);
    } else if (owner !== "wait") {
      return { running: owner };
    } else if (d.now() < waitUntil) {
      await new Promise((r) => setTimeout(r, 100));
    } else {
      const lock = parseLock(found.text);
      const any = await discoverAgent(AGENT_PORTS, d.fetch, d.probeTimeoutMs);
      return {
        running: any ?? { pid: lock?.pid ?? null, port: 0, url: "", version: lock?.version ?? "" },
      };
    }
  }
  throw new UserError(`Cannot take the agent lock ${path}: it keeps changing`);
}

/** Moves a stale lock aside; puts it back if another starter replaced it meanwhile. */
async function takeOver(path: string, staleText: string): Promise<void> {
  const aside = `${path}.${crypto.randomUUID()}.stale`;
  try {
    await Deno.rename(path, aside);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  const moved = await Deno.readTextFile(aside).catch(() => staleText);
  if (moved !== staleText) {
    // We moved a fresh lock of a concurrent starter: restore it unless a third one won.
    await Deno.link(aside, path).catch(() => {});
  }
  await Deno.remove(aside).catch(() => {});
}

function heldLock(path: string, mine: StoredLock): InstanceLock {
  let current = mine;
  let released = false;
  const ours = (text: string | null) =>
    text !== null && parseLock(text)?.instanceId === mine.instanceId;
  return {
    path,
    async update(port) {
      if (released) return;
      current = { ...current, port };
      await writePrivateFile(path, JSON.stringify(current) + "\n");
    },
    async release() {
      if (released) return;
      released = true;
      const text = await Deno.readTextFile(path).catch(() => null);
      if (ours(text)) await Deno.remove(path).catch(() => {});
    },
    releaseSync() {
      if (released) return;
      released = true;
      let text: string | null = null;
      try {
        text = Deno.readTextFileSync(path);
      } catch { /* gone */ }
      if (ours(text)) {
        try {
          Deno.removeSync(path);
        } catch { /* gone */ }
      }
    },
  };
}
