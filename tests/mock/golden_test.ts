import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { OPERATIONS, REPORT_OPERATIONS } from "../../src/contract/operations.ts";
import { goldenFiles, goldenPath, PINNED_EIKS } from "./_golden_cases.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

for (const eik of PINNED_EIKS) {
  Deno.test(`golden: the test portal's answers for ${eik} match fixtures/golden/${eik}`, async () => {
    const files = await goldenFiles(eik);
    const reports = REPORT_OPERATIONS.length;
    const submissions = OPERATIONS.filter((o) => o.family === "submission").length;
    assert.equal(Object.keys(files).length, reports + 2 * submissions);
    for (const [typeId, cases] of Object.entries(files)) {
      const path = goldenPath(eik, typeId);
      let stored: unknown;
      try {
        stored = JSON.parse(readFileSync(join(root, path), "utf8"));
      } catch (e) {
        assert.fail(
          `${path} is missing or unreadable (${e}); run: deno task gen`,
        );
      }
      assert.deepEqual(
        JSON.parse(JSON.stringify(cases)),
        stored,
        `${path} differs from the generated data; if the change is intended, run ` +
          "deno task gen and review the diff",
      );
    }
  });
}
