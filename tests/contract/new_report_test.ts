/**
 * Adding a report is its schemas, its registry row and its test-portal generator
 * (docs/architecture.md § Adding an operation), and `deno task gen` for what is generated. This
 * test proves it on a copy of the repository: it adds a throw-away report, `vat_refunds`, with
 * exactly the edits the recipe lists, checks that `deno task gen --check` then fails, runs
 * `deno task gen`, checks that the changed files are exactly those the recipe names, and runs
 * the registry-driven suites of the copy — the contract, the test portal, the portal contract,
 * the special test EIKs, the golden files and the end-to-end run over HTTP (token service and agent as programs) —
 * which pick the new report up with no other edit.
 */
import { deepStrictEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PINNED_EIKS } from "../mock/_support.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SKIP = new Set(["node_modules", ".git", ".deno", "dist", ".pg"]);

/** The throw-away report's edits: file → [anchor, text inserted before it] (or a new file). */
const EDITS: Readonly<Record<string, readonly [anchor: string | null, text: string]>> = {
  "src/contract/reports.ts": [
    null,
    `
/** VatRefundsRequest (a throw-away report of tests/contract/new_report_test.ts). */
export const VatRefundsRequest = z.object({ eik: Eik, year: Year }).meta({
  id: "VatRefundsRequest",
});
/** VatRefundsResult. */
export const VatRefundsResult = z.object({
  status: OkError,
  items: z.array(z.object({ month: Month, refunded: Amount })),
  error: NStr,
  ...metadataField,
}).meta({ id: "VatRefundsResult" });
`,
  ],
  "src/contract/operations.ts": [
    "] as const;\n\n/** A report operation of the registry",
    `  report({
    typeId: "vat_refunds",
    family: "report",
    answer: "vatRefunds",
    request: reports.VatRefundsRequest,
    result: reports.VatRefundsResult,
    scope: "eik",
    sender: "confirm",
    memo: "per_day",
    summary: "VAT refunds of a year",
    name: { bg: "Възстановен ДДС", en: "VAT refunds" },
    sample: { eik: SAMPLE_EIK, year: 2025 },
  }),\n`,
  ],
  "src/mock/vat_refunds.ts": [
    null,
    `/** The test portal's VAT refunds of a year (throw-away report of new_report_test.ts). */
import type { ReportRequestOf, ReportResultOf } from "../contract/mod.ts";

export function vatRefunds(req: ReportRequestOf<"vatRefunds">): ReportResultOf<"vatRefunds"> {
  const seed = Number(req.eik.slice(-3)) + req.year;
  const items = [3, 6, 9].map((month) => ({ month, refunded: ((seed * month) % 997) + 0.5 }));
  return { status: "ok", items, error: null };
}
`,
  ],
  "src/mock/answers.ts": [
    "};\n\n/**\n * Answer one report.",
    "  vatRefunds: (req) => vatRefunds(req),\n",
  ],
};

/** What `deno task gen` must rewrite, and nothing else. */
const GENERATED = [
  "README.md",
  "clients/ts/agent.d.ts",
  "docs/live-portal.md",
  "docs/test-portal.md",
  ...PINNED_EIKS.map((eik) => `fixtures/golden/${eik}/vat_refunds.json`),
];

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (SKIP.has(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(relative(dir, p), readFileSync(p, "latin1"));
    }
  };
  walk(dir);
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).sort();
}

async function run(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const d = new TextDecoder();
  return { code: r.code, out: d.decode(r.stdout) + d.decode(r.stderr) };
}

Deno.test("a new report is its schemas, a registry row and a generator; deno task gen does the rest", async () => {
  const copy = await Deno.makeTempDir({ prefix: "svc-new-report-" });
  try {
    cpSync(ROOT, copy, { recursive: true, filter: (src) => !SKIP.has(src.split(/[\\/]/).at(-1)!) });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
    const before = snapshot(copy);

    for (const [file, [anchor, text]] of Object.entries(EDITS)) {
      const path = join(copy, file);
      if (anchor === null) {
        const old = before.get(file) === undefined ? "" : readFileSync(path, "utf8");
        writeFileSync(path, old + text);
        continue;
      }
      const old = readFileSync(path, "utf8");
      const at = old.indexOf(anchor);
      notEqual(at, -1, `${file}: the anchor ${JSON.stringify(anchor)} moved`);
      writeFileSync(path, old.slice(0, at) + text + old.slice(at));
    }
    const answers = join(copy, "src/mock/answers.ts");
    writeFileSync(
      answers,
      `import { vatRefunds } from "./vat_refunds.ts";\n${readFileSync(answers, "utf8")}`,
    );
    const edited = snapshot(copy);
    deepStrictEqual(changed(before, edited), Object.keys(EDITS).sort());

    const stale = await run(copy, ["run", "-A", "scripts/gen.ts", "--check"]);
    equal(stale.code, 1, stale.out);
    match(stale.out, /README\.md is out of date/);
    match(stale.out, /clients\/ts\/agent\.d\.ts is stale/);
    match(stale.out, /fixtures\/golden\/121212121\/vat_refunds\.json is out of date/);

    const gen = await run(copy, ["run", "-A", "scripts/gen.ts"]);
    equal(gen.code, 0, gen.out);
    deepStrictEqual(changed(edited, snapshot(copy)), [...GENERATED].sort());
    const fresh = await run(copy, ["run", "-A", "scripts/gen.ts", "--check"]);
    equal(fresh.code, 0, fresh.out);
    ok(readFileSync(join(copy, "README.md"), "utf8").includes("`vat_refunds`"));
    // One row more is one line more: the generated tables are not re-padded.
    const lines = (t: string) => t.split("\n");
    const readmeBefore = lines(Buffer.from(edited.get("README.md")!, "latin1").toString("utf8"));
    const readmeAfter = lines(readFileSync(join(copy, "README.md"), "utf8"));
    deepStrictEqual(readmeAfter.filter((l) => !readmeBefore.includes(l)).length, 1);
    deepStrictEqual(readmeBefore.filter((l) => !readmeAfter.includes(l)), []);

    const suites = await run(copy, [
      "test",
      "-A",
      "tests/contract/contract_test.ts",
      "tests/portal/test_adapter_test.ts",
      "tests/portal/contract_test.ts",
      "tests/portal/special_eiks_test.ts",
      "tests/mock/golden_test.ts",
    ]);
    equal(suites.code, 0, suites.out.slice(-4000));
    match(suites.out, /every registry row carries a sample request .* ok/);
    match(suites.out, /\[test\] report\(vat_refunds\) answers its schema .* ok/);
    match(suites.out, /\[live\] report\(vat_refunds\) is unsupported .* ok/);
    const e2e = await run(copy, [
      "test",
      "-A",
      "tests/e2e/walking_skeleton_test.ts",
      "--filter",
      "every operation without local input",
    ]);
    equal(e2e.code, 0, e2e.out.slice(-4000));
    match(e2e.out, /1 passed/);
  } finally {
    await Deno.remove(copy, { recursive: true }).catch(() => {});
  }
});
