/**
 * `agent stop`: stop this user's running agent of a data folder cleanly (docs/cli.md
 * § agent stop). The agent is found by its lock (`agent.lock`: pid and port) and asked with the
 * data folder's `console.secret` (owner-only: only this user's programs can read it), the
 * handshake of `agent open`; it then stops as on SIGTERM — confirmations waiting are declined,
 * the filings under way finish, the journal is closed and the lock released. The command waits
 * until the lock is released (or the process is gone) and says so; on Windows, which has no
 * SIGTERM, this is how the agent is stopped.
 * @module
 */
import type { Command } from "commander";
import { joinPath } from "../defaults.ts";
import type { Cli } from "./context.ts";
import { dataDirOf, optsOf } from "./options.ts";
import { say } from "./output.ts";
import { UserError } from "../user_error.ts";

/** The agent named by a data folder's lock, with the secret to ask it. */
interface LockedAgent {
  readonly pid: number;
  readonly port: number;
  readonly secret: string;
}

/** The lock's pid and port and the console secret, or null when no agent holds the folder. */
async function lockedAgent(dataDir: string, os: string): Promise<LockedAgent | null> {
  const [{ LOCK_FILE }, { CONSOLE_SECRET_FILE }] = await Promise.all([
    import("../agent/start/mod.ts"),
    import("./agent_stores.ts"),
  ]);
  const read = (name: string) => Deno.readTextFile(joinPath(os, dataDir, name));
  const lock = await read(LOCK_FILE).then((t) => JSON.parse(t), () => null);
  const secret = await read(CONSOLE_SECRET_FILE).then((t) => t.trim(), () => "");
  const pid = Number(lock?.pid), port = Number(lock?.port);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0 || !secret) return null;
  return { pid, port, secret };
}

/** Whether the agent `pid` still holds the folder: its lock names it and it lives. */
async function stillHolds(dataDir: string, os: string, pid: number): Promise<boolean> {
  const { LOCK_FILE, processAlive } = await import("../agent/start/mod.ts");
  const lock = await Deno.readTextFile(joinPath(os, dataDir, LOCK_FILE))
    .then((t) => JSON.parse(t), () => null);
  return Number(lock?.pid) === pid && await processAlive(pid);
}

/**
 * Ask the data folder's running agent to stop and wait until it has.
 * @param dataDir the agent's data folder
 * @param e the OS, where the lines go, how long to wait (ms) and how often to look (ms)
 * @returns "stopped", or "not-running" when no agent of this folder answered
 * @throws UserError when the agent refused (another user's agent on that port), cannot stop
 *   itself (the demo's agent: AGENT_STOP_UNAVAILABLE) or did not stop within the wait
 */
export async function stopRunningAgent(
  dataDir: string,
  e: { os: string; print: (l: string) => void; waitMs?: number; pollMs?: number },
): Promise<"stopped" | "not-running"> {
  const a = await lockedAgent(dataDir, e.os);
  if (!a) return "not-running";
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${a.port}/console/shutdown`, {
      method: "POST",
      headers: { "x-svc-console-secret": a.secret },
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    return "not-running";
  }
  const body = await res.json().catch(() => ({}));
  if (res.status !== 202) {
    throw new UserError(
      `The agent on port ${a.port} refused to stop (${body.errorCode ?? res.status}): ` +
        (body.errorCode === "AGENT_STOP_UNAVAILABLE"
          ? "stop it where it runs (Ctrl+C)."
          : "is it another user's agent?"),
    );
  }
  e.print(`Stopping the agent (pid ${a.pid}, port ${a.port}): finishing the filings under way…`);
  const until = Date.now() + (e.waitMs ?? 120_000);
  while (await stillHolds(dataDir, e.os, a.pid)) {
    if (Date.now() > until) {
      throw new UserError(
        `The agent (pid ${a.pid}) is still finishing its filings; it stops when they end.`,
      );
    }
    await new Promise((r) => setTimeout(r, e.pollMs ?? 200));
  }
  e.print("The agent has stopped.");
  return "stopped";
}

/**
 * `agent stop [--wait <seconds>]`.
 * @param cli the run's context
 * @param cmd the command (its --data-dir, --wait)
 * @throws UserError as {@link stopRunningAgent}
 */
export async function stopAgentCommand(cli: Cli, cmd: Command): Promise<void> {
  const { wait } = optsOf<{ wait?: number }>(cmd);
  const r = await stopRunningAgent(dataDirOf(cli, cmd), {
    os: cli.os,
    print: (l) => say(cli, l),
    waitMs: (wait ?? 120) * 1000,
  });
  if (r === "not-running") say(cli, "No agent is running for this data folder.");
}
