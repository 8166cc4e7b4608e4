/**
 * Regenerate the golden outputs of the test portal: fixtures/golden/<eik>/<typeId>.json for the
 * pinned EIKs (docs/test-portal.md § Golden files). Run it only when a change to the generated
 * data is intended, then review the diff:
 *
 *   deno run -A scripts/gen_golden.ts
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mkdirSync, writeFileSync } from "node:fs";
import { goldenFiles, goldenPath, goldenText, PINNED_EIKS } from "../tests/mock/_golden_cases.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

let written = 0;
for (const eik of PINNED_EIKS) {
  const files = await goldenFiles(eik);
  for (const [typeId, cases] of Object.entries(files)) {
    const path = join(root, goldenPath(eik, typeId));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, goldenText(cases));
    written++;
  }
}
console.log(`Wrote ${written} golden files for ${PINNED_EIKS.join(", ")}`);
