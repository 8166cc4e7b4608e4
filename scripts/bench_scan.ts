/**
 * Scan benchmark (BENCHMARKS.md § Scanning): a generated tree of 20,000 NRA files (≥ 200 MB: 4,000
 * companies × EMPL2021.TXT, NRA62007.TXT, DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT) scanned by the
 * agent's `dec1_files_scan` and `vat_files_scan` (in-process, real file system) against `cat`
 * reading every file of the same tree (`find -type f -print0 | xargs -0 cat > /dev/null`), in one
 * run, page cache warm for both, median of 3, with the peak RSS of each (GNU time `%M`).
 *
 *   deno run -A scripts/bench_scan.ts [--companies 4000] [--dir /tmp/scan-tree]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { encodeCp1251 } from "../src/formats/encode/mod.ts";
import { createTestPortal } from "../src/portal/test/adapter.ts";
import {
  REPORT_OPERATIONS,
  type ReportAnswer,
  type ReportOperationOf,
} from "../src/contract/operations.ts";
import { validEik } from "../tests/_helpers/company_tree.ts";

/** The shape of a portal-files result this file reads. */
type PortalFiles = { status: string; files: { name: string; content: string }[] };

const { values } = parseArgs({
  args: Deno.args,
  options: {
    companies: { type: "string", default: "4000" },
    dir: { type: "string" },
    child: { type: "string" },
  },
});

// Child mode: run one scan and print its time.
if (values.child) {
  const { createLocalOps } = await import("../src/agent/local/ops.ts");
  const { OPERATIONS } = await import("../src/contract/operations.ts");
  const [typeId, root] = values.child.split("|") as [string, string];
  const op = OPERATIONS.find((o) => o.typeId === typeId);
  if (op?.family !== "local") throw new Error(`${typeId} is not a local operation`);
  const ops = createLocalOps();
  const t0 = performance.now();
  const r = await ops.runLocal(op, {
    rootFolder: root,
    year: 2026,
    month: 9,
    recursive: true,
  }, {
    path: root,
  });
  console.log(
    JSON.stringify({
      ms: performance.now() - t0,
      scanned: r.totalScanned,
      matched: r.totalMatched,
    }),
  );
  Deno.exit(0);
}

/** The registry's report operation answered by a generator. */
function reportOp<A extends ReportAnswer>(answer: A) {
  const op = REPORT_OPERATIONS.find((o): o is ReportOperationOf<A> => o.answer === answer);
  if (!op) throw new Error(`no report answered by ${answer}`);
  return op;
}

const companies = Number(values.companies);
const root = values.dir ?? join(await Deno.makeTempDir({ prefix: "svc-scan-bench-" }), "tree");

async function buildTree() {
  const portal = createTestPortal({ now: () => new Date("2026-11-20T10:00:00Z") });
  // A handful of real companies' files, replicated under many EIK folders, padded with ledger
  // lines so the tree reaches ~50 KB per company.
  const templates: Map<string, Uint8Array>[] = [];
  for (let i = 0; templates.length < 8 && i < 400; i++) {
    const eik = validEik(30_000_000 + i * 53);
    const period = { eik, year: 2026, month: 9 };
    const vat: PortalFiles = await portal.report(reportOp("vatPortalFiles"), period, {
      sender: null,
    });
    const pay: PortalFiles = await portal.report(reportOp("dec16PortalFiles"), period, {
      sender: null,
    });
    if (vat.status !== "ok" || pay.status !== "ok") continue;
    const m = new Map<string, Uint8Array>();
    for (const f of [...vat.files, ...pay.files]) {
      if (f.name === "VIES.TXT") continue;
      let text: string = f.content;
      if (f.name === "POKUPKI.TXT" || f.name === "PRODAGBI.TXT") {
        const lines = text.split("\r\n").filter(Boolean);
        while (text.length < (f.name === "POKUPKI.TXT" ? 18_000 : 26_000)) {
          text += lines.join("\r\n") + "\r\n";
        }
      }
      m.set(f.name, encodeCp1251(text));
    }
    templates.push(m);
  }
  let bytes = 0;
  for (let c = 0; c < companies; c++) {
    const dir = join(root, `client-${String(c).padStart(5, "0")}`, "2026-09");
    await Deno.mkdir(dir, { recursive: true });
    for (const [name, b] of templates[c % templates.length]!) {
      await Deno.writeFile(join(dir, name), b);
      bytes += b.length;
    }
  }
  return { files: companies * templates[0]!.size, bytes };
}

async function timed(cmd: string, args: string[]) {
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "TIME %e %M", cmd, ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const err = new TextDecoder().decode(out.stderr);
  const m = /TIME ([\d.]+) (\d+)/.exec(err);
  if (!out.success || !m) throw new Error(`${cmd} failed: ${err}`);
  return {
    s: Number(m[1]),
    rssMb: Number(m[2]) / 1024,
    stdout: new TextDecoder().decode(out.stdout),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const t0 = performance.now();
const { files, bytes } = await buildTree();
console.error(
  `tree: ${files} files, ${(bytes / 1e6).toFixed(0)} MB in ${
    ((performance.now() - t0) / 1000).toFixed(0)
  } s`,
);
const cat = () => timed("sh", ["-c", `find '${root}' -type f -print0 | xargs -0 cat > /dev/null`]);
const scan = (typeId: string) =>
  timed(Deno.execPath(), [
    "run",
    "-A",
    new URL(import.meta.url).pathname,
    "--child",
    `${typeId}|${root}`,
  ]);
await cat(); // warm the page cache
const rows: string[] = [];
const catRuns = [];
const scanRuns: Record<string, { s: number; rssMb: number; stdout: string }[]> = {
  dec1_files_scan: [],
  vat_files_scan: [],
};
for (let i = 0; i < 3; i++) {
  catRuns.push(await cat());
  for (const t of Object.keys(scanRuns)) scanRuns[t]!.push(await scan(t));
}
const catS = median(catRuns.map((r) => r.s));
rows.push(
  `| cat (find + xargs cat) | ${catS.toFixed(2)} | 1.00× | ${
    Math.max(...catRuns.map((r) => r.rssMb)).toFixed(0)
  } | |`,
);
for (const [t, runs] of Object.entries(scanRuns)) {
  const s = median(runs.map((r) => r.s));
  const info = JSON.parse(runs[0]!.stdout);
  rows.push(
    `| ${t} (process incl. start-up; scanned ${info.scanned}, matched ${info.matched}) | ${
      s.toFixed(2)
    } | ${(s / catS).toFixed(2)}× | ${Math.max(...runs.map((r) => r.rssMb)).toFixed(0)} | ≤ 2× |`,
  );
}
console.log(`Tree: ${files} files, ${(bytes / 1e6).toFixed(0)} MB; page cache warm; median of 3\n`);
console.log("| reader | wall s | vs cat | peak RSS MB | target |\n|---|---|---|---|---|");
console.log(rows.join("\n"));
if (!values.dir) await Deno.remove(join(root, ".."), { recursive: true });
