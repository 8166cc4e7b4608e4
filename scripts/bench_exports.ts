/**
 * The accountant's exports (docs/console.md § Exports) on a journal of 10,000 rows: the Excel
 * workbook (write-excel-file) and the Bulgarian CSV (names, local times, states in words)
 * against a baseline measured in the same run, the journal's own CSV of the same rows
 * (`exportJournal`, English columns, UTC). Rows come from one `exportRows` call; each figure is
 * the median over rounds (baseline and subjects alternate round by round), with the output's
 * size. Prints a markdown table.
 *
 * Usage: `deno run -A scripts/bench_exports.ts [--rows 10000] [--rounds 7]`
 * @module
 */
import { join } from "node:path";
import { exportJournal, Journal } from "../src/agent/filing/mod.ts";
import { accountantExport } from "../src/agent/console/filings_export.ts";
import { fill } from "./bench/journal_fill.ts";

const arg = (name: string, dflt: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1]! : dflt;
};
const n = Number(arg("--rows", "10000"));
const rounds = Number(arg("--rounds", "7"));

const dir = await Deno.makeTempDir({ prefix: "svc-bench-exports-" });
const path = join(dir, "journal.db");
new Journal(path).close(); // the schema
fill(path, n);
const journal = new Journal(path);
const rows = journal.exportRows({});
const names = {
  company: (r: { eik: string }) => `"Фирма ${r.eik}" ООД`,
  sender: () => "Иван",
  integrator: () => "Акме Софт ООД",
};

const bytes = (b: string | Uint8Array) =>
  typeof b === "string" ? new TextEncoder().encode(b).length : b.length;
const subjects: Record<string, () => Promise<number>> = {
  "journal CSV (baseline)": async () => bytes(await exportJournal(rows, "csv")),
  "accountant CSV": async () => bytes((await accountantExport(rows, names, "csv")).body),
  "accountant Excel (.xlsx)": async () => bytes((await accountantExport(rows, names, "xlsx")).body),
};
const times: Record<string, number[]> = {};
const sizes: Record<string, number> = {};
for (const k of Object.keys(subjects)) await subjects[k]!(); // warm-up: the writers load
for (let r = 0; r < rounds; r++) {
  for (const [k, f] of Object.entries(subjects)) {
    const t0 = performance.now();
    sizes[k] = await f();
    (times[k] ??= []).push(performance.now() - t0);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const base = median(times["journal CSV (baseline)"]!);
console.log(`${rows.length} rows, ${rounds} rounds, Deno ${Deno.version.deno}\n`);
console.log("| export | median ms | × baseline | size |");
console.log("| --- | ---: | ---: | ---: |");
for (const k of Object.keys(subjects)) {
  const m = median(times[k]!);
  console.log(
    `| ${k} | ${m.toFixed(1)} | ${(m / base).toFixed(2)} | ${(sizes[k]! / 1024).toFixed(0)} KiB |`,
  );
}
journal.close();
await Deno.remove(dir, { recursive: true });
