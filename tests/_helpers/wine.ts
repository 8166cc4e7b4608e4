/**
 * The win-x64 package under Wine (docs/install.md, "Windows under Wine"): Debian's Wine 8
 * (`wine64`) runs Deno's Windows runtime with a test-only shim DLL (tests/windows/wine_shim.c,
 * built here with mingw-w64 as `bcryptprimitives.dll` and copied next to `deno.exe` in the test's
 * copy only, never into a package).
 *
 * One build per source state is shared by every test file (a cache folder under the temporary
 * folder, keyed by a hash of the sources, built under a file lock): the bundle, the win-x64
 * package unpacked, the shim, and a booted Wine prefix. Each test file gets its own
 * {@link WineMachine}: a hard-linked copy of that prefix with its own copies of the registry files
 * (Wine writes those in place), the package at `C:\svc-filing` with the shim beside its
 * deno.exe (and in the prefix's system32, where a package unpacked by an update finds it), and
 * one persistent wineserver for the file's tests.
 *
 * Tests skip with a message where `wine64` or `x86_64-w64-mingw32-gcc` is missing, and fail
 * instead when `CI=true` (CI installs both through scripts/ci_packages.sh).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runBuild } from "../../scripts/build.ts";
import { buildPackages } from "../../scripts/package.ts";
import { PACKAGE_TARGETS } from "../../scripts/package/targets.ts";
import { removeServerDir } from "./wine_util.ts";

export { waitFor } from "./wine_util.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const SHIM_SOURCE = join(ROOT, "tests", "windows", "wine_shim.c");
const MINGW = "x86_64-w64-mingw32-gcc";

function fileExists(p: string): boolean {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}

function onPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").concat(["/usr/lib/wine"])) {
    if (dir && fileExists(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** The Wine loader (`wine64`; Debian keeps it in /usr/lib/wine), or null. */
export const WINE = onPath("wine64") ?? onPath("wine");
/** The wineserver of that Wine, or null. */
export const WINESERVER = onPath("wineserver");

/**
 * Why Wine tests cannot run here, or null when they can.
 * @returns a sentence naming what is missing
 */
export function wineMissing(): string | null {
  if (Deno.build.os !== "linux" || Deno.build.arch !== "x86_64") return "not Linux x86_64";
  const missing = [
    WINE ? null : "wine64",
    WINESERVER ? null : "wineserver",
    onPath(MINGW) ? null : MINGW,
    onPath("unzip") ? null : "unzip",
  ].filter((m) => m !== null);
  return missing.length ? `missing ${missing.join(", ")}` : null;
}

/**
 * `ignore` for Deno.test: true (with a printed reason) where Wine cannot run, outside CI; under
 * `CI=true` false, and {@link wineMachine} then fails with the reason.
 * @param what the tests' name, for the message
 * @returns whether to skip
 */
export function skipWithoutWine(what: string): boolean {
  const why = wineMissing();
  if (!why) return false;
  if (Deno.env.get("CI") === "true") return false;
  console.error(
    `SKIP ${what}: ${why} (install with: bash scripts/ci_packages.sh; Debian wine64, ` +
      "gcc-mingw-w64-x86-64 and unzip)",
  );
  return true;
}

async function run(
  cmd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  const o = await new Deno.Command(cmd, {
    args,
    ...(env ? { env } : {}),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

async function mustRun(cmd: string, args: string[], env?: Record<string, string>) {
  const r = await run(cmd, args, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.code}): ${r.err}`);
  return r;
}

/**
 * Compiles the test-only PKCS#12 import helper (tests/windows/import_pfx.c: `PFXImportCertStore`
 * into the prefix's `CurrentUser\\My`) with mingw.
 * @param outDir where `import_pfx.exe` is written (a folder the Wine prefix can reach)
 * @returns the executable's path on this machine
 * @throws Error when mingw fails
 */
export async function compileImportPfx(outDir: string): Promise<string> {
  const exe = join(outDir, "import_pfx.exe");
  const source = join(ROOT, "tests", "windows", "import_pfx.c");
  await mustRun(MINGW, ["-municode", "-O2", "-s", "-o", exe, source, "-lcrypt32"]);
  return exe;
}

async function sourceKey(): Promise<string> {
  const h = createHash("sha256");
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      else if (e.isFile) files.push(p);
    }
  };
  await walk(join(ROOT, "src"));
  await walk(join(ROOT, "scripts", "package"));
  files.push(
    ...["main.ts", "deno.json", "deno.lock", "scripts/package.ts", "scripts/build.ts"]
      .map((f) => join(ROOT, f)),
    SHIM_SOURCE,
  );
  files.sort();
  for (const f of files) h.update(f).update(await Deno.readFile(f));
  return h.digest("hex").slice(0, 16);
}

/** The environment every Wine process of the tests gets (nothing else of the caller's). */
export function wineBaseEnv(prefix: string): Record<string, string> {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/root",
    USER: Deno.env.get("USER") ?? "root",
    WINEPREFIX: prefix,
    WINEDEBUG: "-all",
    // No Mono / Gecko installers at boot; no window.
    WINEDLLOVERRIDES: "mscoree,mshtml=",
    LANG: "C.UTF-8",
    // The tests' own calls come from Linux processes, which Windows' TCP table cannot name: the
    // one-user check is off here and on in tests/windows/peer_user_test.ts.
    SVC_PEER_CHECK: "off",
  };
}

/** The shared build: the package with the shim, and a booted prefix. */
interface WineBuild {
  /** The unpacked package (`svc-filing/`), the shim beside deno.exe. */
  readonly pkg: string;
  /** The booted template prefix. */
  readonly prefix: string;
  /** The win-x64 archive. */
  readonly zip: string;
  /** The bundle it was built from. */
  readonly bundle: string;
  /** The shim DLL (tests/windows/wine_shim.c), built with mingw-w64. */
  readonly shim: string;
}

let building: Promise<WineBuild> | null = null;

/** Written when the template prefix is booted; another value (an older layout) boots it again. */
const PREFIX_MARK = "booted; registry copied per machine";

/**
 * The shared build (see the module doc); built once per source state.
 * @returns its paths
 * @throws Error when Wine is missing or a step fails
 */
export function wineBuild(): Promise<WineBuild> {
  building ??= buildOnce();
  return building;
}

async function buildOnce(): Promise<WineBuild> {
  const why = wineMissing();
  if (why) throw new Error(`Wine tests cannot run: ${why}`);
  const cache = join(Deno.env.get("TMPDIR") ?? "/tmp", "svc-wine-cache");
  await Deno.mkdir(cache, { recursive: true });
  const key = await sourceKey();
  const dir = join(cache, key);
  const lock = await Deno.open(join(cache, "lock"), { create: true, write: true });
  await lock.lock(true);
  try {
    const result: WineBuild = {
      pkg: join(dir, "svc-filing"),
      prefix: join(cache, "prefix"),
      zip: join(dir, "win-x64.zip"),
      bundle: join(dir, "svc-filing.bundle.js"),
      shim: join(dir, "bcryptprimitives.dll"),
    };
    const mark = await Deno.readTextFile(join(cache, "prefix.done")).catch(() => "");
    if (mark !== PREFIX_MARK) {
      await Deno.remove(result.prefix, { recursive: true }).catch(() => {});
      await mustRun(WINE!, ["wineboot", "-i"], wineBaseEnv(result.prefix));
      await mustRun(WINESERVER!, ["-w"], wineBaseEnv(result.prefix));
      await removeServerDir(result.prefix);
      await Deno.writeTextFile(join(cache, "prefix.done"), PREFIX_MARK);
    }
    if (fileExists(join(dir, "done"))) return result;
    // Only the newest build is kept.
    for await (const e of Deno.readDir(cache)) {
      if (e.isDirectory && /^[0-9a-f]{16}$/.test(e.name)) {
        await Deno.remove(join(cache, e.name), { recursive: true });
      }
    }
    await Deno.mkdir(dir, { recursive: true });
    const build = await runBuild({ outDir: dir, bundleOnly: true, log: () => {} });
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.failed.join("; ")}`);
    const [info] = await buildPackages({
      bundle: build.bundle,
      outDir: dir,
      targets: PACKAGE_TARGETS.filter((t) => t.name === "win-x64"),
      log: () => {},
      // The MSI is built by the installer's test (tests/windows/installer_test.ts) itself.
      msi: false,
    });
    await Deno.rename(join(dir, info!.file), result.zip);
    await mustRun("unzip", ["-q", result.zip, "-d", dir]);
    await mustRun(MINGW, [
      "-O2",
      "-s",
      "-shared",
      "-o",
      join(dir, "bcryptprimitives.dll"),
      SHIM_SOURCE,
      "-ladvapi32",
    ]);
    await Deno.writeTextFile(join(dir, "done"), new Date().toISOString());
    return result;
  } finally {
    await lock.unlock();
    lock.close();
  }
}

/** What a finished Windows program left. */
export interface WineResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started Windows program: stdin piped; its output so far from files. */
export interface WineProcess {
  readonly child: Deno.ChildProcess;
  stdout(): Promise<string>;
  stderr(): Promise<string>;
}

/** One Wine prefix for one test file, with the package at `C:\svc-filing`. */
export interface WineMachine {
  /** The prefix (a Unix path). */
  readonly prefix: string;
  /** The launcher's Windows path: `C:\svc-filing\svc-filing.cmd`. */
  readonly launcher: string;
  /** The package folder (Unix path of `C:\svc-filing`). */
  readonly pkgDir: string;
  /** The shared build (bundle, archive). */
  readonly build: WineBuild;
  /** The Unix path of `C:\…`. */
  unixPath(winPath: string): string;
  /** `%LOCALAPPDATA%` as a Unix path. */
  readonly localAppData: string;
  /** Environment of a Windows program: the base plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Run a Windows program (`wine64 <args>`) to its end; `stdin` written then closed. */
  wine(args: string[], o?: { env?: Record<string, string>; stdin?: string }): Promise<WineResult>;
  /** Run the launcher (`cmd /c svc-filing.cmd <args>`) to its end. */
  cli(args: string[], o?: { env?: Record<string, string>; stdin?: string }): Promise<WineResult>;
  /** Start a Windows program (`wine64 <args>`); stdin is piped. */
  start(args: string[], env?: Record<string, string>): WineProcess;
  /** Start the launcher; stdin is piped (write the answer, or close it). */
  spawn(args: string[], env?: Record<string, string>): WineProcess;
  /** Unix pids of this prefix's `deno.exe` processes. */
  denoPids(): Promise<number[]>;
  /** Stop the wineserver and remove the prefix. */
  close(): Promise<void>;
}

/**
 * A fresh prefix for one test file (see the module doc).
 * @returns the machine; close it at the end of the file
 * @throws Error when Wine is missing (under CI=true) or the build fails
 */
export async function wineMachine(): Promise<WineMachine> {
  const build = await wineBuild();
  const root = await Deno.makeTempDir({ prefix: "svc-wine-" });
  const prefix = join(root, "prefix");
  await mustRun("cp", ["-al", build.prefix, prefix]);
  // Wine writes its registry files in place: each machine gets its own copies, so that nothing
  // a test stores there (keys imported into a store, autostart values) reaches the template.
  for (const reg of ["system.reg", "user.reg", "userdef.reg"]) {
    await Deno.remove(join(prefix, reg));
    await Deno.copyFile(join(build.prefix, reg), join(prefix, reg));
  }
  const pkgDir = join(prefix, "drive_c", "svc-filing");
  await mustRun("cp", ["-al", build.pkg, pkgDir]);
  // The shim beside deno.exe in this copy only, and in the prefix's system32 (a copy, not a
  // link: the template stays clean), where a package unpacked by an update finds it too.
  await Deno.copyFile(build.shim, join(pkgDir, "runtime", "bcryptprimitives.dll"));
  await Deno.copyFile(
    build.shim,
    join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"),
  );
  const user = Deno.env.get("USER") ?? "root";
  const base = wineBaseEnv(prefix);
  // A persistent wineserver: every program of the file starts without booting one.
  // It forks into the background: its output must not be a pipe that .output() waits on.
  const server = await new Deno.Command(WINESERVER!, {
    args: ["-p"],
    clearEnv: true,
    env: base,
    stdout: "null",
    stderr: "null",
  }).output();
  if (!server.success) throw new Error(`wineserver -p failed (${server.code})`);
  // Whatever happens to the file's tests (a failure, --filter), its Wine goes with the process.
  let closed = false;
  globalThis.addEventListener("unload", () => {
    if (closed) return;
    new Deno.Command(WINESERVER!, { args: ["-k"], clearEnv: true, env: base }).outputSync();
    try {
      Deno.removeSync(root, { recursive: true });
    } catch { /* gone */ }
  });
  const env = (extra: Record<string, string> = {}) => ({ ...base, ...extra });
  // Wine's services (winedevice, plugplay, …) start with the first program and inherit its
  // standard handles: start them here, on /dev/null, so no later program's pipes stay open.
  await new Deno.Command(WINE!, {
    args: ["wineboot"],
    clearEnv: true,
    env: base,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  let n = 0;
  const start = (args: string[], extra?: Record<string, string>): WineProcess => {
    // Output into files, not pipes: a program the Windows one starts may keep a pipe open.
    const out = join(root, `out-${++n}.txt`);
    const err = join(root, `err-${n}.txt`);
    const child = new Deno.Command("sh", {
      args: ["-c", 'exec "$0" "$@" >"$SVC_T_OUT" 2>"$SVC_T_ERR"', WINE!, ...args],
      clearEnv: true,
      env: { ...env(extra), SVC_T_OUT: out, SVC_T_ERR: err },
      cwd: root,
      stdin: "piped",
    }).spawn();
    const read = (f: string) => Deno.readTextFile(f).catch(() => "");
    return { child, stdout: () => read(out), stderr: () => read(err) };
  };
  const wine = async (
    args: string[],
    o: { env?: Record<string, string>; stdin?: string } = {},
  ): Promise<WineResult> => {
    const p = start(args, o.env);
    const w = p.child.stdin.getWriter();
    if (o.stdin) await w.write(new TextEncoder().encode(o.stdin));
    await w.close();
    const { code } = await p.child.status;
    return { code, stdout: await p.stdout(), stderr: await p.stderr() };
  };
  const launcher = "C:\\svc-filing\\svc-filing.cmd";
  return {
    prefix,
    launcher,
    pkgDir,
    build,
    localAppData: join(prefix, "drive_c", "users", user, "AppData", "Local"),
    unixPath: (p) =>
      join(prefix, `drive_${p[0]!.toLowerCase()}`, ...p.slice(3).split(/[\\/]/).filter(Boolean)),
    env,
    wine,
    cli: async (args, o) => {
      const run = () => wine(["cmd", "/c", launcher, ...args], o);
      const first = await run();
      // Wine's cmd now and then fails to create the launcher's `deno.exe` process at all
      // ("ShellExecuteEx failed: Internal error", seen once in a full CI run): nothing of the
      // agent ran, so the command is run once more; any other failure is returned as it is.
      if (first.code === 0 || !/ShellExecuteEx failed/.test(first.stdout + first.stderr)) {
        return first;
      }
      console.error(`wine: ${args.join(" ")}: the process was not created; running it again`);
      return await run();
    },
    start,
    spawn: (args, extra) => start(["cmd", "/c", launcher, ...args], extra),
    async denoPids() {
      const pids: number[] = [];
      for await (const e of Deno.readDir("/proc")) {
        if (!/^\d+$/.test(e.name)) continue;
        try {
          const cmd = await Deno.readTextFile(`/proc/${e.name}/cmdline`);
          if (!cmd.includes("deno.exe")) continue;
          const environ = await Deno.readTextFile(`/proc/${e.name}/environ`);
          if (environ.split("\0").includes(`WINEPREFIX=${prefix}`)) pids.push(Number(e.name));
        } catch { /* gone */ }
      }
      return pids;
    },
    async close() {
      closed = true;
      await run(WINESERVER!, ["-k"], base);
      await run(WINESERVER!, ["-w"], base);
      await removeServerDir(prefix);
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}
