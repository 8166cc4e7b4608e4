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
import { errorMessage } from "../../error_message.ts";
import type { Logger } from "../../log.ts";
import { moveFolder, removeIfPresent } from "./files.ts";
import { asideOf, launcherName } from "./install.ts";
import type { UpdateOutcome } from "./outcome.ts";
import { runUpdate, type UpdatePlanBase, type UpdateRunDeps, type UpdateWay } from "./plan.ts";

/** What one swap does (written by `agent update`, read by `agent update-swap`). */
export interface SwapPlan extends UpdatePlanBase {
  /** The unpacked, verified new package. */
  readonly staged: string;
}

/** Side effects and limits of {@link runSwap} (health and stop limits in ms, 30 000 each). */
export type SwapDeps = UpdateRunDeps;

/** The swap's way: folders renamed, `<install>.previous` kept until the new agent answers. */
function swapWay(plan: SwapPlan, log: Logger): UpdateWay {
  const { os, install } = plan;
  const aside = asideOf(install);
  return {
    launcher: joinPath(os, install, launcherName(os)),
    async putInPlace() {
      try {
        await removeIfPresent(aside);
        await Deno.rename(install, aside);
      } catch (e) {
        return {
          reason: `${install} could not be moved aside: ${errorMessage(e)}`,
          changed: false,
        };
      }
      try {
        const how = await moveFolder(plan.staged, install, os);
        log("info", "new package in place", { how });
        return null;
      } catch (e) {
        return {
          reason: `the new package could not be moved to ${install}: ${errorMessage(e)}`,
          changed: true,
        };
      }
    },
    async takeBack() {
      try {
        await removeIfPresent(`${install}.failed`);
        await Deno.rename(install, `${install}.failed`).catch((e) => {
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        });
        await Deno.rename(aside, install);
        await removeIfPresent(`${install}.failed`).catch(() => {});
        return null;
      } catch (e) {
        return `${aside} could not be put back: ${errorMessage(e)}`;
      }
    },
    keep: () =>
      removeIfPresent(aside).catch((e) =>
        log("warn", "cannot remove the previous package", { folder: aside, error: String(e) })
      ),
  };
}

/**
 * Swap the installed package for the staged one, with rollback.
 * @param plan the swap
 * @param d processes, clock, log, limits
 * @returns the outcome (also written to last.json)
 * @throws never: every failure ends in a rolled_back or failed outcome
 */
export function runSwap(plan: SwapPlan, d: SwapDeps): Promise<UpdateOutcome> {
  const { install, from, to } = plan;
  d.log("info", "update swap", { from, to, install, staged: plan.staged, agent: plan.agent });
  return runUpdate(plan, d, swapWay(plan, d.log));
}
