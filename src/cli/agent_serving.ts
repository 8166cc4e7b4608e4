/**
 * The agent's start, step 5 of 6 (docs/architecture.md § The start): serve until SIGINT or
 * SIGTERM (or the same stop asked by the console or `agent stop`) — phase 1's own stop handler gives way to the agent's shutdown (pending confirmations
 * declined, running requests finished, the callers book saved, the journal closed, the lock
 * released) before `Agent ready` is printed, and the process stays up (`cli.serving`).
 * @module
 */
import { type InstanceLock, portHolderWords } from "../agent/start/mod.ts";
import type { Logger } from "../log.ts";
import type { Phase1 } from "./agent_early.ts";
import type { RunningAgent } from "./agent_servers.ts";
import type { Cli } from "./context.ts";
import { say } from "./output.ts";
import { programName } from "./program_name.ts";
import { removeSignal, shutdownOnSignal, SIGNALS } from "./process.ts";

/**
 * Step 5: serve until a signal stops the agent; say it is ready (with how long the start took)
 * and name another agent on the usual port.
 * @param cli the run's context (`cli.serving` is set)
 * @param agent the running agent
 * @param lock the instance lock (released on shutdown and when the process unloads)
 * @param p1 what phase 1 left running (its stop handler is removed), or null
 * @param log where "shutting down" goes
 */
export function serveUntilSignal(
  cli: Cli,
  agent: RunningAgent,
  lock: InstanceLock,
  p1: Phase1 | null,
  log: Logger,
): void {
  if (p1) { for (const sig of SIGNALS) removeSignal(sig, p1.stopEarly); }
  globalThis.addEventListener("unload", () => lock.releaseSync());
  const stop = shutdownOnSignal(agent.server, log, async () => {
    await agent.stop();
    agent.journal.close();
    await lock.release();
  }, () => agent.confirmations.declineAllPending());
  // The console's "Stop the agent" and `agent stop` end it the same way (docs/cli.md).
  agent.stopWith(stop);
  say(cli, `Agent ready: ${agent.url} (${Math.round(performance.now() - (p1?.t0 ?? 0))} ms)`);
  if (agent.portHolder) {
    const w = portHolderWords(agent.portHolder, agent.server.addr.port, programName(cli));
    say(cli, `! ${w.en}`);
    say(cli, `! ${w.bg}`);
  }
  cli.serving = true;
}
