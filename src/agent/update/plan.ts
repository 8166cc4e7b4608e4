/**
 * The one update run that the swap (swap.ts) and the MSI upgrade (msi_upgrade.ts) share
 * (docs/install.md § Updates): wait for `agent update` to end, stop the running agent, put the new
 * version in place (the way's own step), start it from its launcher and wait for its `/health`,
 * keep it or take it back and restart the previous version, and write the outcome to
 * `<data>/updates/last.json` and the log. The two ways differ only in how the files are put in
 * place, taken back and kept ({@link UpdateWay}).
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
  waitExit,
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

/** Side effects and limits of {@link runUpdate}: processes, clock, the update's log, limits. */
export interface UpdateRunDeps extends ProcessDeps {
  readonly log: Logger;
  /** How long the new (or restored) agent has to answer /health, ms (default 30 000). */
  readonly healthTimeoutMs?: number;
  /** How long a stopped agent may take to exit, ms (default 30 000). */
  readonly stopTimeoutMs?: number;
}

/** Why the new version is not in place (a sentence for the outcome's reason). */
export interface NotInPlace {
  readonly reason: string;
  /** false: the installed version was not touched (nothing to take back); true: take it back. */
  readonly changed: boolean;
}

/** How one kind of install is updated: the steps the swap and the MSI upgrade do differently. */
export interface UpdateWay {
  /** The program that starts the installed agent (the package's launcher, `svc-filing.exe`). */
  readonly launcher: string;
  /** Put the new version in place (the running agent is stopped by then).
   * @returns null when it is in place, else why not */
  putInPlace(): Promise<NotInPlace | null>;
  /** Take the new version out and put the previous one back.
   * @returns null when done, else what could not be done (after "and " in the reason) */
  takeBack(): Promise<string | null>;
  /** After the new version answered: keep what the next update needs, drop the rest (failures
   * are logged, never thrown). */
  keep(): Promise<void>;
}

const DEFAULT_MS = 30_000;

/**
 * Run one update of the installed agent from `plan.from` to `plan.to`, with rollback.
 * @param plan the update (read from its plan file)
 * @param d processes, clock, log, limits (ms)
 * @param way how this kind of install puts the new version in place, takes it back and keeps it
 * @returns the outcome: `updated` (the new version answered `/health`), `rolled_back` (the
 *   previous version is installed again, and running when it ran), or `failed` (the way back
 *   failed too; the reason says what is where); also written to last.json
 * @throws never: every failure ends in an outcome
 */
export async function runUpdate(
  plan: UpdatePlanBase,
  d: UpdateRunDeps,
  way: UpdateWay,
): Promise<UpdateOutcome> {
  const stopMs = d.stopTimeoutMs ?? DEFAULT_MS;
  for (const pid of plan.waitPids) await waitExit(pid, d, stopMs);
  if (plan.agent && !await stopProcess(plan.agent.pid, d, stopMs)) {
    const reason = `the running agent (pid ${plan.agent.pid}) did not stop`;
    return finishUpdate(plan, d, "rolled_back", null, reason);
  }
  const notInPlace = await way.putInPlace();
  if (notInPlace) {
    return notInPlace.changed
      ? rollBack(plan, d, way, notInPlace.reason)
      : restartPrevious(plan, d, way, notInPlace.reason);
  }
  const { started, h } = await startAndWait(plan, d, way.launcher, plan.to, healthMs(d));
  if (!("url" in h)) {
    await stopUnanswered(plan, d, started);
    return rollBack(plan, d, way, h.reason);
  }
  if (h.pid !== started.pid) d.log("info", "new agent answers", { pid: h.pid, url: h.url });
  await way.keep();
  if (!plan.agent) {
    // None ran before the update: the new version was started only to check it.
    await stopProcess(h.pid, d, stopMs, h.pid === started.pid ? started.exited : undefined);
    return finishUpdate(plan, d, "updated", null, null);
  }
  return finishUpdate(plan, d, "updated", h.url, null);
}

const healthMs = (d: UpdateRunDeps): number => d.healthTimeoutMs ?? DEFAULT_MS;

/** Take the new version back, then restart the previous one when it ran. */
async function rollBack(
  plan: UpdatePlanBase,
  d: UpdateRunDeps,
  way: UpdateWay,
  reason: string,
): Promise<UpdateOutcome> {
  d.log("warn", "rolling back", { reason });
  const notBack = await way.takeBack();
  if (notBack) return finishUpdate(plan, d, "failed", null, `${reason}; and ${notBack}`);
  return restartPrevious(plan, d, way, reason);
}

/** The previous version is installed: start it again when it ran before the update. */
async function restartPrevious(
  plan: UpdatePlanBase,
  d: UpdateRunDeps,
  way: UpdateWay,
  reason: string,
): Promise<UpdateOutcome> {
  if (!plan.agent) return finishUpdate(plan, d, "rolled_back", null, reason);
  const { h } = await startAndWait(plan, d, way.launcher, plan.from, healthMs(d));
  return "url" in h ? finishUpdate(plan, d, "rolled_back", h.url, reason) : finishUpdate(
    plan,
    d,
    "failed",
    null,
    `${reason}; and the previous version did not start: ${h.reason}`,
  );
}

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
async function startAndWait(
  plan: UpdatePlanBase,
  d: UpdateRunDeps,
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
async function stopUnanswered(
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
async function finishUpdate(
  plan: UpdatePlanBase,
  d: UpdateRunDeps,
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
