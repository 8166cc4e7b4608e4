import * as assert from "node:assert/strict";
import { join } from "node:path";
import { checkLayers, importsOf } from "../../scripts/check_layers.ts";

async function project(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "svc-layers-" });
  for (const [path, text] of Object.entries({ "main.ts": "", ...files })) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

Deno.test("importsOf() reads static, re-export, type-only and dynamic imports, not comments", () => {
  const text = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b.ts";',
    'export * from "./c/mod.ts";',
    'const d = await import("./d.ts");',
    '// import { e } from "./e.ts";',
    '/** import { f } from "./f.ts"; */',
    'import "npm:hono";',
  ].join("\n");
  assert.deepEqual(importsOf(text), ["./a.ts", "../b.ts", "./c/mod.ts", "./d.ts"]);
});

Deno.test("checkLayers() finds a broken layer, a bypassed mod.ts, a side effect and a loop", async () => {
  const root = await project({
    "src/contract/mod.ts": 'export * from "./errors.ts";',
    "src/contract/errors.ts": "export const E = 1;",
    // portal may not import agent (layer), and reaches past contract/mod.ts (surface)
    "src/portal/adapter.ts": 'import { E } from "../contract/errors.ts";\n' +
      'import { A } from "../agent/mod.ts";\nexport const P = [E, A];',
    "src/agent/mod.ts": 'export { A } from "./a.ts";',
    "src/agent/a.ts": 'import { B } from "./b.ts";\nexport const A = B;\n' +
      "export const port = Deno.env.get('PORT');",
    "src/agent/b.ts": 'import { A } from "./a.ts";\nexport const B = () => A;',
    // allowed: cli uses everything through mod.ts and reads the environment
    "src/cli/run.ts": 'import { A } from "../agent/mod.ts";\nexport const x = [A, Deno.env];',
  });
  const found = await checkLayers(root);
  const rules = found.map((v) => `${v.rule} ${v.file}`).sort();
  assert.deepEqual(rules, [
    "layer src/portal/adapter.ts",
    "loop src/agent/a.ts",
    "mod.ts src/portal/adapter.ts",
    "side effect src/agent/a.ts",
  ]);
});

Deno.test("checkLayers() lets a folder use its parents' files and main.ts use src/cli/", async () => {
  const root = await project({
    "main.ts": 'import { run } from "./src/cli/run.ts";\nrun();',
    "src/clock.ts": "export const now = () => 0;",
    "src/cli/run.ts": 'import { now } from "../clock.ts";\nexport const run = now;',
    "src/agent/http/app.ts":
      'import { now } from "../../clock.ts";\nimport { p } from "../p.ts";\n' +
      "export const x = [now, p];",
    "src/agent/p.ts": "export const p = 1;",
  });
  assert.deepEqual(await checkLayers(root), []);
});

Deno.test("[repo] the layer rule holds for this project", async () => {
  const found = await checkLayers(new URL("../..", import.meta.url).pathname);
  assert.deepEqual(found.map((v) => `${v.rule}: ${v.file}: ${v.detail}`), []);
});
