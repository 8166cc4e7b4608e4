/**
 * Unpacking a verified package into `<data>/updates/<version>.unpacking/` and checking that it
 * is one: a single `svc-filing/` folder with the launcher, the runtime and the app. A `.tar.gz`
 * is unpacked by the system's `tar` (GNU tar on Linux refuses `..` and absolute names; the
 * archive's bytes are already verified against the signed manifest); a `.zip` by fflate, with
 * names checked and the executables (launchers, the runtime, the macOS app's program) made
 * executable — a zip's modes are not read back.
 * @module
 */
import { unzipSync } from "fflate";
import { type CommandRunner, denoCommandRunner } from "../../command_runner.ts";
import { AppError } from "../../contract/mod.ts";
import { joinPath } from "../../defaults.ts";
import { diskFullError, isDiskFull } from "./disk.ts";
import { launcherName } from "./install.ts";

/** Options of {@link extractPackage}. */
export interface ExtractOptions {
  /** Deno.build.os (the launcher's name, path separators). */
  readonly os: string;
  readonly run?: CommandRunner | undefined;
  /** The tar program (default "tar"; Windows: %SystemRoot%\System32\tar.exe). */
  readonly tar?: string | undefined;
}

/** Files of a package made executable after a zip is unpacked (paths under `svc-filing/`). */
const EXECUTABLE =
  /^(svc-filing|svc-filing\.command|runtime\/deno|[^/]+\.app\/Contents\/MacOS\/[^/]+)$/;

/**
 * Unpack an archive and check its layout.
 * @param archive the verified `.tar.gz` or `.zip`
 * @param into an empty or missing folder (created)
 * @param o OS, command runner, tar program
 * @returns the package's root (`<into>/svc-filing`)
 * @throws AppError UPDATE_DISK_FULL, UPDATE_PACKAGE_INVALID (does not unpack; not one
 *   `svc-filing/` folder with launcher, runtime and app)
 */
export async function extractPackage(
  archive: string,
  into: string,
  o: ExtractOptions,
): Promise<string> {
  await Deno.mkdir(into, { recursive: true }).catch((e) => {
    throw isDiskFull(e) ? diskFullError(into, "unpacking", e) : e;
  });
  if (archive.toLowerCase().endsWith(".zip")) await unzipInto(archive, into, o.os);
  else {
    const r = await (o.run ?? denoCommandRunner)({
      cmd: o.tar ?? "tar",
      args: ["-xzf", archive, "-C", into],
    });
    if (r.code !== 0) {
      if (isDiskFull(r.stderr)) throw diskFullError(into, "unpacking", new Error(r.stderr));
      throw invalid(`tar could not unpack it: ${r.stderr.trim().split("\n")[0] ?? r.code}`);
    }
  }
  return await checkLayout(into, o.os);
}

/** The root of an unpacked package, checked. */
async function checkLayout(into: string, os: string): Promise<string> {
  const top: string[] = [];
  for await (const e of Deno.readDir(into)) top.push(e.name);
  if (top.length !== 1 || top[0] !== "svc-filing") {
    throw invalid(`it holds ${top.join(", ") || "nothing"} instead of one svc-filing folder`);
  }
  const root = joinPath(os, into, "svc-filing");
  const runtime = os === "windows" ? "deno.exe" : "deno";
  for (
    const f of [
      launcherName(os),
      joinPath(os, "runtime", runtime),
      joinPath(os, "app", "svc-filing.js"),
    ]
  ) {
    const st = await Deno.stat(joinPath(os, root, f)).catch(() => null);
    if (!st?.isFile) throw invalid(`it has no ${f}`);
  }
  return root;
}

async function unzipInto(archive: string, into: string, os: string): Promise<void> {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(await Deno.readFile(archive));
  } catch (e) {
    throw invalid(`it is not a readable zip (${e instanceof Error ? e.message : e})`);
  }
  for (const [name, bytes] of Object.entries(files)) {
    const parts = name.split("/");
    if (
      name.startsWith("/") || name.includes("\\") || name.includes(":") ||
      parts.some((p) => p === ".." || p === ".")
    ) throw invalid(`it holds an unsafe name: ${name}`);
    if (name.endsWith("/")) continue; // a folder entry
    const path = joinPath(os, into, ...parts);
    try {
      await Deno.mkdir(joinPath(os, into, ...parts.slice(0, -1)), { recursive: true });
      const inner = parts.slice(1).join("/");
      await Deno.writeFile(path, bytes, { mode: EXECUTABLE.test(inner) ? 0o755 : 0o644 });
    } catch (e) {
      throw isDiskFull(e) ? diskFullError(into, "unpacking", e) : e;
    }
  }
}

const invalid = (why: string) =>
  new AppError("UPDATE_PACKAGE_INVALID", `The downloaded package is not usable: ${why}`);
