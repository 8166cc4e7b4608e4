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
import { updatesDir } from "./disk.ts";
import { moveFolder, removeIfPresent } from "./files.ts";
import { asideOf, launcherName } from "./install.ts";
import { lastOutcomePath, type UpdateOutcome, writeOutcome } from "./outcome.ts";
import {
  type ProcessDeps,
  readAgentLock,
  stopProcess,
  waitExit,
  waitHealthy,
} from "./processes.ts";

/** What one swap does (written by `agent update`, read by `agent update-swap`). */
export interface SwapPlan {
  /** The update's id (matches last.json to this swap). */
  readonly id: string;
  /** Deno.build.os. */
  readonly os: string;
  /** The installed package's folder. */
  readonly install: string;
  /** The unpacked, verified new package. */
  readonly staged: string;
  /** The agent's data folder. */
  readonly dataDir: string;
  readonly from: string;
  readonly to: string;
  /** The running agent (stopped first, restarted on its port), or null when none runs. */
  readonly agent: { readonly pid: number; readonly port: number } | null;
  /** Processes to wait for before the install is touched. */
  readonly waitPids: readonly number[];
}

/** Side effects and limits of {@link runSwap}. */
export interface SwapDeps extends ProcessDeps {
  readonly log: Logger;
  /** How long the new (or restored) agent has to answer /health, ms (default 30 000). */
  readonly healthTimeoutMs?: number;
  /** How long a stopped agent may take to exit, ms (default 30 000). */
  readonly stopTimeoutMs?: number;
}

/**
 * Swap the installed package for the staged one, with rollback.
 * @param plan the swap
 * @param d processes, clock, log, limits
 * @returns the outcome (also written to last.json)
 * @throws never: every failure ends in a rolled_back or failed outcome
 */
export async function runSwap(plan: SwapPlan, d: SwapDeps): Promise<UpdateOutcome> {
  const { os, install, dataDir, from, to, log } = { ...plan, log: d.log };
  const healthMs = d.healthTimeoutMs ?? 30_000;
  const stopMs = d.stopTimeoutMs ?? 30_000;
  const aside = asideOf(install);
  const launcher = joinPath(os, install, launcherName(os));
  const args = [
    "agent",
    "--data-dir",
    dataDir,
    ...(plan.agent ? ["--port", `${plan.agent.port}`] : []),
  ];
  const finish = async (
    outcome: UpdateOutcome["outcome"],
    agentUrl: string | null,
    reason: string | null,
  ): Promise<UpdateOutcome> => {
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
      log("error", "cannot write last.json", { error: String(e) })
    );
    log(outcome === "updated" ? "info" : "error", "update done", { outcome, from, to, reason });
    return o;
  };
  /** Start the package now in `install` as `version` and wait for it. */
  const start = async (version: string) => {
    const started = d.startAgent(launcher, args);
    log("info", "agent started", { version, pid: started.pid });
    const h = await waitHealthy(os, dataDir, version, started, d, healthMs);
    return { started, h };
  };
  /** Put the previous package back and restart it when it ran. */
  const rollback = async (reason: string): Promise<UpdateOutcome> => {
    log("warn", "rolling back", { reason });
    try {
      await removeIfPresent(`${install}.failed`);
      await Deno.rename(install, `${install}.failed`).catch((e) => {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      });
      await Deno.rename(aside, install);
      await removeIfPresent(`${install}.failed`).catch(() => {});
    } catch (e) {
      return finish("failed", null, `${reason}; and ${aside} could not be put back: ${text(e)}`);
    }
    if (!plan.agent) return finish("rolled_back", null, reason);
    const { h } = await start(from);
    return "url" in h
      ? finish("rolled_back", h.url, reason)
      : finish("failed", null, `${reason}; and the previous version did not start: ${h.reason}`);
  };

  log("info", "update swap", { from, to, install, staged: plan.staged, agent: plan.agent });
  for (const pid of plan.waitPids) await waitExit(pid, d, stopMs);
  if (plan.agent && !await stopProcess(plan.agent.pid, d, stopMs)) {
    return finish("rolled_back", null, `the running agent (pid ${plan.agent.pid}) did not stop`);
  }
  try {
    await removeIfPresent(aside);
    await Deno.rename(install, aside);
  } catch (e) {
    // Nothing changed: start the old agent again.
    const reason = `${install} could not be moved aside: ${text(e)}`;
    if (!plan.agent) return finish("rolled_back", null, reason);
    const { h } = await start(from);
    return finish("url" in h ? "rolled_back" : "failed", "url" in h ? h.url : null, reason);
  }
  try {
    const how = await moveFolder(plan.staged, install, os);
    log("info", "new package in place", { how });
  } catch (e) {
    return rollback(`the new package could not be moved to ${install}: ${text(e)}`);
  }
  const { started, h } = await start(to);
  if (!("url" in h)) {
    await stopProcess(started.pid, d, 5_000, started.exited);
    const lock = await readAgentLock(os, dataDir); // Windows: the runtime under the launcher
    if (lock?.version === to && lock.pid !== started.pid) await stopProcess(lock.pid, d, 5_000);
    return rollback(h.reason);
  }
  if (h.pid !== started.pid) log("info", "new agent answers", { pid: h.pid, url: h.url });
  await removeIfPresent(aside).catch((e) =>
    log("warn", "cannot remove the previous package", { folder: aside, error: String(e) })
  );
  if (!plan.agent) {
    // None ran before the update: the new version was started only to check it.
    await stopProcess(h.pid, d, stopMs, h.pid === started.pid ? started.exited : undefined);
    return finish("updated", null, null);
  }
  return finish("updated", h.url, null);
}

const text = (e: unknown) => (e instanceof Error ? e.message : String(e));
