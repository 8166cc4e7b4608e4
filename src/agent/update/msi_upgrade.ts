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
import { errorMessage } from "../../error_message.ts";
import { updatesDir } from "./disk.ts";
import { appsEntry, msiexec, type MsiTools } from "./msi.ts";
import type { UpdateOutcome } from "./outcome.ts";
import { runUpdate, type UpdatePlanBase, type UpdateRunDeps, type UpdateWay } from "./plan.ts";

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

/** Side effects and limits of {@link runMsiUpgrade} (health and stop limits in ms, 30 000 each). */
export interface MsiDeps extends UpdateRunDeps {
  readonly tools: MsiTools;
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

/** Run msiexec with its log in the updates folder. */
function runMsiexec(p: MsiPlan, d: MsiDeps, args: string[], what: string): Promise<number> {
  const log = joinPath(p.os, updatesDir(p.os, p.dataDir), `msiexec-${what}.log`);
  d.log("info", "msiexec", { args, log });
  return msiexec(d.tools, args, log).then((code) => {
    d.log("info", "msiexec ended", { what, code });
    return code;
  });
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
    d.log("warn", "cannot keep the installed MSI", { file: keep, error: errorMessage(e) });
  }
}

/** The MSI's way: msiexec installs the new MSI over the old one (its MajorUpgrade), and removes
 * it again and reinstalls the previous version's MSI to go back. */
function msiWay(p: MsiPlan, d: MsiDeps): UpdateWay {
  return {
    launcher: joinPath(p.os, p.install, MSI_LAUNCHER),
    async putInPlace() {
      // svc-filing.exe, which waited for the agent, ends right after it: its file is then free.
      if (p.agent) await d.sleep(1_000);
      try {
        await runMsiexec(p, d, ["/i", p.msi], p.to);
      } catch (e) {
        return { reason: `msiexec could not run: ${errorMessage(e)}`, changed: true };
      }
      const wrong = await installedIs(p, d, p.to);
      return wrong
        ? { reason: `the installer did not install ${p.to}: ${wrong}`, changed: true }
        : null;
    },
    async takeBack() {
      // An uninstall then an install: the older MSI's MajorUpgrade refuses to downgrade.
      try {
        const apps = await appsEntry(d.tools);
        if (apps?.productCode && apps.version !== p.from) {
          await runMsiexec(p, d, ["/x", apps.productCode], `remove-${p.to}`);
        }
        await runMsiexec(p, d, ["/i", p.previousMsi], `${p.from}`);
      } catch (e) {
        return `msiexec could not run: ${errorMessage(e)}`;
      }
      const wrong = await installedIs(p, d, p.from);
      return wrong ? `the previous version: ${wrong}` : null;
    },
    keep: () => keepMsi(p, d),
  };
}

/**
 * Upgrade through Windows Installer, with rollback.
 * @param p the plan
 * @param d processes, msiexec and reg, clock, log, limits
 * @returns the outcome (also in last.json)
 * @throws never: every failure ends in a rolled_back or failed outcome
 */
export function runMsiUpgrade(p: MsiPlan, d: MsiDeps): Promise<UpdateOutcome> {
  d.log("info", "msi update", { from: p.from, to: p.to, install: p.install, agent: p.agent });
  return runUpdate(p, d, msiWay(p, d));
}
