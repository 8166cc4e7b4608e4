/**
 * HTTP benchmarks (BENCHMARKS.md § Token issuance), each in one run against a bare Hono route on
 * the same server: token issuance (`POST /api/v1/tokens/issue`) and an agent report operation
 * (`debt_payments` in a confirmed batch, a fresh 5-second token per request). Issuance is also
 * measured against `POST /bare-sign`, the bare route plus one token signature on the same server
 * (target: issuance ≥ 70 % of it, the key and policy coming from the issuance cache). Load: wrk
 * (Debian package), 1 thread, 32 connections. Prints a markdown table.
 *
 * The issuance routes are measured in interleaved rounds (bare, bare + signature, the same with
 * issuance's HTTP shape, issuance; `--rounds` times, `--seconds` each) and the table shows each route's median round and
 * the median of the rounds' ratios with their range: on a shared 2-core machine one run of a
 * route varies by ±15 %, and a drift of the machine then falls on all three routes alike.
 *
 *   deno run -A scripts/bench_http.ts [--seconds 2] [--rounds 9] [--connections 32]
 *     [--issuance-only]
 *
 * The issuance server counts the request log as deployed; `SVC_BENCH_REQUEST_LOG=0` turns it
 * off, for a comparison of runs made back to back (BENCHMARKS.md § The profile). Issuance
 * without the request log is also measured in the same rounds (the same server, requests with
 * `X-Bench-No-Log`), and the two compared round by round, in throughput and in the CPU time the
 * server's main thread (the one answering requests) spends per token, read from
 * `/proc/<pid>/task/<pid>/stat` (Linux; counted until 1.2 s after each run, so that the request
 * log's last flush is included): CPU time per token stays comparable on a loaded machine, where
 * throughput follows the neighbours. `SVC_BENCH_DATABASE_URL=postgres://…`
 * puts the issuance server's token store on PostgreSQL (a scratch database: keys and rows are
 * added to it).
 */
import { parseArgs } from "node:util";
import { TextLineStream } from "../tests/_helpers/lines.ts";
import { createApiKey, loadKeyRing, openTokenStore, sqliteTokenStore } from "../src/token/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "9" },
    connections: { type: "string", default: "32" },
    "issuance-only": { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
/** The token store of the issuance server on PostgreSQL (a scratch database), else SQLite. */
const DATABASE_URL = Deno.env.get("SVC_BENCH_DATABASE_URL");
const ROUNDS = Number(values.rounds);
const CONN = Number(values.connections);
const root = new URL("../", import.meta.url).pathname;

interface WrkResult {
  rps: number;
  p50: string;
  p99: string;
  non2xx: number;
  /** Requests answered in the run. */
  requests: number;
  /** CPU time of the server's main thread per request, µs (issuance routes; NaN elsewhere). */
  cpuUs: number;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time the server's main thread (the one answering requests) has used so far.
 * @param pid the server process
 * @returns ms (resolution 10 ms), or NaN where /proc/<pid>/task/<pid>/stat does not exist
 */
async function mainThreadCpuMs(pid: number): Promise<number> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/task/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // from field 3 (state) on
    return ((Number(f[11]) + Number(f[12])) * 1000) / USER_HZ; // utime + stime (fields 14, 15)
  } catch {
    return NaN;
  }
}

/**
 * One wrk run, with the server main thread's CPU time per request counted until 1.2 s after
 * it (the request log's flush of the run's last second falls on the run that caused it).
 */
async function wrkCpu(pid: number, url: string, lua: string): Promise<WrkResult> {
  const before = await mainThreadCpuMs(pid);
  const r = await wrk(url, lua);
  await new Promise((ok) => setTimeout(ok, 1200));
  return { ...r, cpuUs: ((await mainThreadCpuMs(pid) - before) * 1000) / r.requests };
}

async function wrk(url: string, lua: string, seconds = SECONDS): Promise<WrkResult> {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(script, lua);
  const out = await new Deno.Command("wrk", {
    args: ["-t1", `-c${CONN}`, `-d${seconds}s`, "--latency", "-s", script, url],
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0);
  const p50 = /\s50%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const p99 = /\s99%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  return { rps, p50, p99, non2xx, requests, cpuUs: NaN };
}

async function startServer(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}scripts/bench_server.ts`, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream())
    .getReader();
  let port = 0;
  const confirms: string[] = [];
  while (!port) {
    const { value, done } = await lines.read();
    if (done) throw new Error("bench server exited");
    const m = /^READY (\d+)/.exec(value);
    if (m) port = Number(m[1]);
  }
  (async () => {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      const m = /^CONFIRM (\S+)/.exec(value);
      if (m) confirms.push(m[1]!);
    }
  })();
  return { child, port, confirms };
}

const bareLua = `wrk.method = "POST"; wrk.body = '{"typeId":"vat","eik":"121212121"}'
wrk.headers["Content-Type"] = "application/json"`;

const dir = await Deno.makeTempDir({ prefix: "svc-bench-" });
const rows: string[] = [];
const cpuLines: string[] = [];

// 1. Token issuance.
{
  const store = await openTokenStore({ dataDir: dir, databaseUrl: DATABASE_URL });
  const { secret } = await createApiKey(store, { mode: "test", now: Date.now() });
  await store.close();
  const s = await startServer(["token", dir]);
  const base = `http://127.0.0.1:${s.port}`;
  const issueLua = `${bareLua}\nwrk.headers["Authorization"] = "Bearer ${secret}"`;
  const noLogLua = `${issueLua}\nwrk.headers["X-Bench-No-Log"] = "1"`;
  const routes = {
    bare: () => wrk(`${base}/bare`, bareLua),
    bareSign: () => wrk(`${base}/bare-sign`, bareLua),
    bareSignHeaders: () => wrk(`${base}/bare-sign-headers`, issueLua),
    issue: () => wrkCpu(s.child.pid, `${base}/api/v1/tokens/issue`, issueLua),
    issueNoLog: () => wrkCpu(s.child.pid, `${base}/api/v1/tokens/issue`, noLogLua),
  };
  for (const url of ["/bare", "/bare-sign", "/bare-sign-headers", "/api/v1/tokens/issue"]) {
    await wrk(`${base}${url}`, url === "/bare" ? bareLua : issueLua, 1); // warm-up
  }
  await wrk(`${base}/api/v1/tokens/issue`, noLogLua, 1);
  const rounds: Record<keyof typeof routes, WrkResult>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    rounds.push({
      bare: await routes.bare(),
      bareSign: await routes.bareSign(),
      bareSignHeaders: await routes.bareSignHeaders(),
      issue: await routes.issue(),
      issueNoLog: await routes.issueNoLog(),
    });
  }
  const t = await (await fetch(`${base}/_timings`)).json();
  const total = t.keyLookupUs + t.policyUs + t.signingUs;
  s.child.kill();
  await s.child.status;
  const refused = rounds.reduce((n, r) => n + r.issue.non2xx + r.issueNoLog.non2xx, 0);
  if (refused > 0) throw new Error(`issuance: ${refused} non-2xx answers: result invalid`);
  const median = <T>(xs: T[], by: (x: T) => number) =>
    [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
  const bare = median(rounds.map((r) => r.bare), (r) => r.rps);
  const bareSign = median(rounds.map((r) => r.bareSign), (r) => r.rps);
  const bareSignHeaders = median(rounds.map((r) => r.bareSignHeaders), (r) => r.rps);
  const issue = median(rounds.map((r) => r.issue), (r) => r.rps);
  const issueNoLog = median(rounds.map((r) => r.issueNoLog), (r) => r.rps);
  const ratio = (key: keyof typeof routes, of: keyof typeof routes) =>
    rounds.map((r) => 100 * r[key].rps / r[of].rps).sort((a, b) => a - b);
  const shown = (xs: number[]) =>
    `${xs[Math.floor(xs.length / 2)]!.toFixed(1)} % (${xs[0]!.toFixed(0)}–${
      xs.at(-1)!.toFixed(0)
    })`;
  rows.push(
    `| bare Hono route (POST /bare) | ${
      bare.rps.toFixed(0)
    } | ${bare.p50} | ${bare.p99} | 100 % | |`,
    `| bare route + one signature (POST /bare-sign) | ${
      bareSign.rps.toFixed(0)
    } | ${bareSign.p50} | ${bareSign.p99} | ${shown(ratio("bareSign", "bare"))} | |`,
    `| the same with issuance's HTTP shape (POST /bare-sign-headers: Authorization read, 7 answer headers) | ${
      bareSignHeaders.rps.toFixed(0)
    } | ${bareSignHeaders.p50} | ${bareSignHeaders.p99} | ${
      shown(ratio("bareSignHeaders", "bare"))
    } | |`,
    `| token issuance | ${issue.rps.toFixed(0)} | ${issue.p50} | ${issue.p99} | ${
      shown(ratio("issue", "bare"))
    } | ≥ 25 % |`,
    `| issuance's HTTP shape vs bare route + one signature | | | | ${
      shown(ratio("bareSignHeaders", "bareSign"))
    } | |`,
    `| token issuance vs bare route + one signature | | | | **${
      shown(ratio("issue", "bareSign"))
    }** | ≥ 70 % |`,
    `| token issuance without the request log (same server, X-Bench-No-Log) | ${
      issueNoLog.rps.toFixed(0)
    } | ${issueNoLog.p50} | ${issueNoLog.p99} | ${shown(ratio("issueNoLog", "bare"))} | |`,
    `| token issuance without the request log vs bare route + one signature | | | | ${
      shown(ratio("issueNoLog", "bareSign"))
    } | |`,
    `| token issuance with the request log vs without it | | | | ${
      shown(ratio("issue", "issueNoLog"))
    } | |`,
  );
  // Per round: the main thread's CPU time per token, and p99, with and without the log.
  const per = (key: "issue" | "issueNoLog", f: (r: WrkResult) => number) =>
    rounds.map((r) => f(r[key])).sort((a, b) => a - b);
  const ms = (t: string) =>
    Number.parseFloat(t) * (t.endsWith("us") ? 0.001 : t.endsWith("ms") ? 1 : 1000);
  const med = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
  const cpuRatio = rounds.map((r) => 100 * r.issue.cpuUs / r.issueNoLog.cpuUs).sort((a, b) =>
    a - b
  );
  cpuLines.push(
    `main thread CPU per token, median of rounds (range): with the request log ${
      med(per("issue", (r) => r.cpuUs)).toFixed(1)
    } µs, without ${med(per("issueNoLog", (r) => r.cpuUs)).toFixed(1)} µs; with ÷ without ${
      shown(cpuRatio)
    }`,
    `p99, median of rounds: with the request log ${
      med(per("issue", (r) => ms(r.p99))).toFixed(2)
    } ms, without ${med(per("issueNoLog", (r) => ms(r.p99))).toFixed(2)} ms`,
  );
  const n = t.requests; // incl. the warm-up
  console.error(
    `issuance time split: key lookup ${(100 * t.keyLookupUs / total).toFixed(0)} %, policy ${
      (100 * t.policyUs / total).toFixed(0)
    } %, signing ${(100 * t.signingUs / total).toFixed(0)} % (${(t.keyLookupUs / n).toFixed(1)} / ${
      (t.policyUs / n).toFixed(1)
    } / ${(t.signingUs / n).toFixed(1)} µs per request)`,
  );
}

// 2. Agent report operation (fresh token per request); skipped with --issuance-only.
if (!values["issuance-only"]) {
  const tsDir = `${dir}/ts`;
  const ts = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}main.ts`, "token-service", "--port", "0", "--data-dir", tsDir],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const tsLines = ts.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream())
    .getReader();
  let tsUrl = "";
  while (!tsUrl) {
    tsUrl = /^Token service: (\S+)/.exec((await tsLines.read()).value ?? "")?.[1] ?? "";
  }
  const s = await startServer(["agent", dir, tsUrl]);
  const base = `http://127.0.0.1:${s.port}`;
  const store = sqliteTokenStore(`${tsDir}/token-service.sqlite`);
  const ring = await loadKeyRing({ store }, Date.now());
  const batch = crypto.randomUUID();
  const mint = async (n: number, typeId = "debt_payments") => {
    const now = Math.floor(Date.now() / 1000);
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      out.push(
        await ring.sign(
          {
            iss: tsUrl,
            aud: "svc-agent",
            sub: "bench",
            jti: crypto.randomUUID(),
            typeId,
            ...(typeId === "debt_payments" ? { eik: "121212121" } : {}),
            mode: "test",
            intg: "bench",
          },
          now,
          now + 5,
        ),
      );
    }
    return out;
  };
  // Confirm the batch once through the page.
  const [first] = await mint(1);
  const pending = fetch(`${base}/api/v1/operations/debt_payments`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${first}`,
      "content-type": "application/json",
      "x-svc-batch-id": batch,
    },
    body: '{"eik":"121212121","year":2025}',
  });
  while (s.confirms.length === 0) await new Promise((r) => setTimeout(r, 20));
  const page = await (await fetch(s.confirms[0]!)).text();
  const nonce = /name="nonce" value="([^"]+)"/.exec(page)![1]!;
  await fetch(`${s.confirms[0]}/decision`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      seen: /name="seen" id="seen" value="(\d+)"/.exec(page)![1]!,
      nonce,
      decision: "confirm",
      senderId: "test-sender",
    }),
  });
  if ((await pending).status !== 200) throw new Error("confirmation failed");
  await wrk(`${base}/bare`, bareLua, 1);
  const bare = await wrk(`${base}/bare`, bareLua, 3);
  const agentSeconds = 3;
  rows.push(
    `| bare Hono route (same agent server) | ${
      bare.rps.toFixed(0)
    } | ${bare.p50} | ${bare.p99} | 100 % | |`,
  );
  const cases = [
    {
      typeId: "debt_payments",
      body: '{"eik":"121212121","year":2025}',
      what: "66 rows, ~20 KB JSON, confirmed batch",
    },
    { typeId: "debt_payments_types", body: "{}", what: "20 rows, no sender" },
  ];
  for (const k of cases) {
    const tokens = await mint(60_000, k.typeId);
    const tokFile = await Deno.makeTempFile();
    await Deno.writeTextFile(tokFile, tokens.join("\n") + "\n");
    const agentLua = `local toks = {}
for line in io.lines("${tokFile}") do toks[#toks + 1] = line end
local i = 0
request = function()
  i = i + 1
  return wrk.format("POST", "/api/v1/operations/${k.typeId}", {["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. toks[((i - 1) % #toks) + 1], ["X-Svc-Batch-Id"] = "${batch}"},
    '${k.body}')
end`;
    const op = await wrk(`${base}/api/v1/operations/${k.typeId}`, agentLua, agentSeconds);
    if (op.non2xx > 0 || op.rps * agentSeconds > tokens.length) {
      throw new Error(
        `${k.typeId}: ${op.non2xx} non-2xx answers (tokens reused or expired): result invalid`,
      );
    }
    rows.push(
      `| agent ${k.typeId} (${k.what}; JWT verify, jti, schema, test portal) | ${
        op.rps.toFixed(0)
      } | ${op.p50} | ${op.p99} | ${(100 * op.rps / bare.rps).toFixed(1)} % | ≥ 15 % |`,
    );
  }
  s.child.kill();
  ts.kill();
  await s.child.status;
  await ts.status;
  await store.close();
}

// The cryptographic ceilings in this process, for comparison with the targets.
{
  const { generateKeyPair, SignJWT, jwtVerify } = await import("jose");
  const { generateKeyPairSync, sign } = await import("node:crypto");
  const { privateKey, publicKey } = await generateKeyPair("EdDSA");
  const tok = await new SignJWT({ typeId: "x" }).setProtectedHeader({ alg: "EdDSA" })
    .setIssuedAt().setExpirationTime("5s").sign(privateKey);
  const n = 5000;
  let t = performance.now();
  await Promise.all(Array.from({ length: n }, () => jwtVerify(tok, publicKey)));
  const verifyRate = n / ((performance.now() - t) / 1000);
  const k = generateKeyPairSync("ed25519").privateKey;
  const data = new TextEncoder().encode("x".repeat(300));
  t = performance.now();
  for (let i = 0; i < n; i++) sign(null, data, k);
  const signRate = n / ((performance.now() - t) / 1000);
  rows.push(
    `| ceiling: Ed25519 JWT verification alone (jose, ${n} concurrent, one process) | ${
      verifyRate.toFixed(0)
    } | | | | |`,
    `| ceiling: Ed25519 signature alone (node:crypto, one process) | ${
      signRate.toFixed(0)
    } | | | | |`,
  );
}

console.log(
  `wrk -t1 -c${CONN}, loopback, same server; issuance rows: median of ${ROUNDS} interleaved rounds of ${SECONDS} s (ratio: median and range of the rounds' ratios); agent rows: one 3 s run (tokens live 5 s)\n`,
);
console.log("| route | req/s | p50 | p99 | vs bare | target |\n|---|---|---|---|---|---|");
console.log(rows.join("\n"));
if (cpuLines.length) console.log(`\n${cpuLines.join("\n")}`);
await Deno.remove(dir, { recursive: true }).catch(() => {});
