/**
 * `agent update [--check] [--json]` and the hidden `agent update-swap --plan FILE`
 * (docs/install.md § Updates). `agent update` checks the token service's signed manifest and,
 * when the agent runs from the portable package and a newer version is published, downloads,
 * verifies and unpacks it while the agent keeps running, then starts the swap from the NEW package
 * (detached), which stops the agent, swaps the folders, starts the new version and rolls back when
 * it does not answer `/health` within 30 s. On Linux and macOS `agent update` waits for the swap and
 * reports its outcome; on Windows (a folder whose program runs cannot be renamed) it exits first
 * and the outcome is in `<data>/updates/last.json`. Run from source, it only checks. On an install
 * the Windows installer made, the update goes through the MSI (src/cli/update_msi.ts).
 * @module
 */
import { Command, Option } from "commander";
import { joinPath } from "../defaults.ts";
import { VERSION } from "../version.ts";
import { agentConfig } from "./agent_settings.ts";
import type { Cli } from "./context.ts";
import { dataDirOf, dataDirOption, jsonOption, optsOf, textArg } from "./options.ts";
import { failureJson, isAppError, note, printJson, say } from "./output.ts";
import {
  loadUpdate,
  prepareOptionsOf,
  runPlanCommand,
  sayInBackground,
  startPlan,
} from "./update_steps.ts";

interface UpdateFlags extends Record<string, unknown> {
  check?: boolean;
  json?: boolean;
  tokenService?: string;
}

/** The tar program: Windows' own bsdtar, not one a PATH entry may shadow. */
const tarOf = (cli: Cli) =>
  cli.os === "windows"
    ? `${cli.env.SystemRoot ?? cli.env.SYSTEMROOT ?? "C:\\Windows"}\\System32\\tar.exe`
    : "tar";

/** `agent update`. */
async function update(cli: Cli, cmd: Command): Promise<void> {
  const o = optsOf<UpdateFlags>(cmd);
  const cfg = await agentConfig(cli, {
    dataDir: dataDirOf(cli, cmd),
    ...(o.tokenService ? { tokenService: o.tokenService } : {}),
  });
  const u = await loadUpdate();
  const check = await u.checkForUpdate({
    tokenServiceUrl: cfg.tokenServiceUrl,
    currentVersion: VERSION,
    keys: u.UPDATE_PUBLIC_KEYS,
  });
  const available = check.relation === "newer";
  if (o.check) return reportCheck(cli, o, check);
  u.requireNotDowngrade(check);
  const install = available ? await u.packagedInstall(cli.mainModule, cli.os) : null;
  if (install && await u.installedByMsi(install, cli.os)) {
    const { updateMsiInstall } = await import("./update_msi.ts");
    return await updateMsiInstall(cli, o, cfg.dataDir, install, check);
  }
  if (!available || !install) {
    const why = !available
      ? `Up to date (${check.current}).`
      : `Version ${check.latest} is available (this is ${check.current}). This agent runs from ` +
        "source, so `agent update` only checks: update the checkout, or install the package " +
        "(docs/install.md).";
    if (o.json) printJson(cli, { updated: false, current: check.current, latest: check.latest });
    else say(cli, why);
    return;
  }
  const { denoCommandRunner } = await import("../command_runner.ts");
  const options = await prepareOptionsOf(cli, o, { dataDir: cfg.dataDir, install, check });
  const prepared = await u.prepareUpdate({ ...options, run: denoCommandRunner, tar: tarOf(cli) });
  const { plan } = prepared;
  options.progress?.(
    `Installing ${plan.to} in ${plan.install}${
      plan.agent ? ` (the agent on port ${plan.agent.port} restarts)` : ""
    }`,
  );
  const swap = await startPlan(u, cli, cfg.dataDir, prepared, "update-swap");
  if (cli.os === "windows") {
    swap.child.unref();
    sayInBackground(u, cli, o, cfg.dataDir, { updated: null, from: plan.from, to: plan.to });
    return;
  }
  const code = await swap.exited;
  await prepared.lock.release(swap.pid);
  const outcome = await u.readOutcome(u.lastOutcomePath(cli.os, u.updatesDir(cli.os, cfg.dataDir)));
  await reportOutcome(cli, o, plan, outcome?.id === plan.id ? outcome : null, code);
}

/** `agent update --check`: what is published against this version. */
function reportCheck(
  cli: Cli,
  o: UpdateFlags,
  check: Awaited<ReturnType<Awaited<ReturnType<typeof loadUpdate>>["checkForUpdate"]>>,
): void {
  const available = check.relation === "newer";
  const pkg = check.manifest.packages.find((p) => p.triple === Deno.build.target) ?? null;
  const report = {
    current: check.current,
    latest: check.latest,
    available,
    published: check.manifest.published,
    package: pkg && { target: pkg.target, url: pkg.url, size: pkg.size },
  };
  if (o.json) return printJson(cli, report);
  say(cli, `Current: ${check.current}`);
  say(cli, `Latest: ${check.latest} (published ${check.manifest.published})`);
  say(
    cli,
    `Available: ${
      available ? "yes" : check.relation === "older" ? "no (the published one is older)" : "no"
    }`,
  );
}

/** Print the swap's outcome, or throw its failure. */
async function reportOutcome(
  cli: Cli,
  o: UpdateFlags,
  plan: { from: string; to: string; dataDir: string },
  outcome: import("../agent/update/mod.ts").UpdateOutcome | null,
  code: number,
): Promise<void> {
  const { AppError } = await import("../contract/mod.ts");
  const log = joinPath(cli.os, plan.dataDir, "updates", "update.log");
  if (!outcome) {
    throw new AppError(
      "UPDATE_FAILED",
      `The swap to ${plan.to} ended (exit ${code}) without an outcome; see ${log}`,
    );
  }
  if (outcome.outcome === "rolled_back" || outcome.outcome === "failed") {
    throw new AppError(
      outcome.outcome === "rolled_back" ? "UPDATE_ROLLED_BACK" : "UPDATE_FAILED",
      outcome.outcome === "rolled_back"
        ? `Rolled back to ${plan.from}: ${outcome.reason}`
        : `The update to ${plan.to} failed: ${outcome.reason}; see ${log}`,
      { ...outcome },
    );
  }
  if (o.json) return printJson(cli, { updated: true, ...outcome });
  say(
    cli,
    outcome.agentUrl
      ? `Updated from ${plan.from} to ${plan.to}; the agent answers at ${outcome.agentUrl}.`
      : `Updated from ${plan.from} to ${plan.to} (the agent was not running).`,
  );
}

/**
 * Add `update` and the hidden `update-swap` to the `agent` command.
 * @param agent the `agent` command
 * @param cli the run's context
 * @returns the `agent` command
 */
export function addUpdateCommands(agent: Command, cli: Cli): Command {
  agent.command("update")
    .summary("check for a signed update and install it (with rollback)")
    .description(
      "Check the token service's signed update manifest; when a newer version is published and " +
        "this agent runs from the portable package, download and verify it, swap it in, restart " +
        "the agent and roll back when the new version does not answer /health within 30 s (on " +
        "an install the Windows installer made, through msiexec and its MSI). Run " +
        "from source it only checks. Exit 1 on a refusal (bad signature, wrong hash, downgrade, " +
        "truncated download, full disk) or a rollback; nothing is changed then.",
    )
    .addOption(new Option("--check", "only report current, latest and whether it is newer"))
    .addOption(dataDirOption())
    .addOption(
      new Option("--token-service <url>", "the token service (default: SVC_TOKEN_SERVICE_URL)")
        .argParser(textArg),
    )
    .addOption(jsonOption())
    .action(async (_o, cmd: Command) => {
      try {
        await update(cli, cmd);
      } catch (e) {
        if (!optsOf<UpdateFlags>(cmd).json || !isAppError(e)) throw e;
        note(cli, failureJson(e));
        cli.exitCode = 1;
      }
    });
  agent.addCommand(
    new Command("update-msi")
      .description("upgrade through the Windows installer (run by `agent update`)")
      .requiredOption("--plan <file>", "the upgrade's plan")
      .action((o: { plan: string }) => runPlanCommand(cli, "msi", o.plan)),
    { hidden: true },
  );
  agent.addCommand(
    new Command("update-swap")
      .description("swap in an unpacked update (run by `agent update`)")
      .requiredOption("--plan <file>", "the swap's plan")
      .action((o: { plan: string }) => runPlanCommand(cli, "swap", o.plan)),
    { hidden: true },
  );
  return agent;
}
