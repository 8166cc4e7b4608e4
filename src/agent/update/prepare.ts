/**
 * Everything an update does before it touches the install (docs/install.md § Updates), run by
 * `agent update` while the agent keeps running: take the update lock, check that the install can
 * be swapped, download the package for this system into `<data>/updates/` (size and SHA-256 of
 * the signed manifest), unpack it, run it once with `--version`, and write the swap's plan. Any
 * refusal leaves the install and the running agent as they were and removes what was
 * downloaded.
 * @module
 */
import { z } from "zod";
import type { CommandRunner } from "../../command_runner.ts";
import { joinPath } from "../../defaults.ts";
import type { UpdateCheck } from "./check.ts";
import { removeLeftovers, updatesDir } from "./disk.ts";
import { downloadPackage } from "./download.ts";
import { extractPackage } from "./extract.ts";
import { launcherName, type PackagedInstall, requireSwappable, requireVersion } from "./install.ts";
import { acquireUpdateLock, type UpdateLock } from "./lock.ts";
import { archiveKind, packageFor } from "./manifest.ts";
import { probeHealth, readAgentLock } from "./processes.ts";
import type { SwapPlan } from "./swap.ts";
import { UserError } from "../../user_error.ts";
import { writePrivateFile } from "../../private_files.ts";

/** What preparing an update needs, a package swap ({@link prepareUpdate}) or an MSI upgrade. */
export interface PrepareOptionsBase {
  /** Deno.build.os. */
  readonly os: string;
  /** Deno.build.target (which package of the manifest). */
  readonly triple: string;
  readonly dataDir: string;
  readonly install: PackagedInstall;
  /** A check whose relation is "newer". */
  readonly check: UpdateCheck;
  readonly pid: number;
  readonly fetch?: typeof fetch;
  readonly isAlive: (pid: number) => Promise<boolean>;
  readonly now: () => number;
  readonly newId: () => string;
  /** Progress lines for the person running the command. */
  readonly progress?: (line: string) => void;
}

/** Options of {@link prepareUpdate}. */
export interface PrepareOptions extends PrepareOptionsBase {
  readonly run?: CommandRunner;
  /** The tar program (Windows: %SystemRoot%\System32\tar.exe). */
  readonly tar?: string;
}

/** An update ready to run: its plan written, the program that runs it, the update lock. */
export interface PreparedBase<Plan> {
  readonly plan: Plan;
  /** Where the plan is written (`agent update-swap --plan`). */
  readonly planPath: string;
  /** The launcher that runs the plan (the new package's; for an MSI, a copy of the running
   * one's). */
  readonly launcher: string;
  /** Held by this process; hand it over to the step that runs the plan. */
  readonly lock: UpdateLock;
}

/** An update ready to swap. */
export type PreparedUpdate = PreparedBase<SwapPlan>;

/**
 * The agent that runs with this data folder (its lock, confirmed by `/health`), or null.
 * @param os Deno.build.os
 * @param dataDir the data folder
 * @param fetchFn injected fetch
 * @returns its pid and port
 */
export async function runningAgent(
  os: string,
  dataDir: string,
  fetchFn: typeof fetch = fetch,
): Promise<{ pid: number; port: number } | null> {
  const lock = await readAgentLock(os, dataDir);
  if (!lock || lock.port <= 0) return null;
  return await probeHealth(lock.port, fetchFn) ? { pid: lock.pid, port: lock.port } : null;
}

/**
 * Download, verify and unpack the update, and plan its swap.
 * @param o OS, target, data folder, install, the check, side effects
 * @returns the prepared update (the lock is held)
 * @throws AppError UPDATE_MANIFEST_INVALID, UPDATE_INSTALL_NOT_WRITABLE, UPDATE_IN_PROGRESS,
 *   UPDATE_DOWNLOAD_FAILED, UPDATE_SIZE_MISMATCH, UPDATE_HASH_MISMATCH, UPDATE_DISK_FULL,
 *   UPDATE_PACKAGE_INVALID — with nothing left behind
 */
export async function prepareUpdate(o: PrepareOptions): Promise<PreparedUpdate> {
  const { os, check } = o;
  const say = o.progress ?? (() => {});
  const pkg = packageFor(check.manifest, o.triple);
  await requireSwappable(o.install.root);
  const updates = updatesDir(os, o.dataDir);
  const lock = await acquireUpdateLock(os, updates, o);
  try {
    await removeLeftovers(updates);
    const archive = joinPath(
      os,
      updates,
      `svc-filing-${check.latest}-${pkg.target.replace(/[^A-Za-z0-9_-]/g, "_")}.${
        archiveKind(pkg.url)
      }`,
    );
    say(`Downloading ${pkg.url} (${(pkg.size / 1048576).toFixed(1)} MB)`);
    await downloadPackage(pkg, archive, { fetch: o.fetch });
    say(`Verified SHA-256 ${pkg.sha256}`);
    const staged = await extractPackage(
      archive,
      joinPath(os, updates, `${check.latest}.unpacking`),
      {
        os,
        run: o.run,
        tar: o.tar,
      },
    );
    await Deno.remove(archive).catch(() => {});
    const launcher = joinPath(os, staged, launcherName(os));
    await requireVersion(launcher, check.latest, o.run);
    const plan: SwapPlan = {
      id: o.newId(),
      os,
      install: o.install.root,
      staged,
      dataDir: o.dataDir,
      from: check.current,
      to: check.latest,
      agent: await runningAgent(os, o.dataDir, o.fetch),
      // Windows cannot rename a folder whose program runs: the swap waits for this process.
      waitPids: os === "windows" ? [o.pid] : [],
    };
    const planPath = await writePlanFile(os, updates, "swap", plan);
    return { plan, planPath, launcher, lock };
  } catch (e) {
    await removeLeftovers(updates);
    await lock.release();
    throw e;
  }
}

/** The fields every update plan has (the swap's and the MSI upgrade's). */
export const PLAN_BASE = {
  id: z.string().min(1),
  os: z.string().min(1),
  install: z.string().min(1),
  dataDir: z.string().min(1),
  from: z.string().min(1),
  to: z.string().min(1),
  agent: z.object({ pid: z.number().int().positive(), port: z.number().int().positive() })
    .nullable(),
  waitPids: z.array(z.number().int().positive()),
};

const SwapPlanSchema = z.object({ ...PLAN_BASE, staged: z.string().min(1) });

/**
 * Write an update's plan for its detached step: `<updates>/<kind>-<id>.json`, owner-only and
 * whole (`writePrivateFile`: the step never reads half a plan).
 * @param os Deno.build.os
 * @param updates the updates folder
 * @param kind `swap` or `msi`
 * @param plan the plan
 * @returns the plan's path
 * @throws Error (Deno.errors.*) when the folder is not writable
 */
export async function writePlanFile(
  os: string,
  updates: string,
  kind: "swap" | "msi",
  plan: { readonly id: string },
): Promise<string> {
  const path = joinPath(os, updates, `${kind}-${plan.id}.json`);
  await writePrivateFile(path, JSON.stringify(plan, null, 2) + "\n");
  return path;
}

/**
 * Read an update plan that `agent update` wrote (JSON, checked against its schema).
 * @param path the plan's file
 * @param schema the plan's zod schema
 * @param what the plan's name in a message ("swap plan", "update plan")
 * @returns the plan
 * @throws UserError naming the file when it is missing or malformed
 */
export async function readPlanFile<T>(
  path: string,
  schema: z.ZodType<T>,
  what: string,
): Promise<T> {
  let json: unknown;
  try {
    json = JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    throw new UserError(`Cannot read the ${what} ${path}: ${e instanceof Error ? e.message : e}`);
  }
  const r = schema.safeParse(json);
  if (!r.success) throw new UserError(`The ${what} ${path} is malformed`);
  return r.data;
}

/**
 * Read a swap's plan.
 * @param path the file `agent update` wrote
 * @returns the plan
 * @throws UserError naming the file when it is missing or malformed
 */
export function readSwapPlan(path: string): Promise<SwapPlan> {
  return readPlanFile(path, SwapPlanSchema, "swap plan");
}
