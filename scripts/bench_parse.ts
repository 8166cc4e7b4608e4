/**
 * Parse-speed benchmark for src/formats (BENCHMARKS.md, docs/formats.md § Speed): builds a
 * 100,000-line POKUPKI.TXT in a temp dir through `writePokupki` + `encodeCp1251`, then measures in
 * the same run the throughput of plain `TextDecoder("windows-1251")` decoding and of the full
 * `parsePokupki` (median of several repetitions, MB/s), and the peak memory of each, measured in a
 * fresh subprocess per operation (VmHWM from /proc/self/status where available, else the largest
 * sampled `Deno.memoryUsage().rss`). Prints a markdown table and exits 0.
 *
 * Each timed operation starts after a full GC (the script re-runs itself with
 * `--v8-flags=--expose-gc`), so garbage left by one repetition is not billed to the next;
 * the operation's own GC work is included.
 *
 * Usage: `deno run -A scripts/bench_parse.ts [--lines 100000] [--reps 9]`
 * @module
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePokupki, type PokupkiRecord, writePokupki } from "../src/formats/mod.ts";
import { encodeCp1251 } from "../src/formats/encode/mod.ts";
import { prng } from "./bench/prng.ts";

const NAMES = [
  "ЕКО ТРЕЙД ООД",
  "БАЛКАН СТРОЙ ЕООД",
  "ДУНАВ ЛОГИСТИК АД",
  "СОФИЯ КОНСУЛТ ООД",
  "ПИРИН ФУУД ЕООД",
  "Metro Cash & Carry Bulgaria",
];
const GOODS = ["Канцеларски материали", "Горива", "Транспортни услуги", "Наем офис", "Стоки"];

function makeRecords(n: number): PokupkiRecord[] {
  const rnd = prng(20260801);
  const out: PokupkiRecord[] = [];
  for (let i = 1; i <= n; i++) {
    const credit = rnd() < 0.05;
    const base = Math.round(rnd() * 5_000_000) / 100 * (credit ? -1 : 1);
    out.push({
      vatNumber: "BG123456786",
      period: "202608",
      branch: 0,
      runningNumber: i,
      documentType: credit ? "03" : "01",
      documentNumber: String(1_000_000 + i).padStart(10, "0"),
      documentDate: `2026-08-${String(1 + (i % 28)).padStart(2, "0")}`,
      counterpartyId: "BG" + String(100_000_000 + Math.floor(rnd() * 899_999_999)),
      counterpartyName: NAMES[i % NAMES.length]!,
      goodsDescription: GOODS[i % GOODS.length]!,
      baseAndVatNoCredit: null,
      baseFullCredit: base,
      vatFullCredit: Math.round(base * 20) / 100,
      basePartialCredit: null,
      vatPartialCredit: null,
      annualAdjustment: null,
      baseTriangular: null,
      specialCode: "",
    });
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!; // xs holds at least one repetition
}

function peakRssBytes(): number {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    if (m) return Number(m[1]) * 1024;
  } catch { /* not Linux */ }
  return Deno.memoryUsage().rss;
}

/** Child mode: run one operation once on the file and print its peak RSS as JSON. */
async function child(op: string, file: string): Promise<void> {
  const bytes = new Uint8Array(await readFile(file));
  let sampled = Deno.memoryUsage().rss;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, Deno.memoryUsage().rss);
  }, 5);
  let keep: unknown = null;
  if (op === "decode") keep = new TextDecoder("windows-1251").decode(bytes);
  if (op === "parse") keep = parsePokupki(bytes);
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(timer);
  sampled = Math.max(sampled, Deno.memoryUsage().rss);
  console.log(JSON.stringify({ peak: Math.max(peakRssBytes(), sampled), kept: keep !== null }));
}

async function measureMemory(op: string, file: string): Promise<number> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("../deno.json", import.meta.url).pathname,
      import.meta.filename!,
      "--child",
      op,
      file,
    ],
    stdout: "piped",
    stderr: "inherit",
  });
  const { stdout } = await cmd.output();
  return JSON.parse(new TextDecoder().decode(stdout).trim()).peak as number;
}

const CONFIG = new URL("../deno.json", import.meta.url).pathname;
const gc = (globalThis as { gc?: () => void }).gc;

/** Re-run this script with `--expose-gc`, passing the arguments on; returns its exit code. */
async function rerunWithGc(): Promise<number> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      CONFIG,
      "--v8-flags=--expose-gc",
      import.meta.filename!,
      ...Deno.args,
    ],
    stdout: "inherit",
    stderr: "inherit",
  });
  return (await cmd.output()).code;
}

async function main(): Promise<void> {
  const args = Deno.args;
  const ci = args.indexOf("--child");
  if (ci >= 0) return await child(args[ci + 1] ?? "", args[ci + 2] ?? "");
  if (gc === undefined) Deno.exit(await rerunWithGc());
  const arg = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const lines = arg("--lines", 100_000);
  const reps = arg("--reps", 9);

  const dir = await mkdtemp(join(tmpdir(), "bench-parse-"));
  try {
    const file = join(dir, "POKUPKI.TXT");
    await writeFile(file, encodeCp1251(writePokupki(makeRecords(lines)), "POKUPKI.TXT"));
    const bytes = new Uint8Array(await readFile(file));
    const mb = bytes.length / 1e6;
    const decoder = new TextDecoder("windows-1251");

    // Warm up both paths, then alternate them so machine noise hits both alike.
    for (let i = 0; i < 2; i++) {
      decoder.decode(bytes);
      parsePokupki(bytes);
    }
    const dec: number[] = [];
    const par: number[] = [];
    let count = 0;
    for (let i = 0; i < reps; i++) {
      gc();
      let t = performance.now();
      const s = decoder.decode(bytes);
      dec.push(mb / ((performance.now() - t) / 1000));
      if (s.length !== bytes.length) throw new Error("decode length mismatch");
      gc();
      t = performance.now();
      count = parsePokupki(bytes).length;
      par.push(mb / ((performance.now() - t) / 1000));
    }
    if (count !== lines) throw new Error(`parsed ${count} records, expected ${lines}`);
    const baseRss = await measureMemory("none", file);
    const decRss = await measureMemory("decode", file);
    const parRss = await measureMemory("parse", file);
    const d = median(dec);
    const p = median(par);
    const mib = (x: number) => (x / 1048576).toFixed(0);
    console.log(
      `POKUPKI.TXT: ${lines.toLocaleString("en")} lines, ${
        mb.toFixed(1)
      } MB, ${reps} repetitions (median)\n`,
    );
    console.log("| operation | throughput (MB/s) | peak RSS (MiB) |");
    console.log("|---|---:|---:|");
    console.log(`| read file only (baseline) | — | ${mib(baseRss)} |`);
    console.log(`| TextDecoder("windows-1251").decode | ${d.toFixed(1)} | ${mib(decRss)} |`);
    console.log(`| parsePokupki (decode + typed records) | ${p.toFixed(1)} | ${mib(parRss)} |`);
    console.log(`\nratio parse / decode: ${(100 * p / d).toFixed(1)} % (target ≥ 25 %)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
