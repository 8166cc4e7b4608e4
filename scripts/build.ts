/**
 * `deno task build`: single-file binaries of `main.ts` for Windows x64, macOS x64/arm64 and
 * Linux x64 in `dist/` (`svc-filing-<target>[.exe]`), a JS bundle `dist/svc-filing.bundle.js`
 * and `dist/SHA256SUMS`.
 *
 * 1. Always: `deno bundle` (proves the module graph is self-contained: only `node:` imports
 *    remain), then `deno run <bundle> --version` from a directory without deno.json.
 * 2. Per target: probe the denort runtime `deno compile` needs (DENORT_BIN for the host target;
 *    `$DENO_DIR/dl/release/v<ver>/denort-<target>.zip`; a HEAD to dl.deno.land within 3 s).
 *    Unreachable → `SKIP deno compile: <reason>`. Reachable → `deno compile` with the runtime
 *    permissions, `--include` for files read at run time (`import.meta.resolve` assets such as
 *    Swagger UI) and `--exclude` for npm packages main.ts never reaches (test/dev tools).
 *    The host target's binary must print VERSION for `--version`.
 * 3. Per target, always: the portable package (scripts/package.ts): the official Deno runtime
 *    from npm, the bundle and its assets, launchers; reproducible zip / tar.gz archives,
 *    `dist/manifest.json`, and every archive in `dist/SHA256SUMS`; for win-x64 also
 *    `svc-filing.exe` (mingw-w64) in the zip and the per-user MSI (wixl), signed when
 *    SVC_CODESIGN_PFX / SVC_CODESIGN_PASSWORD are set ("unsigned" otherwise; a missing tool is
 *    a `SKIP` line).
 * Exit: 0 when everything asked for was built; 1 on a failure, or when a target was skipped
 * unless `--allow-skip`. Flags: `--out-dir DIR`, `--target T` (repeatable), `--bundle-only`,
 * `--no-packages`, `--no-trim` (embed all of node_modules).
 * @module
 */
import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { VERSION } from "../src/version.ts";
import {
  bundleProblems,
  exists,
  probeDenort,
  type ProbeDeps,
  runtimeReads,
  unusedNpmPackages,
} from "./build_inputs.ts";

export * from "./build_inputs.ts";

/** The release targets. */
export const TARGETS = [
  "x86_64-pc-windows-msvc",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-unknown-linux-gnu",
] as const;
/** Permissions baked into the binaries (the agent runs OS tools and PKCS#11 via FFI). */
export const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-ffi",
  "--allow-sys",
];
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * File name of a target's binary.
 * @param target a Rust target triple
 * @returns `svc-filing-<target>`, with `.exe` for Windows
 * @throws never
 */
export function binaryName(target: string): string {
  return `svc-filing-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** Result of one subprocess. */
interface Ran {
  code: number;
  out: string;
  err: string;
}
async function run(
  cmd: string,
  args: string[],
  cwd = ROOT,
  env?: Readonly<Record<string, string>>,
) {
  const o = await new Deno.Command(cmd, {
    args,
    cwd,
    ...(env ? { env: { ...env } } : {}),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) } as Ran;
}

/**
 * `deno compile` arguments for one target.
 * @param target target triple
 * @param output binary path
 * @param includes files to embed besides the module graph
 * @param excludes folders to leave out
 * @returns the argument list (after the deno executable)
 * @throws never
 */
export function compileArgs(
  target: string,
  output: string,
  includes: readonly string[],
  excludes: readonly string[],
): string[] {
  return [
    "compile",
    "--target",
    target,
    "--output",
    output,
    ...PERMISSIONS,
    ...includes.flatMap((i) => ["--include", i]),
    ...excludes.flatMap((e) => ["--exclude", e]),
    "main.ts",
  ];
}

/**
 * `sha256sum`-compatible lines for files (`<hex>  <name>`).
 * @param files absolute paths
 * @returns the SHA256SUMS text
 * @throws when a file cannot be read
 */
export async function sha256sums(files: readonly string[]): Promise<string> {
  const lines = [];
  for (const f of files) {
    const hex = createHash("sha256").update(await Deno.readFile(f)).digest("hex");
    lines.push(`${hex}  ${basename(f)}`);
  }
  return lines.join("\n") + "\n";
}

/** Options of {@link runBuild}. */
export interface BuildOptions {
  readonly outDir?: string;
  readonly targets?: readonly string[] | undefined;
  readonly allowSkip?: boolean | undefined;
  readonly bundleOnly?: boolean | undefined;
  /** Embed all of node_modules (no `--exclude` of unused packages and asset leftovers). */
  readonly noTrim?: boolean | undefined;
  readonly log?: (line: string) => void;
  /** Where FAIL lines and the skip-policy message go (default console.error). */
  readonly error?: (line: string) => void;
  /** Extra environment for the probe and the deno subprocesses (e.g. DENORT_BIN). */
  readonly env?: Readonly<Record<string, string>>;
  readonly probe?: Partial<ProbeDeps>;
}

/** What a build produced. */
export interface BuildResult {
  readonly exitCode: number;
  readonly bundle: string;
  readonly built: string[];
  readonly skipped: { target: string; reason: string }[];
  readonly failed: string[];
}

/**
 * Runs the build (see the module doc).
 * @param o output directory, targets, skip policy, logger, probe overrides
 * @returns what was built, skipped or failed, and the exit code
 * @throws never for build failures (they are in `failed`); Error when dist/ cannot be written
 */
export async function runBuild(o: BuildOptions = {}): Promise<BuildResult> {
  const log = o.log ?? console.log;
  const error = o.error ?? console.error;
  const deno = Deno.execPath();
  const outDir = o.outDir ?? join(ROOT, "dist");
  const failed: string[] = [];
  const skipped: { target: string; reason: string }[] = [];
  const built: string[] = [];
  await Deno.mkdir(outDir, { recursive: true });
  const declared = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).version;
  log(`svc-filing ${VERSION} (src/version.ts)`);
  if (declared && declared !== VERSION) {
    log(`WARN deno.json "version" ${declared} differs from src/version.ts ${VERSION}`);
  }
  const bundle = join(outDir, "svc-filing.bundle.js");
  const b = await run(deno, ["bundle", "--quiet", "--output", bundle, "main.ts"]);
  let bundleOk = false;
  if (b.code !== 0) failed.push(`deno bundle failed: ${b.err.trim()}`);
  else {
    const problems = bundleProblems(await Deno.readTextFile(bundle));
    if (problems.length) failed.push(`bundle still imports ${problems.join(", ")}`);
    // Run from a directory without deno.json or node_modules: nothing may come from outside.
    const tmp = await Deno.makeTempDir();
    const v = await run(deno, ["run", "-A", "--no-config", "--no-lock", bundle, "--version"], tmp);
    await Deno.remove(tmp, { recursive: true });
    if (v.out.trim() !== VERSION) {
      failed.push(`bundle --version printed "${v.out.trim()}" ${v.err.trim()}, want ${VERSION}`);
    } else if (!problems.length) {
      bundleOk = true;
      log(`ok   bundle ${bundle} (--version ${VERSION}, only node: imports)`);
    }
  }
  if (!o.bundleOnly) {
    const info = JSON.parse((await run(deno, ["info", "--json"])).out || "{}");
    const pd: ProbeDeps = {
      env: { ...Deno.env.toObject(), ...o.env },
      denoVersion: Deno.version.deno,
      denoDir: info.denoDir ?? null,
      hostTarget: Deno.build.target,
      denoExec: deno,
      fetch,
      exists,
      timeoutMs: 3000,
      ...o.probe,
    };
    const targets = o.targets ?? TARGETS;
    const probes = await Promise.all(targets.map((t) => probeDenort(t, pd)));
    const ready: string[] = [];
    for (const [i, t] of targets.entries()) {
      const p = probes[i]!; // one probe per target
      if (p.ok) ready.push(t);
      else {
        log(`SKIP deno compile: ${p.reason}`);
        skipped.push({ target: t, reason: p.reason });
      }
    }
    if (ready.length) {
      const reads = await runtimeReads();
      const graph = JSON.parse((await run(deno, ["info", "--json", "main.ts"])).out);
      const dirs = await Array.fromAsync(Deno.readDir(join(ROOT, "node_modules", ".deno")));
      const excludes = o.noTrim ? [] : [
        ...unusedNpmPackages(graph, dirs.map((d) => d.name), reads.packages),
        ...reads.excludes,
      ];
      for (const t of ready) {
        const out = join(outDir, binaryName(t));
        const c = await run(deno, compileArgs(t, out, reads.includes, excludes), ROOT, o.env);
        if (c.code !== 0) {
          failed.push(`deno compile --target ${t} failed: ${c.err.trim().split("\n").at(-1)}`);
          continue;
        }
        built.push(out);
        if (t !== Deno.build.target) log(`ok   ${binaryName(t)} (cross-compiled, not run)`);
        else {
          const v = (await run(out, ["--version"]).catch((e) => ({ out: String(e) }))).out.trim();
          if (v === VERSION) log(`ok   ${binaryName(t)} (--version ${VERSION})`);
          else {failed.push(
              `${binaryName(t)} --version printed "${v.split("\n")[0]}", want ${VERSION}`,
            );}
        }
      }
    }
  }
  const sums = [...built, ...(bundleOk ? [bundle] : [])];
  await Deno.writeTextFile(join(outDir, "SHA256SUMS"), await sha256sums(sums));
  for (const f of failed) error(`FAIL ${f}`);
  let exitCode = failed.length ? 1 : 0;
  if (!exitCode && skipped.length && !o.allowSkip) {
    error(
      `deno compile skipped for ${skipped.length} target(s): the denort runtime is not reachable. ` +
        "Build where dl.deno.land is reachable, pre-place the zip in $DENO_DIR/dl/release, " +
        "or pass --allow-skip to accept a bundle-only build.",
    );
    exitCode = 1;
  }
  return { exitCode, bundle, built, skipped, failed };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "out-dir": { type: "string" },
      target: { type: "string", multiple: true },
      "allow-skip": { type: "boolean" },
      "bundle-only": { type: "boolean" },
      "no-trim": { type: "boolean" },
      "no-packages": { type: "boolean" },
    },
  });
  const bad = (values.target ?? []).filter((t) => !(TARGETS as readonly string[]).includes(t));
  if (bad.length) {
    console.error(`Unknown --target ${bad.join(", ")}; one of ${TARGETS.join(", ")}`);
    Deno.exit(2);
  }
  const outDir = values["out-dir"] ?? join(ROOT, "dist");
  const r = await runBuild({
    outDir,
    targets: values.target?.length ? values.target : undefined,
    allowSkip: values["allow-skip"],
    bundleOnly: values["bundle-only"],
    noTrim: values["no-trim"],
  });
  if (r.exitCode !== 0 || values["bundle-only"] || values["no-packages"]) Deno.exit(r.exitCode);
  // The portable packages (scripts/package.ts), built everywhere: runtime from npm + bundle.
  const { buildPackages, PACKAGE_TARGETS } = await import("./package.ts");
  try {
    const wanted: readonly string[] = values.target?.length ? values.target : TARGETS;
    const infos = await buildPackages({
      bundle: r.bundle,
      outDir,
      targets: PACKAGE_TARGETS.filter((t) => wanted.includes(t.triple)),
      sourceDateEpoch: Deno.env.get("SOURCE_DATE_EPOCH"),
    });
    const sums = [
      ...r.built,
      r.bundle,
      ...infos.flatMap((i) => [i.file, ...(i.msi ? [i.msi.file] : [])]).map((f) => join(outDir, f)),
    ];
    await Deno.writeTextFile(join(outDir, "SHA256SUMS"), await sha256sums(sums));
  } catch (e) {
    console.error(`FAIL portable packages: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(1);
  }
  Deno.exit(0);
}
