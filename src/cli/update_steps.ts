/**
 * The steps `agent update` takes alike for a package swap (update.ts) and an MSI upgrade
 * (update_msi.ts), docs/install.md § Updates: what preparing needs from the running program,
 * starting the prepared plan detached with the update lock handed over, saying where its
 * outcome will be, and running the plan in the detached step (`agent update-swap`,
 * `agent update-msi`).
 * @module
 */
import { joinPath } from "../defaults.ts";
import type { Cli } from "./context.ts";
import { printJson, say } from "./output.ts";

/** The update module, loaded on first use (`agent update` and its hidden steps only). */
export const loadUpdate = () => import("../agent/update/mod.ts");

/** The update module's exports. */
type UpdateModule = Awaited<ReturnType<typeof loadUpdate>>;
type UpdateOutcome = import("../agent/update/mod.ts").UpdateOutcome;

/** The update a command prepares: the data folder, the running install, the newer version. */
export interface UpdateTarget {
  readonly dataDir: string;
  readonly install: import("../agent/update/mod.ts").PackagedInstall;
  /** A check whose relation is "newer". */
  readonly check: import("../agent/update/mod.ts").UpdateCheck;
}

/**
 * What preparing an update takes from this process: OS, package triple, pid, clock, ids, the
 * liveness check and the progress lines (none with `--json`).
 * @param cli the run's context
 * @param o `--json`
 * @param target the data folder, the install and the check
 * @returns the options both kinds of update share
 */
export async function prepareOptionsOf(
  cli: Cli,
  o: { json?: boolean },
  target: UpdateTarget,
): Promise<import("../agent/update/mod.ts").PrepareOptionsBase> {
  const { processAlive } = await import("../agent/start/mod.ts");
  return {
    os: cli.os,
    triple: Deno.build.target,
    ...target,
    pid: Deno.pid,
    isAlive: processAlive,
    now: () => cli.clock.now(),
    newId: () => crypto.randomUUID(),
    progress: (line: string) => o.json ? undefined : say(cli, line),
  };
}

/**
 * Start the prepared plan detached (`agent <command> --plan FILE` from its launcher, in the data
 * folder) and hand it the update lock.
 * @param u the update module
 * @param cli the run's context
 * @param dataDir the data folder
 * @param prepared the prepared update
 * @param command `update-swap` or `update-msi`
 * @returns the started process
 */
export async function startPlan(
  u: UpdateModule,
  cli: Cli,
  dataDir: string,
  prepared: import("../agent/update/mod.ts").PreparedBase<unknown>,
  command: "update-swap" | "update-msi",
): Promise<ReturnType<UpdateModule["spawnDetached"]>> {
  const run = u.spawnDetached(
    prepared.launcher,
    ["agent", command, "--plan", prepared.planPath],
    { cwd: dataDir, env: { SVC_DATA_DIR: dataDir }, os: cli.os },
  );
  await prepared.lock.handOver(run.pid);
  return run;
}

/**
 * Say that the update goes on after this command ends, and where its outcome will be
 * (`<data>/updates/last.json`).
 * @param u the update module
 * @param cli the run's context
 * @param o `--json`
 * @param dataDir the data folder
 * @param json the fields printed with `--json` (the outcome's path is added)
 */
export function sayInBackground(
  u: UpdateModule,
  cli: Cli,
  o: { json?: boolean },
  dataDir: string,
  json: Readonly<Record<string, unknown>>,
): void {
  const last = u.lastOutcomePath(cli.os, u.updatesDir(cli.os, dataDir));
  if (o.json) printJson(cli, { ...json, outcome: last });
  else say(cli, `The update continues in the background; its outcome will be in ${last}.`);
}

/**
 * A plan's detached step, `agent update-swap --plan FILE` (run from the new package) or
 * `agent update-msi --plan FILE` (run from `<data>/updates/runner/`): the plan file is removed
 * once read; the update gets this process's side effects, with new agents' output in
 * `<updates>/agent.log` and the steps in `<updates>/update.log`; then what the update left is
 * removed (the unpacked leftovers, or the downloaded MSI) and the update lock released.
 * @param cli the run's context (exit code 0 when updated, else 1)
 * @param kind `swap` or `msi`
 * @param planPath the plan `agent update` wrote
 * @returns when the outcome is written
 * @throws UserError naming the plan file when it is missing or malformed
 */
export async function runPlanCommand(
  cli: Cli,
  kind: "swap" | "msi",
  planPath: string,
): Promise<void> {
  const u = await loadUpdate();
  const plan = kind === "swap" ? await u.readSwapPlan(planPath) : await u.readMsiPlan(planPath);
  await Deno.remove(planPath).catch(() => {});
  const updates = u.updatesDir(plan.os, plan.dataDir);
  const deps = {
    ...u.systemProcessDeps(plan.os, plan.dataDir, joinPath(plan.os, updates, "agent.log")),
    now: () => cli.clock.now(),
    log: u.fileLogger(joinPath(plan.os, updates, "update.log")),
  };
  let outcome: UpdateOutcome;
  if ("staged" in plan) {
    outcome = await u.runSwap(plan, deps);
    await u.removeLeftovers(updates);
  } else {
    const { denoCommandRunner } = await import("../command_runner.ts");
    outcome = await u.runMsiUpgrade(plan, {
      ...deps,
      tools: u.msiTools(cli.env, denoCommandRunner),
    });
    await Deno.remove(plan.msi).catch(() => {});
  }
  await Deno.remove(joinPath(plan.os, updates, "update.lock")).catch(() => {});
  cli.exitCode = outcome.outcome === "updated" ? 0 : 1;
}
