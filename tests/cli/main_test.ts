/**
 * main.ts stays thin and keeps the agent's cold start (BENCHMARKS.md § Agent cold start): its
 * static import graph — what loads before phase 1 of `agent` listens — holds no npm package and
 * no Node built-in (commander, zod, Hono load only afterwards, by dynamic import).
 */
import { deepStrictEqual, ok } from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Static imports and re-exports (`import type` is erased and does not load). */
const STATIC_RE = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;

/** Every module main.ts loads statically, and the bare (npm/node/jsr) specifiers among them. */
async function staticGraph(entry: string) {
  const seen = new Set<string>();
  const bare: string[] = [];
  const visit = async (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = (await Deno.readTextFile(file)).replace(/\/\*[\s\S]*?\*\//g, "");
    for (const m of text.matchAll(STATIC_RE)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) await visit(resolve(dirname(file), spec));
      else bare.push(`${file.slice(ROOT.length + 1)}: ${spec}`);
    }
  };
  await visit(resolve(ROOT, entry));
  return { files: [...seen].map((f) => f.slice(ROOT.length + 1)).sort(), bare };
}

Deno.test("[cli] main.ts reaches phase 1 of `agent` without npm packages or Node built-ins", async () => {
  const { files, bare } = await staticGraph("main.ts");
  deepStrictEqual(bare, [], "static imports of main.ts must not load npm or node: modules");
  ok(files.includes("src/agent/start/mod.ts"), files.join(", "));
  ok(!files.includes("src/cli/program.ts"), "the commander program loads after phase 1");
  ok(
    files.every((f) => !f.startsWith("src/agent/") || f.startsWith("src/agent/start/")),
    files.join(", "),
  );
});

Deno.test("[cli] main.ts is under 150 lines and reads the environment only to wire it in", async () => {
  const text = await Deno.readTextFile(resolve(ROOT, "main.ts"));
  ok(text.split("\n").length < 150, "main.ts only picks the program and wires dependencies");
  ok(!/\bparseArgs\b/.test(text), "no hand-written argument parsing");
});
