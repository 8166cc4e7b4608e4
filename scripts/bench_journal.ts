/**
 * The console's journal view (`Journal.page`, docs/journal.md § Queries) on large journals:
 * fills a journal file with 10,000 and 100,000 realistic rows (one transaction through
 * node:sqlite, after `new Journal()` made the schema), then times, in the same run
 * and alternating with it, a baseline: a bare `SELECT * FROM filings LIMIT 50` prepared and run
 * through node:sqlite on the same file. For each view (no filter, a state, one big client's
 * EIK, EIK + state, period + state, the rare `unknown` state) it measures the first page, a
 * deep one (after 9,000 rows of the view, or its last full page when the view is smaller) and,
 * in a view of more than 18,000 rows, the last page: `Journal.page()` (rows mapped to records,
 * and the `total`), its SELECT alone, and for contrast the same rows read with OFFSET (checked
 * to be the same rows). Also the `total` alone against a plain COUNT(*), `integrators(since 30
 * days)` and `exportRows` of one client.
 *
 * Every figure is the median over rounds of the per-call time of a burst of calls (about 3 ms
 * each); baseline and subjects alternate round by round so machine noise hits all alike. Every
 * statement is prepared on each call, as `Journal` does. Prints markdown tables.
 *
 * Usage: `deno run -A scripts/bench_journal.ts [--sizes 10000,100000] [--rounds 21]`
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { Journal, type JournalQuery } from "../src/agent/filing/mod.ts";
import { checkQuery, countSql, pageSql } from "../src/agent/filing/journal_query.ts";
import { BIG, fill } from "./bench/journal_fill.ts";

const args = Deno.args;
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};
const SIZES = arg("--sizes", "10000,100000").split(",").map(Number);
const ROUNDS = Number(arg("--rounds", "21"));
const PAGE = 50;
const DEEP = 9_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Median per-call µs of each function, alternating them round by round: a burst of calls each
 * (as many as take about 3 ms, at least one).
 * @returns µs per call, in the order given
 */
function timeAlternating<const T extends readonly (() => unknown)[]>(
  fns: T,
): { [K in keyof T]: number } {
  const bursts = fns.map((f) => {
    f(); // warm-up
    const t = performance.now();
    for (let i = 0; i < 3; i++) f();
    return Math.max(1, Math.min(200, Math.ceil(3 / ((performance.now() - t) / 3))));
  });
  const samples = fns.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    fns.forEach((f, k) => {
      const burst = bursts[k]!;
      const t = performance.now();
      for (let i = 0; i < burst; i++) f();
      samples[k]!.push((performance.now() - t) * 1000 / burst);
    });
  }
  return samples.map(median) as { [K in keyof T]: number }; // one time per function
}

const us = (x: number) => x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(0)} µs`;
const ratio = (x: number, base: number) => `${(x / base).toFixed(1)}×`;

/** The cursor `at` rows deep into a view, by walking its pages (what a person clicking does). */
function cursorAt(j: Journal, q: JournalQuery, at: number): string | undefined {
  let before: string | undefined;
  for (let seen = 0; seen < at;) {
    const p = j.page({ ...q, before, limit: Math.min(500, at - seen) });
    seen += p.rows.length;
    if (p.next === null) throw new Error(`the view ends before ${at} rows`);
    before = p.next;
  }
  return before;
}

/** The views measured; the period is the month of the journal's middle row. */
const VIEWS: [string, JournalQuery][] = [
  ["no filter", {}],
  ["state = filed", { state: "filed" }],
  ["eik = the big client (10 %)", { eik: BIG }],
  ["eik = the big client, state = filed", { eik: BIG, state: "filed" }],
  ["period = a month, state = refused", { state: "refused" }],
  ["state = unknown (1.5 %)", { state: "unknown" }],
];

for (const n of SIZES) {
  const dir = await Deno.makeTempDir({ prefix: "bench-journal-" });
  try {
    const path = `${dir}/journal.sqlite`;
    new Journal(path).close();
    let t = performance.now();
    fill(path, n);
    const fillMs = performance.now() - t;
    const j = new Journal(path);
    const raw = new DatabaseSync(path);
    const bare = () => raw.prepare("SELECT * FROM filings LIMIT 50").all();
    const bytes = Deno.statSync(path).size;
    const middle = raw.prepare("SELECT period FROM filings ORDER BY created_at LIMIT 1 OFFSET ?")
      .get(Math.floor(n / 2)) as { period: string };
    const views = VIEWS.map(([name, q]): [string, JournalQuery] =>
      name.startsWith("period")
        ? [`period = ${middle.period}, state = refused`, { ...q, period: middle.period }]
        : [name, q]
    );
    console.log(
      `\n### ${n.toLocaleString("en")} rows (${(bytes / 1e6).toFixed(1)} MB file, filled in ${
        (fillMs / 1000).toFixed(1)
      } s), median of ${ROUNDS} rounds\n`,
    );
    console.log(
      "| view | matching rows | page | `page()` (rows + total) | vs bare | its SELECT alone | vs bare | same rows by OFFSET | vs bare |",
    );
    console.log("|---|---:|---|---:|---:|---:|---:|---:|---:|");
    for (const [name, q] of views) {
      const total = j.page({ ...q, limit: 1 }).total;
      // Page 1, the page after 9,000 rows (or the last full one), and the last page of a big view.
      const positions = [...new Set([0, Math.max(0, Math.min(DEEP, total - PAGE))])];
      if (total > 2 * DEEP) positions.push(total - PAGE);
      for (const at of positions) {
        const before = at > 0 ? cursorAt(j, q, at) : undefined;
        const select = pageSql(checkQuery({ ...q, before }));
        // The same rows by OFFSET: the view's statement (same index), LIMIT 50 OFFSET at.
        const every = pageSql(checkQuery(q), false);
        const offsetSql = `${every.sql} LIMIT ${PAGE} OFFSET ?`;
        const got = j.page({ ...q, before }).rows.map((r) => r.id).join();
        const viaOffset = raw.prepare(offsetSql).all(...every.params, at) as { id: string }[];
        if (got !== viaOffset.map((r) => r.id).join()) {
          throw new Error(`${name}: the page after ${at} rows differs from OFFSET ${at}`);
        }
        const [b, page, alone, offset] = timeAlternating([
          bare,
          () => j.page({ ...q, before }),
          () => raw.prepare(select.sql).all(...select.params),
          () => raw.prepare(offsetSql).all(...every.params, at),
        ]);
        console.log(
          `| ${at === 0 ? name : ""} | ${at === 0 ? total.toLocaleString("en") : ""} | ${
            at === 0 ? "1" : `after ${at.toLocaleString("en")}`
          } | ${us(page)} | ${ratio(page, b)} | ${us(alone)} | ${ratio(alone, b)} | ${
            us(offset)
          } | ${ratio(offset, b)} |`,
        );
      }
    }
    // The total alone (the tally; an index), what COUNT(*) would cost, and the status page.
    const tally = countSql(checkQuery({ state: "filed" }));
    const byIndex = countSql(checkQuery({ eik: BIG, state: "filed" }));
    const since = new Date(
      Date.parse(
        (raw.prepare("SELECT MAX(created_at) AS m FROM filings").get() as { m: string }).m,
      ) -
        30 * 86_400_000,
    );
    const [b, cTally, cIndex, cAll, cFiled, ig] = timeAlternating([
      bare,
      () => raw.prepare(tally.sql).get(...tally.params),
      () => raw.prepare(byIndex.sql).get(...byIndex.params),
      () => raw.prepare("SELECT COUNT(*) AS n FROM filings").get(),
      () => raw.prepare("SELECT COUNT(*) AS n FROM filings WHERE state = 'filed'").get(),
      () => j.integrators(since),
    ]);
    t = performance.now();
    const exported = j.exportRows({ eik: BIG }).length;
    const exportMs = performance.now() - t;
    console.log(`\n| call | time | vs bare LIMIT 50 |`);
    console.log("|---|---:|---:|");
    console.log(`| bare \`SELECT * FROM filings LIMIT 50\` (baseline) | ${us(b)} | 1.0× |`);
    console.log(`| \`total\` of state = filed (the tally) | ${us(cTally)} | ${ratio(cTally, b)} |`);
    console.log(
      `| \`total\` of eik = the big client, state = filed (its index alone) | ${us(cIndex)} | ${
        ratio(cIndex, b)
      } |`,
    );
    console.log(`| for contrast: \`COUNT(*)\` of every row | ${us(cAll)} | ${ratio(cAll, b)} |`);
    console.log(
      `| for contrast: \`COUNT(*) … WHERE state = 'filed'\` | ${us(cFiled)} | ${
        ratio(cFiled, b)
      } |`,
    );
    console.log(`| integrators(since 30 days) | ${us(ig)} | ${ratio(ig, b)} |`);
    console.log(
      `| exportRows(eik = the big client): ${exported.toLocaleString("en")} rows, once | ${
        us(exportMs * 1000)
      } | — |`,
    );
    raw.close();
    j.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
