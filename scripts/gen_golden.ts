/**
 * Regenerate the golden outputs of the test portal: fixtures/golden/<eik>/<typeId>.json for the
 * pinned EIKs (docs/test-portal.md § Pinned EIKs and golden files); `--check` exits 1 when one is
 * missing, differs or is left over. Run it only when a change to the generated data is intended,
 * then review the diff. `deno task gen` runs it with the other generators (scripts/gen.ts).
 *
 *   deno run -A scripts/gen_golden.ts [--check]
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { goldenFiles, goldenPath, goldenText, PINNED_EIKS } from "../tests/mock/_golden_cases.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Write (or, with `check`, compare) the golden files of every pinned EIK; a file of a typeId the
 * registry no longer has is removed (or, with `check`, reported).
 * @param check only compare; print what is stale
 * @returns whether all were up to date (or have been written)
 */
export async function genGolden(check: boolean): Promise<boolean> {
  let written = 0;
  const stale: string[] = [];
  for (const eik of PINNED_EIKS) {
    const files = await goldenFiles(eik);
    const wanted = new Set<string>();
    for (const [typeId, cases] of Object.entries(files)) {
      const rel = goldenPath(eik, typeId);
      wanted.add(rel);
      const path = join(root, rel);
      const text = goldenText(cases);
      if (check) {
        const old = existsSync(path) ? readFileSync(path, "utf8") : null;
        if (old === null || !isDeepStrictEqual(JSON.parse(old), JSON.parse(text))) stale.push(rel);
        continue;
      }
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      written++;
    }
    const dir = join(root, dirname(goldenPath(eik, "x")));
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const rel = goldenPath(eik, name.replace(/\.json$/, ""));
      if (wanted.has(rel)) continue;
      if (check) stale.push(`${rel} (no such typeId)`);
      else rmSync(join(root, rel));
    }
  }
  if (check) {
    for (const rel of stale) console.error(`${rel} is out of date: run deno task gen`);
    if (stale.length === 0) console.log("fixtures/golden is up to date");
    return stale.length === 0;
  }
  console.log(`wrote ${written} golden files for ${PINNED_EIKS.join(", ")}`);
  return true;
}

if (import.meta.main) {
  if (!await genGolden(Deno.args.includes("--check"))) Deno.exit(1);
}
