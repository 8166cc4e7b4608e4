/**
 * The installed portable package (docs/install.md): `<root>/app/svc-filing.js` (the running
 * program, `Deno.mainModule`) beside `<root>/svc-filing` (`svc-filing.cmd` on Windows). Only such
 * an install is swapped by an update; an agent run from source only checks.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import { type CommandRunner, denoCommandRunner } from "../../command_runner.ts";
import { joinPath } from "../../defaults.ts";

/** An installed package. */
export interface PackagedInstall {
  /** The package's folder (what an update swaps). */
  readonly root: string;
  /** Its launcher. */
  readonly launcher: string;
}

/**
 * The launcher's file name.
 * @param os Deno.build.os
 * @returns `svc-filing.cmd` on Windows, else `svc-filing`
 */
export function launcherName(os: string): string {
  return os === "windows" ? "svc-filing.cmd" : "svc-filing";
}

/**
 * A file: URL as a path of `os`.
 * @param url the URL
 * @param os Deno.build.os
 * @returns the path (`C:\…` on Windows)
 */
export function fileUrlPath(url: URL, os: string): string {
  const p = decodeURIComponent(url.pathname);
  return os === "windows" ? p.replace(/^\/([A-Za-z]:)/, "$1").replaceAll("/", "\\") : p;
}

/**
 * The package this program runs from, or null (run from source, or the launcher is missing).
 * @param mainModule Deno.mainModule (a file: URL)
 * @param os Deno.build.os
 * @returns the install
 */
export async function packagedInstall(
  mainModule: string,
  os: string,
): Promise<PackagedInstall | null> {
  if (!mainModule.startsWith("file:") || !mainModule.endsWith("/app/svc-filing.js")) return null;
  const root = fileUrlPath(new URL("..", mainModule), os).replace(/[\\/]$/, "");
  const launcher = joinPath(os, root, launcherName(os));
  const st = await Deno.stat(launcher).catch(() => null);
  return st?.isFile ? { root, launcher } : null;
}

/** The file only the Windows installer (the MSI) puts in the install folder. */
export const MSI_MARKER = "INSTALLED-BY-MSI.txt";

/**
 * Whether the install was made by the Windows installer: Windows Installer owns its files and
 * "Apps" its version, so a folder swap would leave both wrong (docs/install.md § Updates).
 * @param install the install
 * @param os Deno.build.os
 * @returns true when the MSI's marker file is there
 */
export async function installedByMsi(install: PackagedInstall, os: string): Promise<boolean> {
  return await Deno.stat(joinPath(os, install.root, MSI_MARKER)).then((s) => s.isFile, () => false);
}

/**
 * The folder an install is moved to while the new version starts (and back on a rollback).
 * @param root the install's folder
 * @returns `<root>.previous`
 */
export function asideOf(root: string): string {
  return `${root}.previous`;
}

/**
 * Check that the install can be swapped: its parent folder takes a new entry (the rename of the
 * install aside and of the new one in).
 * @param root the install's folder
 * @returns when it can
 * @throws AppError UPDATE_INSTALL_NOT_WRITABLE
 */
export async function requireSwappable(root: string): Promise<void> {
  const probe = `${root}.update-probe-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.mkdir(probe);
    await Deno.remove(probe);
  } catch (e) {
    throw new AppError(
      "UPDATE_INSTALL_NOT_WRITABLE",
      `Cannot update ${root}: its folder cannot be changed (${
        e instanceof Error ? e.message : e
      }); unpack the new version by hand or move the package to a folder of your own`,
      { folder: root },
      e,
    );
  }
}

/**
 * Run a package's launcher with `--version` and check what it prints: the runtime runs on this
 * machine and the app is the version the manifest promised.
 * @param launcher the new package's launcher
 * @param version the version expected
 * @param run injected command runner
 * @returns when it printed `version`
 * @throws AppError UPDATE_PACKAGE_INVALID otherwise
 */
export async function requireVersion(
  launcher: string,
  version: string,
  run: CommandRunner = denoCommandRunner,
): Promise<void> {
  const r = await run({ cmd: launcher, args: ["--version"] }).catch((e: Error) => ({
    code: -1,
    stdout: "",
    stderr: e.message,
  }));
  const said = r.stdout.trim();
  if (r.code !== 0 || said !== version) {
    throw new AppError(
      "UPDATE_PACKAGE_INVALID",
      `The downloaded package does not run as version ${version}: ${
        r.code === 0 ? `it says "${said}"` : `exit ${r.code}: ${r.stderr.trim().split("\n")[0]}`
      }`,
      { expected: version },
    );
  }
}
