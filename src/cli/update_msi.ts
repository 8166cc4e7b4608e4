/**
 * `agent update` on an install the Windows installer made (docs/install.md § Updates, "Installed
 * with the MSI"): the new version's MSI is downloaded and verified while the agent keeps running,
 * then the upgrade runs detached from a copy of the running program as the hidden
 * `agent update-msi --plan FILE` (update_steps.ts `runPlanCommand`: msiexec, read-back,
 * `/health`, rollback) and `agent update` ends; the outcome is in `<data>/updates/last.json`.
 * @module
 */
import type { Cli } from "./context.ts";
import { loadUpdate, prepareOptionsOf, sayInBackground, startPlan } from "./update_steps.ts";

/**
 * Download, verify and start the MSI upgrade of this install.
 * @param cli the run's context
 * @param o `--json`, and where messages go
 * @param dataDir the data folder
 * @param install the MSI's install
 * @param check a check whose relation is "newer"
 * @returns when the upgrade runs in the background
 * @throws AppError of `prepareMsiUpdate` (src/agent/update/msi_prepare.ts)
 */
export async function updateMsiInstall(
  cli: Cli,
  o: { json?: boolean },
  dataDir: string,
  install: import("../agent/update/mod.ts").PackagedInstall,
  check: import("../agent/update/mod.ts").UpdateCheck,
): Promise<void> {
  const u = await loadUpdate();
  const { denoCommandRunner } = await import("../command_runner.ts");
  const options = await prepareOptionsOf(cli, o, { dataDir, install, check });
  const prepared = await u.prepareMsiUpdate({
    ...options,
    tools: u.msiTools(cli.env, denoCommandRunner),
  });
  const { plan } = prepared;
  options.progress?.(
    `Installing svc-filing-${plan.to}-win-x64.msi${
      plan.agent ? ` (the agent on port ${plan.agent.port} restarts)` : ""
    }`,
  );
  const run = await startPlan(u, cli, dataDir, prepared, "update-msi");
  run.child.unref();
  sayInBackground(u, cli, o, dataDir, { updated: null, from: plan.from, to: plan.to, via: "msi" });
}
