/**
 * What `agent update` does on an install the Windows installer made, before anything changes
 * (docs/install.md § Updates, "Installed with the MSI"): take the update lock, download the MSI
 * the signed manifest names for win-x64 (streamed; its size and SHA-256 checked as a package's
 * are), find the running version's MSI for the way back (the copy an earlier update kept in
 * `<data>/updates/msi/`, else the MSI Windows Installer recorded as the install's source, copied
 * there), copy the running program to `<data>/updates/runner/` (the upgrade runs from there:
 * msiexec replaces the program folder's files), and write the upgrade's plan. Any refusal
 * leaves the install and the running agent as they were.
 * @module
 */
import { z } from "zod";
import { AppError } from "../../contract/mod.ts";
import { joinPath } from "../../defaults.ts";
import { removeLeftovers, updatesDir } from "./disk.ts";
import { downloadPackage } from "./download.ts";
import { copyTree, removeIfPresent } from "./files.ts";
import { launcherName } from "./install.ts";
import { acquireUpdateLock } from "./lock.ts";
import { packageFor } from "./manifest.ts";
import { appsEntry, installSource, type MsiTools } from "./msi.ts";
import { keptMsiPath, type MsiPlan } from "./msi_upgrade.ts";
import {
  PLAN_BASE,
  type PreparedBase,
  type PrepareOptionsBase,
  readPlanFile,
  runningAgent,
  writePlanFile,
} from "./prepare.ts";

/** Options of {@link prepareMsiUpdate}. */
export interface MsiPrepareOptions extends PrepareOptionsBase {
  readonly tools: MsiTools;
}

/** An MSI upgrade ready to run (its launcher: a copy of the running program's `svc-filing.cmd`). */
export type PreparedMsiUpdate = PreparedBase<MsiPlan>;

/** The running version's MSI, kept in the data folder; null when none can be found. */
async function previousMsi(o: MsiPrepareOptions): Promise<string | null> {
  const kept = keptMsiPath(o.os, o.dataDir, o.check.current);
  if (await Deno.stat(kept).then((s) => s.isFile, () => false)) return kept;
  const apps = await appsEntry(o.tools);
  if (apps?.version !== o.check.current || !apps.productCode) return null;
  const source = await installSource(o.tools, apps.productCode);
  if (!source || !await Deno.stat(source).then((s) => s.isFile, () => false)) return null;
  await Deno.mkdir(joinPath(o.os, updatesDir(o.os, o.dataDir), "msi"), { recursive: true });
  await Deno.copyFile(source, kept);
  return kept;
}

/**
 * Download and verify the new MSI, secure the way back, and plan the upgrade.
 * @param o OS, target, data folder, install, the check, tools, side effects
 * @returns the prepared upgrade (the lock is held)
 * @throws AppError UPDATE_MANIFEST_INVALID (no MSI for this system), UPDATE_IN_PROGRESS,
 *   UPDATE_DOWNLOAD_FAILED, UPDATE_SIZE_MISMATCH, UPDATE_HASH_MISMATCH, UPDATE_DISK_FULL,
 *   UPDATE_ROLLBACK_UNAVAILABLE (the running version's MSI cannot be found: no way back) — with
 *   nothing changed
 */
export async function prepareMsiUpdate(o: MsiPrepareOptions): Promise<PreparedMsiUpdate> {
  const { os, check } = o;
  const say = o.progress ?? (() => {});
  const pkg = packageFor(check.manifest, o.triple);
  if (!pkg.msi) {
    throw new AppError(
      "UPDATE_MANIFEST_INVALID",
      `Version ${check.latest} publishes no Windows installer (MSI) for ${pkg.target}; install ` +
        `svc-filing-${check.latest}-win-x64.msi by hand`,
      { target: pkg.target },
    );
  }
  const updates = updatesDir(os, o.dataDir);
  const lock = await acquireUpdateLock(os, updates, o);
  try {
    await removeLeftovers(updates, ["msi"]);
    const back = await previousMsi(o);
    if (!back) {
      throw new AppError(
        "UPDATE_ROLLBACK_UNAVAILABLE",
        `The installer of the running version ${check.current} (svc-filing-${check.current}-win-` +
          `x64.msi) cannot be found, so a failed update could not be undone; install ` +
          `svc-filing-${check.latest}-win-x64.msi by hand`,
        { folder: o.install.root },
      );
    }
    const msi = joinPath(os, updates, `svc-filing-${check.latest}-win-x64.msi`);
    say(`Downloading ${pkg.msi.url} (${(pkg.msi.size / 1048576).toFixed(1)} MB)`);
    await downloadPackage({ ...pkg, ...pkg.msi }, msi, { fetch: o.fetch });
    say(`Verified SHA-256 ${pkg.msi.sha256}`);
    const runner = joinPath(os, updates, "runner");
    await removeIfPresent(runner);
    await copyTree(o.install.root, runner, os);
    const plan: MsiPlan = {
      id: o.newId(),
      os,
      install: o.install.root,
      dataDir: o.dataDir,
      from: check.current,
      to: check.latest,
      msi,
      previousMsi: back,
      agent: await runningAgent(os, o.dataDir, o.fetch),
      waitPids: [o.pid],
    };
    const planPath = await writePlanFile(os, updates, "msi", plan);
    return { plan, planPath, launcher: joinPath(os, runner, launcherName(os)), lock };
  } catch (e) {
    await removeLeftovers(updates, ["msi"]);
    await lock.release();
    throw e;
  }
}

const MsiPlanSchema = z.object({
  ...PLAN_BASE,
  msi: z.string().min(1),
  previousMsi: z.string().min(1),
});

/**
 * Read an MSI upgrade's plan.
 * @param path the file `agent update` wrote
 * @returns the plan
 * @throws UserError naming the file when it is missing or malformed
 */
export function readMsiPlan(path: string): Promise<MsiPlan> {
  return readPlanFile(path, MsiPlanSchema, "update plan");
}
