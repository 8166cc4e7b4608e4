/**
 * The console's Filings page (`GET /console/filings`, docs/console.md § Filings: "paging for
 * 10,000+ rows without slowing") through the agent's whole HTTP app in process (`app.request`: Host
 * check, CORS, rate limits, the session and the page), on journals of 10,000 and 100,000 rows
 * (scripts/bench/journal_fill.ts), against a baseline measured in the same run and alternating with
 * it: a bare Hono route answering a string of the same size as the page.
 *
 * Pages: the first, a deep one (after 9,000 rows, by the `before` cursor the "Older »" link
 * carries), the big client's first page (`eik=`), and the rare `unknown` state. Each figure is
 * the median over rounds of the per-request time of a burst; prints a markdown table.
 *
 * Usage: `deno run -A scripts/bench_console.ts [--sizes 10000,100000] [--rounds 15]`
 * @module
 */
import { Hono } from "hono";
import { createAgentApp } from "../src/agent/mod.ts";
import { Journal, type JournalQuery } from "../src/agent/filing/mod.ts";
import { silentLogger } from "../src/log.ts";
import { createTestPortal } from "../src/portal/test/mod.ts";
import { BIG, fill } from "./bench/journal_fill.ts";

const args = Deno.args;
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};
const SIZES = arg("--sizes", "10000,100000").split(",").map(Number);
const ROUNDS = Number(arg("--rounds", "15"));
const ORIGIN = "http://127.0.0.1:17470";
const SECRET = "bench-secret-bench-secret-bench-secret-abc";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Per-call µs of each subject: bursts of ~20 ms, subjects alternating round by round. */
async function timeAlternating(fns: (() => Promise<unknown>)[]): Promise<number[]> {
  const per: number[][] = fns.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, fn] of fns.entries()) {
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 20) {
        await fn();
        n++;
      }
      per[k]!.push(((performance.now() - t0) * 1000) / n);
    }
  }
  return per.map(median);
}

/** The cursor after `at` rows of a view (what "Older »" carries after that many rows). */
function cursorAt(j: Journal, q: JournalQuery, at: number): string | undefined {
  let before: string | undefined;
  for (let seen = 0; seen < at;) {
    const p = j.page({ ...q, ...(before ? { before } : {}), limit: Math.min(500, at - seen) });
    seen += p.rows.length;
    before = p.next ?? undefined;
    if (!before) break;
  }
  return before;
}

const us = (x: number) => x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(0)} µs`;

console.log("| journal rows | page | page time | baseline (bare Hono, same bytes) | ratio |");
console.log("|---:|---|---:|---:|---:|");
for (const n of SIZES) {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-console-" });
  const path = `${dir}/journal.sqlite`;
  new Journal(path).close(); // the schema
  fill(path, n);
  const journal = new Journal(path);
  const { app } = createAgentApp({
    clock: { now: () => Date.now() },
    log: silentLogger,
    verifier: { getKey: () => Promise.reject(new Error("unused")), issuer: "x", audience: "x" },
    senders: [],
    portals: { test: createTestPortal({ now: () => new Date() }) },
    openBrowser: () => {},
    port: () => 17470,
    journal,
    rateLimits: { confirmPerMinute: 1e9 },
    console: { dataDir: dir, tokenServiceUrl: "http://127.0.0.1:9", linkSecret: SECRET },
  });
  const link = await (await app.request(`${ORIGIN}/console/links`, {
    method: "POST",
    headers: { "x-svc-console-secret": SECRET },
  })).json();
  const opened = await app.request(link.url, { headers: { "sec-fetch-site": "none" } });
  const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
  const headers = { cookie, "sec-fetch-site": "same-origin" };
  const deep = cursorAt(journal, {}, 9_000);
  const pages: [string, string][] = [
    ["first", ""],
    ["after 9,000 rows", `?before=${encodeURIComponent(deep!)}`],
    ["big client, first", `?eik=${BIG}`],
    ["state unknown, first", "?state=unknown"],
  ];
  for (const [name, q] of pages) {
    const url = `${ORIGIN}/console/filings${q}`;
    const res = await app.request(url, { headers });
    if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
    const body = await res.text();
    if (!/<table\s+id="filings"\s*>/.test(body)) throw new Error(`${name}: not the page`);
    const bare = new Hono().get("/", (c) => c.html(body));
    const [page, base] = await timeAlternating([
      async () => await (await app.request(url, { headers })).text(),
      async () => await (await bare.request("http://x/")).text(),
    ]);
    console.log(
      `| ${n.toLocaleString("en")} | ${name} (${(body.length / 1024).toFixed(0)} KiB) | ${
        us(page!)
      } | ${us(base!)} | ${(page! / base!).toFixed(1)}× |`,
    );
  }
  journal.close();
  await Deno.remove(dir, { recursive: true });
}
