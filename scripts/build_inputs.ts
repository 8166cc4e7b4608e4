/**
 * Inputs of the build (scripts/build.ts): whether the denort runtime of `deno compile` is
 * reachable per target, what the program reads from disk at run time, which npm packages
 * main.ts never reaches, and whether a bundle still imports anything but `node:` built-ins.
 * @module
 */
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/**
 * Whether a path exists.
 * @param p a path
 * @returns true when `Deno.stat` succeeds
 * @throws never
 */
export const exists = (p: string): Promise<boolean> => Deno.stat(p).then(() => true, () => false);

/** Inputs of {@link probeDenort}. */
export interface ProbeDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly denoVersion: string;
  /** `denoDir` from `deno info --json`, or null. */
  readonly denoDir: string | null;
  readonly hostTarget: string;
  /** The running deno CLI (a DENORT_BIN pointing at it makes unusable binaries). */
  readonly denoExec: string;
  readonly fetch: typeof fetch;
  readonly exists: (path: string) => Promise<boolean>;
  readonly timeoutMs: number;
}

/**
 * Whether `deno compile --target` can get its runtime without hanging.
 * @param target target triple
 * @param d environment, cache location, fetch and timeout
 * @returns `{ok, via}` or `{ok: false, reason}` naming every source tried
 * @throws never
 */
export async function probeDenort(
  target: string,
  d: ProbeDeps,
): Promise<{ ok: true; via: string } | { ok: false; reason: string }> {
  const zip = `denort-${target}.zip`;
  const why: string[] = [];
  const bin = d.env.DENORT_BIN;
  if (bin && target !== d.hostTarget) why.push(`DENORT_BIN serves ${d.hostTarget} only`);
  else if (bin && !(await d.exists(bin))) why.push(`DENORT_BIN=${bin} does not exist`);
  else if (bin && (/^deno(\.exe)?$/i.test(basename(bin)) || bin === d.denoExec)) {
    why.push(`DENORT_BIN=${bin} is the deno CLI, not denort`);
  } else if (bin) return { ok: true, via: `DENORT_BIN=${bin}` };
  if (d.denoDir) {
    const cached = join(d.denoDir, "dl", "release", `v${d.denoVersion}`, zip);
    if (await d.exists(cached)) return { ok: true, via: cached };
    why.push(`not cached at ${cached}`);
  }
  const url = `https://dl.deno.land/release/v${d.denoVersion}/${zip}`;
  try {
    const res = await d.fetch(url, { method: "HEAD", signal: AbortSignal.timeout(d.timeoutMs) });
    await res.body?.cancel();
    if (res.ok) return { ok: true, via: url };
    why.push(`HEAD ${url} → HTTP ${res.status}`);
  } catch (e) {
    const err = e as Error & { cause?: { message?: string } };
    const cause = err.cause?.message ? `: ${err.cause.message}` : "";
    why.push(`${url} not reachable (${err.name}: ${err.message}${cause})`);
  }
  return { ok: false, reason: `${zip} for deno ${d.denoVersion}: ${why.join("; ")}` };
}

/**
 * Import specifiers a bundle still loads at run time that are not `node:` built-ins.
 * @param text the bundle
 * @returns offending specifiers (empty = self-contained)
 * @throws never
 */
export function bundleProblems(text: string): string[] {
  const specs = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\bfrom\s*"([^"]+)"/gm),
    ...text.matchAll(/^import\s*"([^"]+)"/gm),
    ...text.matchAll(/\b(?:__require|import)\(\s*"([^"]+)"\s*\)/g),
  ].flatMap(([, spec]) => spec === undefined ? [] : [spec]);
  return [...new Set(specs.filter((s) => !s.startsWith("node:")))];
}

/** What the program reads from disk at run time, see {@link runtimeReads}. */
export interface RuntimeReads {
  /** Packages named in `import.meta.resolve("pkg/…")`: kept in the binary. */
  readonly packages: string[];
  /** Asset files to `--include` (relative to the root). */
  readonly includes: string[];
  /** Other files of those asset packages (maps, unused bundles) to `--exclude`. */
  readonly excludes: string[];
}

/**
 * Files and packages the program reads from disk at run time: every bare specifier passed to
 * `import.meta.resolve("pkg/…")` in src/ and every package a file of which src/ imports as text
 * from `node_modules/` (the package stays embedded), and the Swagger UI files
 * of src/agent/http/docs_page.ts (its ASSETS table) as explicit `--include` files; the rest of that
 * package except package.json and licences is excluded.
 * @param root project root
 * @returns packages, includes and excludes (paths relative to root)
 * @throws Error when a listed asset is missing from node_modules (run `deno install`)
 */
export async function runtimeReads(root = ROOT): Promise<RuntimeReads> {
  const packages = new Set<string>();
  const includes: string[] = [];
  const excludes: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      if (!e.isFile || !e.name.endsWith(".ts")) continue;
      const text = await Deno.readTextFile(p);
      for (
        const [, name] of text.matchAll(/import\.meta\.resolve\(\s*"((?:@[^/"]+\/)?[^/".][^/"]*)/g)
      ) {
        if (name !== undefined) packages.add(name);
      }
      // A package file imported as text (e.g. a browser bundle): keep its package in binaries.
      const textImport =
        /"(?:\.\.\/)+node_modules\/((?:@[^/"]+\/)?[^/"]+)\/[^"]*"\s*with\s*\{\s*type:\s*"text"/g;
      for (const [, pkg] of text.matchAll(textImport)) if (pkg) packages.add(pkg);
      const table = /const ASSETS[^=]*=\s*\{([^}]*)\}/.exec(text)?.[1];
      if (!table || !text.includes('import.meta.resolve("swagger-ui-dist/')) continue;
      const link = join(root, "node_modules", "swagger-ui-dist");
      const pkg = await Deno.realPath(link).catch(() => link);
      const assets = [...table.matchAll(/"([\w.-]+\.\w+)"\s*:/g)].flatMap(([, a]) => a ?? []);
      const keep = new Set([
        "package.json",
        "LICENSE",
        ...assets,
        ...assets.map((a) => `${a}.LICENSE.txt`),
      ]);
      for (const a of assets) {
        if (!(await exists(join(pkg, a)))) {
          throw new Error(`Run-time asset missing: ${join(pkg, a)}`);
        }
        includes.push(relative(root, join(pkg, a)));
      }
      for await (const f of Deno.readDir(pkg)) {
        if (!keep.has(f.name)) excludes.push(relative(root, join(pkg, f.name)));
      }
    }
  };
  await walk(join(root, "src"));
  return { packages: [...packages].sort(), includes, excludes: excludes.sort() };
}

/**
 * npm packages under node_modules/.deno that main.ts never reaches (per
 * `deno info --json main.ts`), minus the packages read at run time — excluded from binaries.
 * `deno compile --exclude` takes the package folder itself (`.deno/<id>/node_modules/<name>`).
 * @param info parsed `deno info --json main.ts`
 * @param dirs entries of node_modules/.deno
 * @param keep package names to keep (from {@link runtimeReads})
 * @returns paths like `node_modules/.deno/fast-check@4.10.2/node_modules/fast-check`
 * @throws never
 */
export function unusedNpmPackages(
  info: { modules: { npmPackage?: string }[]; npmPackages: Record<string, NpmPkg> },
  dirs: readonly string[],
  keep: readonly string[],
): string[] {
  const seen = new Set<string>();
  const stack = info.modules.flatMap((m) => (m.npmPackage ? [m.npmPackage] : []));
  const used = new Set<string | undefined>();
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    const pkg = info.npmPackages[id];
    if (seen.has(id) || !pkg) continue;
    seen.add(id);
    used.add(folderOf(pkg.localPath));
    stack.push(...(pkg.dependencies ?? []));
  }
  return dirs.flatMap((dir) => {
    const folder = /^(@?[^@]+)@[^@]+$/.exec(dir)?.[1];
    if (folder === undefined || used.has(dir)) return [];
    const name = folder.replace("+", "/");
    return keep.includes(name) ? [] : [`node_modules/.deno/${dir}/node_modules/${name}`];
  });
}
interface NpmPkg {
  dependencies?: string[];
  localPath?: string;
}
const folderOf = (p = "") =>
  p.replaceAll("\\", "/").split("/node_modules/.deno/")[1]?.split("/")[0];
