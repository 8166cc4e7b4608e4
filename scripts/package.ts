/**
 * The portable packages (docs/install.md): for each target of scripts/package/targets.ts an
 * archive `dist/svc-filing-<version>-<target>.(zip|tar.gz)` holding
 *
 * ```
 * svc-filing/
 *   svc-filing | svc-filing.command | svc-filing.cmd   launchers (scripts/package/launchers.ts)
 *   svc-filing.exe                                     Windows: the GUI launcher with the tray
 *                                                      (scripts/package/launcher_exe.ts)
 *   SVC Filing Agent.app/                              macOS: Finder start, svc-agent:// links
 *   runtime/deno[.exe]                                 the official Deno runtime (npm @deno/*)
 *   app/svc-filing.js                                  the app, one bundle (`deno bundle`)
 *   app/assets/swagger-ui-dist/…                       what /docs serves
 *   README.txt, VERSION
 * ```
 *
 * plus, for win-x64, the per-user installer `dist/svc-filing-<version>-win-x64.msi`
 * (scripts/package/msi.ts), `svc-filing.exe` and the MSI signed with Authenticode when
 * SVC_CODESIGN_PFX / SVC_CODESIGN_PASSWORD are set (scripts/package/codesign.ts), and
 * `dist/manifest.json` (version, and per target: file, size in bytes, sha256, the runtime's
 * npm package and integrity; the MSI's file, size and sha256) and `dist/SHA256SUMS`. Where
 * mingw-w64 (`svc-filing.exe`) or wixl/msibuild (the MSI) is missing, that step is skipped with
 * a `SKIP` line naming the tool (the zip is built without it). Archives are reproducible and each must stay
 * under 60 MB. Usage: `deno run -A scripts/package.ts [--out-dir DIR] [--target NAME]…
 * [--bundle FILE]` (`deno task build` runs it after the bundle and the `deno compile` probe).
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { appExecutable, appInfoPlist } from "../src/agent/host/mod.ts";
import { VERSION } from "../src/version.ts";
import { type ArchiveEntry, fixedTime, tarGzArchive, zipArchive } from "./package/archive.ts";
import { cmdLauncher, commandLauncher, packageReadme, shLauncher } from "./package/launchers.ts";
import { fetchRuntime, runCommand, type Runner } from "./package/runtime.ts";
import { type WindowsExtras, windowsExtras } from "./package/windows.ts";
import {
  archiveName,
  MAX_ARCHIVE_BYTES,
  PACKAGE_TARGETS,
  type PackageTarget,
} from "./package/targets.ts";

export { PACKAGE_TARGETS };

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Swagger UI files /docs serves (src/agent/http/docs_page.ts) and the package's licence. */
const SWAGGER_FILES = [
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "favicon-32x32.png",
  "favicon-16x16.png",
  "package.json",
  "LICENSE",
  "swagger-ui-bundle.js.LICENSE.txt",
];

/** One built archive, as listed in manifest.json. */
export interface PackageInfo {
  readonly target: string;
  readonly triple: string;
  readonly file: string;
  /** Bytes. */
  readonly size: number;
  readonly sha256: string;
  readonly runtime: { readonly npm: string; readonly version: string; readonly integrity: string };
  /** win-x64: the MSI built beside the zip (absent where wixl is missing). */
  readonly msi?: { readonly file: string; readonly size: number; readonly sha256: string };
}

/** Options of {@link buildPackages}. */
export interface PackageOptions {
  /** The app bundle (from `deno bundle`). */
  readonly bundle: string;
  readonly outDir: string;
  readonly targets?: readonly PackageTarget[] | undefined;
  /** Deno version of the runtime (default: the one running). */
  readonly denoVersion?: string;
  /** Where runtime tarballs are cached (default `.deno/runtimes`). */
  readonly cacheDir?: string;
  readonly sourceDateEpoch?: string | undefined;
  readonly run?: Runner;
  readonly log?: (line: string) => void;
  /** The version the bundle says (default src/version.ts): names, the MSI's version. */
  readonly version?: string;
  /** Build the MSI for win-x64 (default true; it still needs wixl and svc-filing.exe). */
  readonly msi?: boolean;
  /** The environment the signing settings come from (default Deno.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/**
 * The files of one target's package.
 * @param t the target
 * @param app the bundle's bytes
 * @param runtime the runtime binary
 * @param assets Swagger UI's files by name
 * @param launcherExe Windows: `svc-filing.exe` (absent where mingw-w64 is missing)
 * @param version the version the bundle says (README.txt, VERSION)
 * @returns the entries under `svc-filing/`
 */
export function packageEntries(
  t: PackageTarget,
  app: Uint8Array,
  runtime: Uint8Array,
  assets: ReadonlyMap<string, Uint8Array>,
  launcherExe?: Uint8Array,
  version: string = VERSION,
): ArchiveEntry[] {
  const enc = (s: string) => new TextEncoder().encode(s);
  const root = "svc-filing";
  const entries: ArchiveEntry[] = [
    { path: `${root}/runtime/${t.binary}`, bytes: runtime, executable: true },
    { path: `${root}/app/svc-filing.js`, bytes: app },
    { path: `${root}/README.txt`, bytes: enc(packageReadme(version, t.name)) },
    { path: `${root}/VERSION`, bytes: enc(`${version}\n`) },
    ...[...assets].map(([name, bytes]) => ({
      path: `${root}/app/assets/swagger-ui-dist/${name}`,
      bytes,
    })),
  ];
  const os = t.name.startsWith("macos") ? "darwin" : "linux";
  for (const l of t.launchers) {
    if (l === "sh") {
      entries.push({ path: `${root}/svc-filing`, bytes: enc(shLauncher(os)), executable: true });
    }
    if (l === "command") {
      entries.push({
        path: `${root}/svc-filing.command`,
        bytes: enc(commandLauncher()),
        executable: true,
      });
    }
    if (l === "cmd") entries.push({ path: `${root}/svc-filing.cmd`, bytes: enc(cmdLauncher()) });
  }
  if (launcherExe && t.launchers.includes("cmd")) {
    entries.push({ path: `${root}/svc-filing.exe`, bytes: launcherExe, executable: true });
  }
  if (os === "darwin") {
    // The .app wrapper: Finder start and the svc-agent:// link (src/agent/host/url_scheme.ts).
    const app = `${root}/SVC Filing Agent.app/Contents`;
    entries.push(
      { path: `${app}/Info.plist`, bytes: enc(appInfoPlist(version)) },
      { path: `${app}/MacOS/svc-filing-agent`, bytes: enc(appExecutable()), executable: true },
    );
  }
  return entries;
}

/**
 * Build the archives, manifest.json and SHA256SUMS.
 * @param o bundle, output folder, targets, runtime version and cache, log
 * @returns one record per archive
 * @throws Error when a runtime cannot be fetched or verified, or an archive exceeds 60 MB
 */
export async function buildPackages(o: PackageOptions): Promise<PackageInfo[]> {
  const log = o.log ?? console.log;
  const version = o.denoVersion ?? Deno.version.deno;
  const cacheDir = o.cacheDir ?? join(ROOT, ".deno", "runtimes");
  const mtime = fixedTime(o.sourceDateEpoch);
  const appVersion = o.version ?? VERSION;
  const app = await Deno.readFile(o.bundle);
  const swagger = join(ROOT, "node_modules", "swagger-ui-dist");
  const assets = new Map<string, Uint8Array>();
  for (const f of SWAGGER_FILES) assets.set(f, await Deno.readFile(join(swagger, f)));
  await Deno.mkdir(o.outDir, { recursive: true });
  const infos: PackageInfo[] = [];
  for (const t of o.targets ?? PACKAGE_TARGETS) {
    const rt = await fetchRuntime(t, version, cacheDir, o.run ?? runCommand);
    const win: WindowsExtras | null = t.launchers.includes("cmd")
      ? await windowsExtras({
        outDir: o.outDir,
        env: o.env ?? Deno.env.toObject(),
        log,
        version: appVersion,
      })
      : null;
    const entries = packageEntries(t, app, rt.binary, assets, win?.launcherExe, appVersion);
    const file = archiveName(appVersion, t);
    const out = join(o.outDir, file);
    if (t.archive === "zip") await Deno.writeFile(out, zipArchive(entries, mtime));
    else await tarGzArchive(entries, mtime, out);
    const bytes = await Deno.readFile(out);
    if (bytes.length > MAX_ARCHIVE_BYTES) {
      throw new Error(`${file} is ${bytes.length} bytes, over the 60 MB limit`);
    }
    const msi = win && (o.msi ?? true) ? await win.msi(appVersion, entries) : null;
    const info: PackageInfo = {
      target: t.name,
      triple: t.triple,
      file,
      size: bytes.length,
      sha256: sha256(bytes),
      runtime: { npm: t.npm, version, integrity: rt.integrity },
      ...(msi ? { msi } : {}),
    };
    infos.push(info);
    log(`ok   ${file} (${(info.size / 1048576).toFixed(1)} MB, runtime ${t.npm}@${version})`);
  }
  const manifest = { name: "svc-filing", version: appVersion, packages: infos };
  await Deno.writeTextFile(
    join(o.outDir, "manifest.json"),
    JSON.stringify(manifest, null, 2) + "\n",
  );
  return infos;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "out-dir": { type: "string" },
      target: { type: "string", multiple: true },
      bundle: { type: "string" },
    },
  });
  const outDir = values["out-dir"] ?? join(ROOT, "dist");
  const names = values.target ?? [];
  const bad = names.filter((n) => !PACKAGE_TARGETS.some((t) => t.name === n));
  if (bad.length) {
    console.error(
      `Unknown --target ${bad.join(", ")}; one of ${PACKAGE_TARGETS.map((t) => t.name)}`,
    );
    Deno.exit(2);
  }
  try {
    await buildPackages({
      bundle: values.bundle ?? join(outDir, "svc-filing.bundle.js"),
      outDir,
      targets: names.length ? PACKAGE_TARGETS.filter((t) => names.includes(t.name)) : undefined,
      sourceDateEpoch: Deno.env.get("SOURCE_DATE_EPOCH"),
    });
  } catch (e) {
    console.error(`FAIL ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(1);
  }
}
