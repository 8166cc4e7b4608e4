/**
 * `agent update` on an install the Windows installer made, and the hidden `agent update-msi
 * --plan FILE` it starts (docs/install.md § Updates, "Installed with the MSI"): the new version's
 * MSI is downloaded and verified while the agent keeps running, then the upgrade runs detached
 * from a copy of the running program (msiexec, read-back, `/health`, rollback) and `agent
 * update` ends; the outcome is in `<data>/updates/last.json`.
 * @module
 */
import { joinPath } from "../defaults.ts";
import type { Cli } from "./context.ts";
import { printJson, say } from "./output.ts";

const load = () => import("../agent/update/mod.ts");

type Mod = Awaited<ReturnType<typeof load>>;

/**
 * Download, verify and start the MSI upgrade of this install.
 * @param cli the run's context
 * @param o `--json`, and where messages go
 * @param dataDir the data folder
 * @param install the MSI's install
 * @param check a check whose relation is "newer"
 * @returns when the upgrade runs in the background
 * @throws AppError of {@link Mod.prepareMsiUpdate}
 */
export async function updateMsiInstall(
  cli: Cli,
  o: { json?: boolean },
  dataDir: string,
  install: import("../agent/update/mod.ts").PackagedInstall,
  check: import("../agent/update/mod.ts").UpdateCheck,
): Promise<void> {
  const u = await load();
  const { denoCommandRunner } = await import("../command_runner.ts");
  const { processAlive } = await import("../agent/start/mod.ts");
  const progress = (line: string) => o.json ? undefined : say(cli, line);
  const prepared = await u.prepareMsiUpdate({
    os: cli.os,
    triple: Deno.build.target,
    dataDir,
    install,
    check,
    pid: Deno.pid,
    tools: u.msiTools(cli.env, denoCommandRunner),
    isAlive: processAlive,
    now: () => cli.clock.now(),
    newId: () => crypto.randomUUID(),
    progress,
  });
  const { plan } = prepared;
  progress(
    `Installing svc-filing-${plan.to}-win-x64.msi${
      plan.agent ? ` (the agent on port ${plan.agent.port} restarts)` : ""
    }`,
  );
  const run = u.spawnDetached(
    prepared.launcher,
    ["agent", "update-msi", "--plan", prepared.planPath],
    { cwd: dataDir, env: { SVC_DATA_DIR: dataDir }, os: cli.os },
  );
  await prepared.lock.handOver(run.pid);
  run.child.unref();
  const last = u.lastOutcomePath(cli.os, u.updatesDir(cli.os, dataDir));
  if (o.json) {
    printJson(cli, { updated: null, from: plan.from, to: plan.to, via: "msi", outcome: last });
  } else say(cli, `The update continues in the background; its outcome will be in ${last}.`);
}

/**
 * `agent update-msi --plan FILE`: the upgrade, run detached from `<data>/updates/runner/`.
 * @param cli the run's context
 * @param planPath the plan `agent update` wrote
 * @returns when the outcome is written (exit code 0 when updated, else 1)
 */
export async function updateMsiCommand(cli: Cli, planPath: string): Promise<void> {
  const u = await load();
  const { denoCommandRunner } = await import("../command_runner.ts");
  const plan = await u.readMsiPlan(planPath);
  await Deno.remove(planPath).catch(() => {});
  const updates = u.updatesDir(plan.os, plan.dataDir);
  const outcome = await u.runMsiUpgrade(plan, {
    ...u.systemProcessDeps(plan.os, plan.dataDir, joinPath(plan.os, updates, "agent.log")),
    now: () => cli.clock.now(),
    log: u.fileLogger(joinPath(plan.os, updates, "update.log")),
    tools: u.msiTools(cli.env, denoCommandRunner),
  });
  await Deno.remove(plan.msi).catch(() => {});
  await Deno.remove(joinPath(plan.os, updates, "update.lock")).catch(() => {});
  cli.exitCode = outcome.outcome === "updated" ? 0 : 1;
}
