/**
 * The swap (docs/install.md), run by `agent update-swap` from the NEW package once it is unpacked
 * and verified (so a release can improve its own installation):
 *
 * 1. wait for the processes that hold the install (Windows: the `agent update` that started it);
 * 2. stop the running agent (SIGTERM: it finishes its requests and exits);
 * 3. rename the install to `<install>.previous`, move the new package to `<install>`;
 * 4. start the new agent from its launcher (on the old agent's port) and wait up to 30 s for
 *    `/health` to say `ok` with the new version;
 * 5. success: remove `<install>.previous` (and stop the new agent again if none ran before);
 *    failure: stop the new agent, put `<install>.previous` back and restart the old agent.
 *
 * The outcome goes to `<data>/updates/last.json` (outcome.ts), the steps to `update.log`.
 * @module
 */
import { joinPath } from "../../defaults.ts";
import type { Logger } from "../../log.ts";
import { moveFolder, removeIfPresent } from "./files.ts";
import { asideOf, launcherName } from "./install.ts";
import type { UpdateOutcome } from "./outcome.ts";
import {
  errorText as text,
  finishUpdate,
  startAndWait,
  stopUnanswered,
  type UpdatePlanBase,
} from "./plan.ts";
import { type ProcessDeps, stopProcess, waitExit } from "./processes.ts";

/** What one swap does (written by `agent update`, read by `agent update-swap`). */
export interface SwapPlan extends UpdatePlanBase {
  /** The unpacked, verified new package. */
  readonly staged: string;
}

/** Side effects and limits of {@link runSwap}. */
export interface SwapDeps extends ProcessDeps {
  readonly log: Logger;
  /** How long the new (or restored) agent has to answer /health, ms (default 30 000). */
  readonly healthTimeoutMs?: number;
  /** How long a stopped agent may take to exit, ms (default 30 000). */
  readonly stopTimeoutMs?: number;
}

/** One swap's settings, worked out once from its plan. */
interface SwapRun {
  readonly plan: SwapPlan;
  readonly d: SwapDeps;
  readonly log: Logger;
  /** ms the new (or restored) agent has to answer /health; ms a stopped agent may take. */
  readonly healthMs: number;
  readonly stopMs: number;
  /** Where the installed package waits while the new one is tried. */
  readonly aside: string;
  readonly launcher: string;
}

function swapRun(plan: SwapPlan, d: SwapDeps): SwapRun {
  const { os, install } = plan;
  return {
    plan,
    d,
    log: d.log,
    healthMs: d.healthTimeoutMs ?? 30_000,
    stopMs: d.stopTimeoutMs ?? 30_000,
    aside: asideOf(install),
    launcher: joinPath(os, install, launcherName(os)),
  };
}

/** The outcome, written to last.json and logged. */
const finishSwap = (
  r: SwapRun,
  outcome: UpdateOutcome["outcome"],
  agentUrl: string | null,
  reason: string | null,
): Promise<UpdateOutcome> => finishUpdate(r.plan, r.d, outcome, agentUrl, reason);

/** Start the package now in the install folder as `version` and wait for it. */
const startInstalled = (r: SwapRun, version: string) =>
  startAndWait(r.plan, r.d, r.launcher, version, r.healthMs);

/** Put the previous package back and restart it when it ran. */
async function rollbackSwap(r: SwapRun, reason: string): Promise<UpdateOutcome> {
  const { install, from } = r.plan;
  r.log("warn", "rolling back", { reason });
  try {
    await removeIfPresent(`${install}.failed`);
    await Deno.rename(install, `${install}.failed`).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    await Deno.rename(r.aside, install);
    await removeIfPresent(`${install}.failed`).catch(() => {});
  } catch (e) {
    return finishSwap(
      r,
      "failed",
      null,
      `${reason}; and ${r.aside} could not be put back: ${text(e)}`,
    );
  }
  if (!r.plan.agent) return finishSwap(r, "rolled_back", null, reason);
  const { h } = await startInstalled(r, from);
  return "url" in h ? finishSwap(r, "rolled_back", h.url, reason) : finishSwap(
    r,
    "failed",
    null,
    `${reason}; and the previous version did not start: ${h.reason}`,
  );
}

/** Move the installed package aside; when it cannot be, nothing changed: the old agent starts
 * again and the outcome says so. @returns null when moved */
async function moveAside(r: SwapRun): Promise<UpdateOutcome | null> {
  const { install, from } = r.plan;
  try {
    await removeIfPresent(r.aside);
    await Deno.rename(install, r.aside);
    return null;
  } catch (e) {
    const reason = `${install} could not be moved aside: ${text(e)}`;
    if (!r.plan.agent) return finishSwap(r, "rolled_back", null, reason);
    const { h } = await startInstalled(r, from);
    return finishSwap(r, "url" in h ? "rolled_back" : "failed", "url" in h ? h.url : null, reason);
  }
}

/** Start the new package and keep it when it answers, else stop it and roll back. */
async function tryNewAgent(r: SwapRun): Promise<UpdateOutcome> {
  const { d, log } = r;
  const { started, h } = await startInstalled(r, r.plan.to);
  if (!("url" in h)) {
    await stopUnanswered(r.plan, d, started);
    return rollbackSwap(r, h.reason);
  }
  if (h.pid !== started.pid) log("info", "new agent answers", { pid: h.pid, url: h.url });
  await removeIfPresent(r.aside).catch((e) =>
    log("warn", "cannot remove the previous package", { folder: r.aside, error: String(e) })
  );
  if (!r.plan.agent) {
    // None ran before the update: the new version was started only to check it.
    await stopProcess(h.pid, d, r.stopMs, h.pid === started.pid ? started.exited : undefined);
    return finishSwap(r, "updated", null, null);
  }
  return finishSwap(r, "updated", h.url, null);
}

/**
 * Swap the installed package for the staged one, with rollback.
 * @param plan the swap
 * @param d processes, clock, log, limits
 * @returns the outcome (also written to last.json)
 * @throws never: every failure ends in a rolled_back or failed outcome
 */
export async function runSwap(plan: SwapPlan, d: SwapDeps): Promise<UpdateOutcome> {
  const r = swapRun(plan, d);
  const { install, from, to } = plan;
  r.log("info", "update swap", { from, to, install, staged: plan.staged, agent: plan.agent });
  for (const pid of plan.waitPids) await waitExit(pid, d, r.stopMs);
  if (plan.agent && !await stopProcess(plan.agent.pid, d, r.stopMs)) {
    return finishSwap(
      r,
      "rolled_back",
      null,
      `the running agent (pid ${plan.agent.pid}) did not stop`,
    );
  }
  const unchanged = await moveAside(r);
  if (unchanged) return unchanged;
  try {
    const how = await moveFolder(plan.staged, install, plan.os);
    r.log("info", "new package in place", { how });
  } catch (e) {
    return rollbackSwap(r, `the new package could not be moved to ${install}: ${text(e)}`);
  }
  return tryNewAgent(r);
}
