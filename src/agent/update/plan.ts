/**
 * What the swap (swap.ts) and the MSI upgrade (msi_upgrade.ts) share (docs/install.md): the
 * common part of their plans, starting the installed agent from its launcher and waiting for its
 * `/health`, stopping a new agent that did not answer, and the outcome written to
 * `<data>/updates/last.json` and logged.
 * @module
 */
import type { Logger } from "../../log.ts";
import { updatesDir } from "./disk.ts";
import { lastOutcomePath, type UpdateOutcome, writeOutcome } from "./outcome.ts";
import {
  type HealthyAgent,
  type ProcessDeps,
  readAgentLock,
  type StartedAgent,
  stopProcess,
  waitHealthy,
} from "./processes.ts";

/** What every update plan holds (the swap's and the MSI upgrade's; schema: prepare.ts
 * `PLAN_BASE`). */
export interface UpdatePlanBase {
  /** The update's id (matches last.json to this run). */
  readonly id: string;
  /** Deno.build.os. */
  readonly os: string;
  /** The installed program's folder. */
  readonly install: string;
  /** The agent's data folder. */
  readonly dataDir: string;
  readonly from: string;
  readonly to: string;
  /** The running agent (stopped first, restarted on its port), or null when none runs. */
  readonly agent: { readonly pid: number; readonly port: number } | null;
  /** Processes to wait for before the install is touched. */
  readonly waitPids: readonly number[];
}

/** The side effects both updates use here: processes, clock and the update's log. */
export interface UpdateStepDeps extends ProcessDeps {
  readonly log: Logger;
}

/**
 * An error's message for an outcome's reason.
 * @param e what was thrown
 * @returns its message, or its text
 */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Start the installed agent from `launcher` as `version` (on the old agent's port, when one ran)
 * and wait for its `/health` to say `ok` with that version.
 * @param plan the update
 * @param d processes, clock, log
 * @param launcher the program that starts the agent
 * @param version the version it must answer with
 * @param healthMs how long it has, ms
 * @returns the started process, and the agent that answered or the reason none did
 */
export async function startAndWait(
  plan: UpdatePlanBase,
  d: UpdateStepDeps,
  launcher: string,
  version: string,
  healthMs: number,
): Promise<{ started: StartedAgent; h: HealthyAgent | { reason: string } }> {
  const port = plan.agent ? ["--port", `${plan.agent.port}`] : [];
  const started = d.startAgent(launcher, ["agent", "--data-dir", plan.dataDir, ...port]);
  d.log("info", "agent started", { version, pid: started.pid });
  const h = await waitHealthy(plan.os, plan.dataDir, version, started, d, healthMs);
  return { started, h };
}

/**
 * Stop a new agent that did not answer: the started process and, on Windows, the runtime the
 * launcher started (the one the lock file names as the new version).
 * @param plan the update
 * @param d processes, clock
 * @param started what {@link startAndWait} started
 */
export async function stopUnanswered(
  plan: UpdatePlanBase,
  d: ProcessDeps,
  started: StartedAgent,
): Promise<void> {
  await stopProcess(started.pid, d, 5_000, started.exited);
  const lock = await readAgentLock(plan.os, plan.dataDir);
  if (lock?.version === plan.to && lock.pid !== started.pid) await stopProcess(lock.pid, d, 5_000);
}

/**
 * The update's outcome: written to last.json (a failure to write it is logged) and logged.
 * @param plan the update
 * @param d clock, log
 * @param outcome what happened
 * @param agentUrl the agent that runs now, or null
 * @param reason why it was not updated, or null
 * @returns the outcome
 */
export async function finishUpdate(
  plan: UpdatePlanBase,
  d: UpdateStepDeps,
  outcome: UpdateOutcome["outcome"],
  agentUrl: string | null,
  reason: string | null,
): Promise<UpdateOutcome> {
  const { os, dataDir, from, to } = plan;
  const o: UpdateOutcome = {
    id: plan.id,
    outcome,
    from,
    to,
    at: new Date(d.now()).toISOString(),
    agentUrl,
    reason,
  };
  await writeOutcome(lastOutcomePath(os, updatesDir(os, dataDir)), o).catch((e) =>
    d.log("error", "cannot write last.json", { error: String(e) })
  );
  d.log(outcome === "updated" ? "info" : "error", "update done", { outcome, from, to, reason });
  return o;
}
