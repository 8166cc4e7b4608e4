/**
 * The upgrade of an install the Windows installer made (docs/install.md § Updates, "Installed
 * with the MSI"), run by `agent update-msi` from a copy of the running version outside the
 * program folder (Windows Installer replaces the program's files, which no process may hold):
 *
 * 1. wait for `agent update` to end, stop the running agent;
 * 2. `msiexec /i <new MSI> /qn /l*v <log>` (the MSI's MajorUpgrade replaces the old version);
 * 3. read back: the program folder's `VERSION` and the "Apps" entry's `DisplayVersion` say the new
 *    version; start the agent (`svc-filing.exe agent`) and wait up to 30 s for `/health` to
 *    answer with it;
 * 4. success: keep the new MSI as `<data>/updates/msi/svc-filing-<version>-win-x64.msi` (the next
 *    update's way back) and the outcome "updated";
 *    failure: stop the new agent, `msiexec /x` the new version and `msiexec /i` the previous
 *    version's MSI (an uninstall then an install: the older MSI's MajorUpgrade refuses to
 *    downgrade), read back that "Apps" shows the previous version, restart it when it ran, and
 *    the outcome "rolled_back".
 *
 * The outcome goes to `<data>/updates/last.json`, the steps to `update.log`, msiexec's logs to
 * `<data>/updates/msiexec-<version>.log`.
 * @module
 */
import { joinPath } from "../../defaults.ts";
import type { Logger } from "../../log.ts";
import { updatesDir } from "./disk.ts";
import { appsEntry, msiexec, type MsiTools } from "./msi.ts";
import type { UpdateOutcome } from "./outcome.ts";
import {
  errorText as text,
  finishUpdate,
  startAndWait,
  stopUnanswered,
  type UpdatePlanBase,
} from "./plan.ts";
import { type ProcessDeps, stopProcess, waitExit } from "./processes.ts";

/** The program the MSI installs that starts the agent without a console (scripts/package). */
export const MSI_LAUNCHER = "svc-filing.exe";

/** What one MSI upgrade does (written by `agent update`, read by `agent update-msi`);
 * `install` is the program folder (`%LOCALAPPDATA%\Programs\svc-filing`). */
export interface MsiPlan extends UpdatePlanBase {
  /** The verified new MSI. */
  readonly msi: string;
  /** The running version's MSI (the way back). */
  readonly previousMsi: string;
}

/** Side effects and limits of {@link runMsiUpgrade}. */
export interface MsiDeps extends ProcessDeps {
  readonly log: Logger;
  readonly tools: MsiTools;
  /** ms the new (or restored) agent has to answer /health (default 30 000). */
  readonly healthTimeoutMs?: number;
  /** ms a stopped agent may take (default 30 000). */
  readonly stopTimeoutMs?: number;
}

/**
 * Where kept MSIs live.
 * @param os Deno.build.os
 * @param dataDir the data folder
 * @returns `<data>/updates/msi`
 */
export const keptMsiDir = (os: string, dataDir: string): string =>
  joinPath(os, updatesDir(os, dataDir), "msi");

/**
 * The kept MSI of a version.
 * @param os Deno.build.os
 * @param dataDir the data folder
 * @param version the version
 * @returns `<data>/updates/msi/svc-filing-<version>-win-x64.msi`
 */
export const keptMsiPath = (os: string, dataDir: string, version: string): string =>
  joinPath(os, keptMsiDir(os, dataDir), `svc-filing-${version}-win-x64.msi`);

/** Whether the installed program is `version`: its VERSION file and the "Apps" entry. */
async function installedIs(p: MsiPlan, d: MsiDeps, version: string): Promise<string | null> {
  const file = await Deno.readTextFile(joinPath(p.os, p.install, "VERSION")).then(
    (t) => t.trim(),
    () => "(none)",
  );
  const apps = await appsEntry(d.tools);
  d.log("info", "installed version read back", { file, apps: apps?.version ?? null });
  if (file !== version) return `the program folder's VERSION says ${file}, not ${version}`;
  if (apps?.version !== version) {
    return `"Apps" shows ${apps ? `version ${apps.version}` : "no svc-filing"}, not ${version}`;
  }
  return null;
}

/** The outcome, written to last.json and logged. */
const finish = (
  p: MsiPlan,
  d: MsiDeps,
  outcome: UpdateOutcome["outcome"],
  agentUrl: string | null,
  reason: string | null,
): Promise<UpdateOutcome> => finishUpdate(p, d, outcome, agentUrl, reason);

/** Start the installed agent as `version` and wait for its /health. */
const start = (p: MsiPlan, d: MsiDeps, version: string) =>
  startAndWait(p, d, joinPath(p.os, p.install, MSI_LAUNCHER), version, d.healthTimeoutMs ?? 30_000);

/** Run msiexec with its log in the updates folder. */
function runMsiexec(p: MsiPlan, d: MsiDeps, args: string[], what: string): Promise<number> {
  const log = joinPath(p.os, updatesDir(p.os, p.dataDir), `msiexec-${what}.log`);
  d.log("info", "msiexec", { args, log });
  return msiexec(d.tools, args, log).then((code) => {
    d.log("info", "msiexec ended", { what, code });
    return code;
  });
}

/** Remove the new version and install the previous MSI again. */
async function rollback(p: MsiPlan, d: MsiDeps, reason: string): Promise<UpdateOutcome> {
  d.log("warn", "rolling back", { reason });
  const apps = await appsEntry(d.tools);
  if (apps?.productCode && apps.version !== p.from) {
    await runMsiexec(p, d, ["/x", apps.productCode], `remove-${p.to}`);
  }
  await runMsiexec(p, d, ["/i", p.previousMsi], `${p.from}`);
  const wrong = await installedIs(p, d, p.from);
  if (wrong) {
    return finish(p, d, "failed", null, `${reason}; and the previous version: ${wrong}`);
  }
  if (!p.agent) return finish(p, d, "rolled_back", null, reason);
  const { h } = await start(p, d, p.from);
  return "url" in h
    ? finish(p, d, "rolled_back", h.url, reason)
    : finish(p, d, "failed", null, `${reason}; and the previous version: ${h.reason}`);
}

/** Keep the installed MSI for the next update's way back; drop older ones. */
async function keepMsi(p: MsiPlan, d: MsiDeps): Promise<void> {
  const dir = keptMsiDir(p.os, p.dataDir);
  const keep = keptMsiPath(p.os, p.dataDir, p.to);
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.copyFile(p.msi, keep);
    for await (const e of Deno.readDir(dir)) {
      if (joinPath(p.os, dir, e.name) !== keep) {
        await Deno.remove(joinPath(p.os, dir, e.name)).catch(() => {});
      }
    }
  } catch (e) {
    d.log("warn", "cannot keep the installed MSI", { file: keep, error: text(e) });
  }
}

/**
 * Upgrade through Windows Installer, with rollback.
 * @param p the plan
 * @param d processes, msiexec and reg, clock, log, limits
 * @returns the outcome (also in last.json)
 * @throws never: every failure ends in a rolled_back or failed outcome
 */
export async function runMsiUpgrade(p: MsiPlan, d: MsiDeps): Promise<UpdateOutcome> {
  d.log("info", "msi update", { from: p.from, to: p.to, install: p.install, agent: p.agent });
  for (const pid of p.waitPids) await waitExit(pid, d, d.stopTimeoutMs ?? 30_000);
  if (p.agent && !await stopProcess(p.agent.pid, d, d.stopTimeoutMs ?? 30_000)) {
    return finish(p, d, "rolled_back", null, `the running agent (pid ${p.agent.pid}) did not stop`);
  }
  // svc-filing.exe, which waited for the agent, ends right after it: its file is then free.
  if (p.agent) await d.sleep(1_000);
  try {
    await runMsiexec(p, d, ["/i", p.msi], p.to);
  } catch (e) {
    return rollback(p, d, `msiexec could not run: ${text(e)}`);
  }
  const wrong = await installedIs(p, d, p.to);
  if (wrong) return rollback(p, d, `the installer did not install ${p.to}: ${wrong}`);
  const { started, h } = await start(p, d, p.to);
  if (!("url" in h)) {
    await stopUnanswered(p, d, started); // and the runtime under svc-filing.exe
    return rollback(p, d, h.reason);
  }
  await keepMsi(p, d);
  if (!p.agent) {
    await stopProcess(h.pid, d, d.stopTimeoutMs ?? 30_000);
    return finish(p, d, "updated", null, null);
  }
  return finish(p, d, "updated", h.url, null);
}
