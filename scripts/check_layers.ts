/**
 * The layer rule as code (docs/architecture.md § Layers). Reads every import of `main.ts` and
 * `src/**\/*.ts` (static, `export … from`, and dynamic `import("…")` with a literal path) and
 * fails on:
 *
 * 1. **Layers**: an import from one top-level folder of `src/` into another that the table
 *    {@link ALLOWED} does not allow (`contract ← formats, mock, signing ← portal ← agent`;
 *    `contract ← token`; `cli` and `main.ts` may use everything). The shared files directly
 *    in `src/` (clock, log, defaults, config, version, csv, xlsx, local_time) may be imported by
 *    any folder and import only each other and `contract/`.
 * 2. **Encapsulation**: an import whose target lies in a folder that does not contain the
 *    importing file must name that folder's `mod.ts` (a concept folder is entered through its
 *    surface; sub-folders may have their own `mod.ts` for lazy loading). `main.ts` counts as
 *    a file of `src/cli/`.
 * 3. **Side effects**: `Deno.env` or `Deno.serve(` outside `src/cli/` and `main.ts` (only the
 *    CLI reads the environment or listens).
 * 4. **Loops**: any import cycle between files (type-only imports included).
 *
 * Tests, scripts and examples are exempt (tests reach into the modules they test).
 *
 * Usage: `deno run --allow-read scripts/check_layers.ts [root]` — prints each violation and
 * exits 1, or prints a one-line summary and exits 0. Run by `deno task ok` and `.ci/run`.
 * @module
 */
import { dirname, join, relative, resolve, sep } from "node:path";

/** Which top-level folders of src/ each folder may import (besides itself and shared files). */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  contract: [],
  formats: ["contract"],
  mock: ["contract"],
  signing: ["contract"],
  portal: ["contract", "formats", "mock", "signing"],
  agent: ["contract", "formats", "mock", "signing", "portal"],
  token: ["contract"],
  cli: ["contract", "formats", "mock", "signing", "portal", "agent", "token"],
};

/** Shared files directly in src/ may import these folders. */
const SHARED_MAY_IMPORT = ["contract"];

/** Folders where `Deno.env` and `Deno.serve(` may appear. */
const SIDE_EFFECT_HOMES = ["cli"];

/** One finding. */
export interface Violation {
  readonly rule: "layer" | "mod.ts" | "side effect" | "loop";
  readonly file: string;
  readonly detail: string;
}

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Strip comments so examples in docstrings are not read as imports. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/**
 * The relative imports of one file.
 * @param text the file's source
 * @returns the specifiers, in order
 */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of stripComments(text).matchAll(IMPORT_RE)) out.push((m[1] ?? m[2])!);
  return out;
}

async function listTs(dir: string, out: string[] = []): Promise<string[]> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) await listTs(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** The top-level folder of src/ a path is in ("" for a shared file directly in src/). */
function layerOf(src: string, file: string): string | null {
  const rel = relative(src, file);
  if (rel.startsWith("..")) return null; // main.ts
  const parts = rel.split(sep);
  return parts.length === 1 ? "" : parts[0]!;
}

/**
 * Check a project.
 * @param root the project root (holding main.ts and src/)
 * @returns every violation found (empty when the rule holds)
 */
export async function checkLayers(root: string): Promise<Violation[]> {
  const src = join(root, "src");
  const files = [join(root, "main.ts"), ...(await listTs(src))].map((f) => resolve(f));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const found: Violation[] = [];
  const show = (f: string) => relative(root, f);
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    const from = layerOf(src, file);
    if (from !== null && !SIDE_EFFECT_HOMES.includes(from)) {
      const code = stripComments(text);
      for (const what of ["Deno.env", "Deno.serve("]) {
        if (code.includes(what)) {
          found.push({ rule: "side effect", file: show(file), detail: `uses ${what}` });
        }
      }
    }
    const edges: string[] = [];
    for (const spec of importsOf(text)) {
      const target = resolve(dirname(file), spec);
      if (!known.has(target)) continue; // not a checked file (fixtures, JSON, …)
      edges.push(target);
      const to = layerOf(src, target);
      if (from !== null && to !== null && to !== from && to !== "") {
        const allowed = from === "" ? SHARED_MAY_IMPORT : ALLOWED[from] ?? [];
        if (!allowed.includes(to)) {
          found.push({
            rule: "layer",
            file: show(file),
            detail: `${from || "src/"} may not import ${to}/ (${spec})`,
          });
        }
      }
      // main.ts belongs to the CLI layer: it sees what src/cli/ sees.
      const home = from === null ? join(src, "cli") : dirname(file);
      const there = dirname(target);
      const inside = home === there || home.startsWith(there + sep);
      if (!inside && !target.endsWith(`${sep}mod.ts`)) {
        found.push({
          rule: "mod.ts",
          file: show(file),
          detail: `reaches past ${show(there)}/mod.ts to ${show(target)}`,
        });
      }
    }
    graph.set(file, edges);
  }
  for (const cycle of cyclesOf(graph)) {
    found.push({ rule: "loop", file: show(cycle[0]!), detail: cycle.map(show).join(" → ") });
  }
  return found;
}

/** A cycle written from its smallest file (stable output), closed by that file again. */
function rotated(cycle: string[]): string[] {
  const i = cycle.indexOf([...cycle].sort()[0]!);
  const r = [...cycle.slice(i), ...cycle.slice(0, i)];
  return [...r, r[0]!];
}

/** Each elementary cycle found by a depth-first search (one per back edge). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (n: string) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 1) cycles.push(rotated(stack.slice(stack.indexOf(m))));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return cycles;
}

if (import.meta.main) {
  const root = resolve(Deno.args[0] ?? join(dirname(new URL(import.meta.url).pathname), ".."));
  const found = await checkLayers(root);
  for (const v of found) console.error(`${v.rule}: ${v.file}: ${v.detail}`);
  if (found.length) {
    console.error(`check_layers: ${found.length} violation(s); see docs/architecture.md § Layers`);
    Deno.exit(1);
  }
  console.log("check_layers: the layer rule holds (layers, mod.ts surfaces, side effects, loops)");
}
