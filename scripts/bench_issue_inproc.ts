/**
 * Token issuance in process (BENCHMARKS.md § The profile): the token app's `fetch` called
 * directly with a `Request` (no socket, no wrk), so what a token costs the JavaScript side is
 * measured to a few tenths of a microsecond, where the HTTP benchmark (bench_http.ts) moves by
 * several percent between runs. Three subjects on one SQLite file, alternating in rounds of
 * `--n` requests: the baseline, a bare Hono route that parses the same body and signs the same
 * claims with the same key ring (what issuance cannot do without); issuance without the request
 * log; issuance with it (started as the service starts it: written by its writer thread). Prints
 * the median µs per token of each and its ratio to the baseline.
 *
 *   deno run -A scripts/bench_issue_inproc.ts [--n 20000] [--rounds 7]
 * @module
 */
import { Hono } from "hono";
import { parseArgs } from "node:util";
import { createApiKey, loadKeyRing, openTokenStore, RequestLogRecorder } from "../src/token/mod.ts";
import { bareSign, benchTokenApp } from "./bench/token_app.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "20000" },
    rounds: { type: "string", default: "7" },
  },
});
const N = Number(values.n), ROUNDS = Number(values.rounds);

const dir = await Deno.makeTempDir({ prefix: "svc-bench-issue-" });
const store = await openTokenStore({ dataDir: dir });
const { secret } = await createApiKey(store, { mode: "test", now: Date.now() });
const ring = await loadKeyRing({ store }, Date.now());
const requestLog = new RequestLogRecorder({ store, now: () => Date.now(), flushMs: 1000 });
requestLog.start();
const tokenApp = (log: RequestLogRecorder | undefined) => benchTokenApp(store, ring, log);
const bare = new Hono().post(
  "/api/v1/tokens/issue",
  async (c) => c.json(await bareSign(ring, await c.req.json())),
);
const subjects: [string, { fetch: (r: Request) => Response | Promise<Response> }][] = [
  ["bare Hono route + one signature (baseline)", bare],
  ["issuance without the request log", tokenApp(undefined)],
  ["issuance with the request log", tokenApp(requestLog)],
];

const body = JSON.stringify({ typeId: "vat", eik: "121212121" });
const request = () =>
  new Request("http://127.0.0.1/api/v1/tokens/issue", {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "content-length": String(body.length),
      authorization: `Bearer ${secret}`,
    },
  });

/** `n` requests one after another; µs per request. */
async function run(app: (typeof subjects)[number][1], n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await app.fetch(request());
    if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
    await res.text();
  }
  return ((performance.now() - t0) * 1000) / n;
}

for (const [, app] of subjects) await run(app, N); // warm-up (the JIT)
const times: number[][] = subjects.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, [, app]] of subjects.entries()) {
    times[k]!.push(await run(app, N));
    await requestLog.flush(); // each round's rows written before the next subject
  }
}
await requestLog.stop();
await store.close();
await Deno.remove(dir, { recursive: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(times[0]!);
console.log(`\nin process, ${ROUNDS} rounds of ${N} requests each, alternating\n`);
console.log("| subject | µs per token (median; range) | ÷ baseline |");
console.log("|---|---|---|");
for (const [k, [name]] of subjects.entries()) {
  const xs = times[k]!;
  const m = median(xs);
  console.log(
    `| ${name} | ${m.toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}) | ${
      (m / base).toFixed(3)
    } |`,
  );
}
const withLog = median(times[2]!), without = median(times[1]!);
const signed = (x: number, digits: number) => `${x < 0 ? "−" : "+"}${Math.abs(x).toFixed(digits)}`;
console.log(
  `\nrequest log: ${signed(withLog - without, 2)} µs per token (${
    signed(100 * (withLog / without - 1), 1)
  } %)`,
);
