/**
 * The real side effects of an update: starting a package's agent detached (it outlives the swap
 * and the terminal), signals, process liveness, the clock. On Linux and macOS the agent's output
 * is appended to `<data>/updates/agent.log` through `sh`; on Windows it is discarded.
 * @module
 */
import { processAlive } from "../start/mod.ts";
import type { ProcessDeps, StartedAgent } from "./processes.ts";

/**
 * Start a program detached from this process (its own session; no terminal), in `cwd`.
 * @param cmd the program
 * @param args its arguments
 * @param o working folder, extra environment, a log file for its output (not on Windows)
 * @returns its pid and exit
 */
export function spawnDetached(
  cmd: string,
  args: readonly string[],
  o: { cwd: string; env?: Record<string, string>; logFile?: string; os: string },
): StartedAgent & { child: Deno.ChildProcess } {
  const viaShell = o.logFile !== undefined && o.os !== "windows";
  const child = new Deno.Command(viaShell ? "/bin/sh" : cmd, {
    args: viaShell
      // non-null: viaShell is true only when logFile is set
      ? ["-c", 'log=$1; shift; exec "$@" >>"$log" 2>&1 </dev/null', "sh", o.logFile!, cmd, ...args]
      : [...args],
    cwd: o.cwd,
    ...(o.env === undefined ? {} : { env: o.env }),
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const exited = child.status.then((s) => s.code);
  return { pid: child.pid, exited, child };
}

/**
 * The real {@link ProcessDeps} of a swap.
 * @param os Deno.build.os
 * @param cwd the working folder of started agents (the data folder: never inside a package that
 *   is moved)
 * @param agentLog where started agents' output goes
 * @returns the dependencies
 */
export function systemProcessDeps(os: string, cwd: string, agentLog: string): ProcessDeps {
  return {
    startAgent: (launcher, args) => {
      const s = spawnDetached(launcher, args, { cwd, logFile: agentLog, os });
      s.child.unref();
      return { pid: s.pid, exited: s.exited };
    },
    signal: (pid, sig) => Deno.kill(pid, sig),
    isAlive: processAlive,
    fetch,
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}
