/**
 * The cost of checking that a filing's file is its declaration (src/formats/declaration_file.ts):
 * an employment notice (art. 62) of `--rows` contract rows in Windows-1251 XML (about 250 bytes a
 * row), checked with `checkDeclarationFile("etz62", …)` (decode, well-formedness, parse, root,
 * `<eik>`) against plain `TextDecoder("windows-1251")` decoding of the same bytes, measured in the
 * same run (median of `--reps`, MB/s). Prints a markdown table and the ratio.
 *
 * Usage: `deno run -A scripts/bench_file_check.ts [--rows 20000] [--reps 7]`
 * @module
 */
import { parseArgs } from "node:util";
import { checkDeclarationFile } from "../src/formats/mod.ts";
import { encodeCp1251 } from "../src/formats/encode/mod.ts";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "20000" }, reps: { type: "string", default: "7" } },
});
const rows = Number(values.rows);
const reps = Number(values.reps);
const EIK = "121212121";
const row = (i: number) =>
  `<rowenum><employtype>01</employtype><codecorrection>0</codecorrection><egn>${
    String(8001010000 + i)
  }</egn><name>Иван Петров Иванов</name><contractdate>2026-09-01</contractdate>` +
  `<codenkpd>24111001</codenkpd><codekid>6920</codekid><salary>2550.00</salary></rowenum>`;
const bytes = encodeCp1251(
  `<?xml version="1.0" encoding="WINDOWS-1251"?>\n<etzemploy><eik>${EIK}</eik><contract>` +
    Array.from({ length: rows }, (_, i) => row(i)).join("\n") + "</contract></etzemploy>\n",
);
const mb = bytes.length / 1e6;

function median(fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const decode = median(() => new TextDecoder("windows-1251").decode(bytes));
const check = median(() => checkDeclarationFile("etz62", bytes, "etz62.xml", { eik: EIK }));
console.log(`${rows} rows, ${mb.toFixed(1)} MB, median of ${reps}\n`);
console.log("| operation | ms | MB/s |\n| --- | ---: | ---: |");
console.log(
  `| TextDecoder("windows-1251").decode (baseline) | ${decode.toFixed(1)} | ${
    (mb / (decode / 1000)).toFixed(1)
  } |`,
);
console.log(
  `| checkDeclarationFile("etz62") | ${check.toFixed(1)} | ${(mb / (check / 1000)).toFixed(1)} |`,
);
console.log(`\nratio check / decode time: ${(check / decode).toFixed(1)}×`);
