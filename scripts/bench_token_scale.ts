/**
 * Token issuance at scale: 2 token-service instances (separate processes) sharing one
 * PostgreSQL database against 1 instance on SQLite (and, for reference, 1 instance on
 * PostgreSQL). One wrk process drives all instances of a setup round-robin (wrk threads are
 * pinned to instances in `setup()`), so requests/s and p99 come from one latency histogram.
 * The issuance time split (key lookup incl. contract state, policy, signing) comes from the
 * app's `timings` accumulator in each instance.
 *
 * The key is a live key of an integrator with a contract in force (`--phase contract`, the
 * default; phase 3, the billed path: key lookup + contract state + signing + usage counter, no
 * EIK claim), or one without a contract (`--phase pre-contract`; phase 1: the EIK check, for an
 * EIK already in the key's set). Both come from each instance's issuance cache in the steady
 * state (src/token/store/issue_cache.ts); the hit and miss counts are printed.
 *
 * Each instance runs as deployed: both rate-limit budgets counted (in memory on SQLite, leased
 * from the shared rows on PostgreSQL, src/token/edge/rate_counters.ts), set high enough that the load
 * is never refused; the leases' round trips are printed (a handful per window, not one per token).
 *
 * Every setup ends with a revocation under load (docs/token-service.md § Issuance cache): while wrk
 * drives the load key, a prober on each instance issues with a second key of the same integrator
 * back to back; the second key is revoked through instance 1's admin API, and the delay from
 * sending the revocation to each instance's first 401 is printed (no 200 may follow it).
 *
 *   eval "$(bash scripts/ci_postgres.sh)"
 *   deno run -A scripts/bench_token_scale.ts [--duration 10] [--connections 64]
 *     [--setups sqlite1,pg2,pg1] [--phase contract|pre-contract] [--database-url postgres://…]
 * @module
 */
import { parseArgs } from "node:util";
import postgres from "postgres";
import { systemClock } from "../src/clock.ts";
import {
  approveApplication,
  createIntegrator,
  createKeyFor,
  createTokenService,
  type IssueTimings,
  openTokenStore,
  submitApplication,
} from "../src/token/mod.ts";

const ADMIN = "bench-admin-token-0123456789abcdefghijklmnopqrstuv";

const args = parseArgs({
  args: Deno.args,
  options: {
    serve: { type: "boolean" },
    db: { type: "string" },
    dir: { type: "string" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    setups: { type: "string", default: "sqlite1,pg2,pg1" },
    phase: { type: "string", default: "contract" },
    "database-url": { type: "string" },
  },
}).values;

if (args.serve) await serve();
else await main();

/** Server mode: one token-service instance with a timings endpoint. */
async function serve() {
  const opened = await openTokenStore({ dataDir: args.dir ?? ".", databaseUrl: args.db });
  // The rate-limit leases' round trips are counted (the store is otherwise used as it is).
  let leases = 0;
  const store = new Proxy(opened, {
    get(target, p, receiver) {
      if (p === "hitRateWindows") {
        return (...a: Parameters<typeof opened.hitRateWindows>) => {
          leases++;
          return target.hitRateWindows(...a);
        };
      }
      const v = Reflect.get(target, p, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const timings: IssueTimings = { keyLookupUs: 0, policyUs: 0, signingUs: 0 };
  let requests = 0;
  let cache0 = store.issueCacheStats();
  const svc = await createTokenService({
    store,
    clock: systemClock,
    config: { issuer: "bench", audience: "svc-agent", minAgentVersion: null },
    timings,
    adminToken: ADMIN,
    // As deployed (src/cli/token_servers.ts): both budgets counted, shared through the database on
    // PostgreSQL; set high enough that the load is never refused.
    rateLimits: { windowSeconds: 10, perKey: 1e9, perIntegrator: 1e9 },
    sharedRateCounters: args.db !== undefined,
  });
  svc.start();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/__bench/timings") {
      const c = store.issueCacheStats();
      return Response.json({
        ...timings,
        requests,
        leases,
        cache: { hits: c.hits - cache0.hits, misses: c.misses - cache0.misses },
      });
    }
    if (path === "/__bench/reset") {
      timings.keyLookupUs = timings.policyUs = timings.signingUs = 0;
      cache0 = store.issueCacheStats();
      requests = leases = 0;
      return new Response("ok");
    }
    requests++;
    return svc.app.fetch(req);
  });
  console.log(`READY ${server.addr.port}`);
  Deno.addSignalListener("SIGTERM", async () => {
    await svc.stop();
    await server.shutdown();
    await store.close();
    Deno.exit(0);
  });
}

interface Instance {
  port: number;
  proc: Deno.ChildProcess;
}

async function startInstance(db: { url?: string; dir?: string }): Promise<Instance> {
  const a = ["run", "-A", import.meta.filename!, "--serve"];
  if (db.url) a.push("--db", db.url);
  if (db.dir) a.push("--dir", db.dir);
  const proc = new Deno.Command(Deno.execPath(), { args: a, stdout: "piped", stderr: "inherit" })
    .spawn();
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (!/READY (\d+)/.test(buf)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`instance exited: ${buf}`);
    buf += value;
  }
  reader.releaseLock();
  proc.stdout.cancel().catch(() => {});
  return { port: Number(/READY (\d+)/.exec(buf)![1]), proc };
}

/** The load key's and the probe key's secrets, and the probe key's id. */
async function seed(db: { url?: string; dir?: string }) {
  const store = await openTokenStore({ dataDir: db.dir ?? ".", databaseUrl: db.url });
  const d = { store, clock: systemClock };
  const i = await createIntegrator(d, {
    name: "Bench Ltd",
    email: null,
    locale: "en",
    allowedOrigins: [],
  });
  if (args.phase !== "pre-contract") {
    const app = await submitApplication(d, i.id, {
      company: "Bench Ltd",
      contactEmail: "bench@example.test",
      intendedUse: "benchmark",
    });
    await approveApplication(d, app.id, { endsAt: null });
  }
  const key = (label: string) =>
    createKeyFor(d, { integratorId: i.id, mode: "live", label, allowedEiks: null });
  const load = await key("bench");
  const probe = await key("probe");
  await store.close();
  return { secret: load.secret, probe: probe.secret, probeId: probe.key.id };
}

function wrkScript(ports: number[], key: string): string {
  return `
local ports = {${ports.join(",")}}
local n = 0
function setup(thread)
  n = n + 1
  thread.addr = wrk.lookup("127.0.0.1", tostring(ports[((n - 1) % #ports) + 1]))[1]
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${key}"
wrk.body = '{"typeId":"debt_payments","eik":"121212121"}'
`;
}

async function wrk(ports: number[], key: string, seconds: number, conns: number) {
  const threads = Math.min(conns, Math.max(2, ports.length));
  const lua = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(lua, wrkScript(ports, key));
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${threads}`,
      `-c${conns}`,
      `-d${seconds}s`,
      "--latency",
      "-s",
      lua,
      `http://127.0.0.1:${ports[0]}/api/v1/tokens/issue`,
    ],
  }).output();
  await Deno.remove(lua);
  const text = new TextDecoder().decode(out.stdout);
  const ms = (re: RegExp) => {
    const m = re.exec(text);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
  };
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    p50: ms(/\s50%\s+([\d.]+)(us|ms|s)/),
    p99: ms(/\s99%\s+([\d.]+)(us|ms|s)/),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0),
    errors: /Socket errors:.*/.exec(text)?.[0] ?? "",
    raw: text,
  };
}

/** One issuance with `key` on the instance at `port`. @returns the status */
async function issue(port: number, key: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v1/tokens/issue`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: '{"typeId":"debt_payments","eik":"121212121"}',
  });
  await r.body?.cancel();
  return r.status;
}

/**
 * Revoke the probe key through the first instance while wrk loads every instance; each
 * instance's prober issues with the probe key back to back.
 * @returns how long the revocation took to answer, and per instance: ms from sending it to the
 *   instance's first 401, and whether a 200 came after that
 */
async function revocationUnderLoad(ports: number[], load: string, probe: string, id: string) {
  const seconds = 4;
  const run = wrk(ports, load, seconds, Number(args.connections));
  await new Promise((r) => setTimeout(r, 1500));
  let revokedAt = Infinity;
  let stop = false;
  const probers = ports.map(async (p) => {
    const seen: [number, number][] = [];
    while (!stop) {
      const t = performance.now();
      seen.push([t, await issue(p, probe)]);
    }
    return seen;
  });
  await new Promise((r) => setTimeout(r, 300));
  revokedAt = performance.now();
  const res = await fetch(`http://127.0.0.1:${ports[0]}/admin/v1/keys/${id}/revoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  if (res.status !== 200) throw new Error(`revoke: ${res.status} ${await res.text()}`);
  const answeredMs = performance.now() - revokedAt;
  await new Promise((r) => setTimeout(r, 1500));
  stop = true;
  const seen = await Promise.all(probers);
  await run;
  const delays = seen.map((s) => {
    const first = s.find(([t, st]) => t >= revokedAt && st === 401);
    const firstAt = first ? first[0] : Infinity;
    return {
      delayMs: firstAt - revokedAt,
      okAfter: s.some(([t, st]) => t > firstAt && st === 200),
      before: s.filter(([t, st]) => t < revokedAt && st === 200).length,
    };
  });
  return { answeredMs, delays };
}

async function runSetup(name: string, db: { url?: string; dir?: string }, n: number) {
  const { secret: key, probe, probeId } = await seed(db);
  const instances: Instance[] = [];
  for (let i = 0; i < n; i++) instances.push(await startInstance(db));
  const ports = instances.map((x) => x.port);
  const seconds = Number(args.duration);
  const conns = Number(args.connections);
  try {
    await wrk(ports, key, 3, conns); // warm-up (JIT, prepared statements, pools)
    const split = async (run: () => Promise<unknown>) => {
      await Promise.all(
        ports.map((p) => fetch(`http://127.0.0.1:${p}/__bench/reset`).then((r) => r.text())),
      );
      await run();
      const t = { keyLookupUs: 0, policyUs: 0, signingUs: 0, requests: 0 };
      for (const p of ports) {
        const x = await (await fetch(`http://127.0.0.1:${p}/__bench/timings`)).json();
        for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += x[k];
        cache.leases += x.leases;
        cache.hits += x.cache.hits;
        cache.misses += x.cache.misses;
      }
      const per = (us: number) => (t.requests ? us / t.requests : NaN);
      return [per(t.keyLookupUs), per(t.policyUs), per(t.signingUs)] as const;
    };
    const cache = { hits: 0, misses: 0, leases: 0 };
    let r!: Awaited<ReturnType<typeof wrk>>;
    const loaded = await split(async () => {
      r = await wrk(ports, key, seconds, conns);
    });
    // Service time without queueing: one connection, one request at a time.
    const loadedCache = { ...cache };
    const idle = await split(() => wrk(ports, key, 3, 1));
    const revocation = await revocationUnderLoad(ports, key, probe, probeId);
    return { name, instances: n, ...r, loaded, idle, cache: loadedCache, revocation };
  } finally {
    for (const i of instances) {
      i.proc.kill("SIGTERM");
      await i.proc.status;
    }
  }
}

async function main() {
  const want = new Set(args.setups.split(","));
  const base = args["database-url"] ?? Deno.env.get("SVC_BENCH_DATABASE_URL") ??
    Deno.env.get("SVC_TEST_DATABASE_URL");
  if ((want.has("pg1") || want.has("pg2")) && !base) {
    console.error('No PostgreSQL: eval "$(bash scripts/ci_postgres.sh)" or pass --database-url');
    Deno.exit(2);
  }
  const loadStart = await loadAvg();
  const rows = [];
  const cleanup: (() => Promise<void>)[] = [];
  const pgDb = async () => {
    const schema = `bench_${Date.now()}`;
    const admin = postgres(base!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    await admin.end();
    cleanup.push(async () => {
      const a = postgres(base!, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await a.end();
    });
    const u = new URL(base!);
    u.searchParams.set("search_path", schema);
    return { url: u.toString() };
  };
  try {
    if (want.has("sqlite1")) {
      const dir = await Deno.makeTempDir({ prefix: "svc-bench-" });
      cleanup.push(() => Deno.remove(dir, { recursive: true }));
      rows.push(await runSetup("SQLite", { dir }, 1));
    }
    if (want.has("pg2")) rows.push(await runSetup("PostgreSQL", await pgDb(), 2));
    if (want.has("pg1")) rows.push(await runSetup("PostgreSQL", await pgDb(), 1));
  } finally {
    for (const c of cleanup) await c().catch(() => {});
  }
  const f = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");
  console.log(
    `\nToken issuance (${args.phase}), ${args.connections} connections, ${args.duration} s, ${navigator.hardwareConcurrency} cores (wrk, servers and PostgreSQL share them); load average ${loadStart} at the start, ${await loadAvg()} at the end\n`,
  );
  console.log(
    "Time split per request, µs: key lookup (key + integrator + contract state, one query) / " +
      "policy / signing.\n1 conn = service time alone; loaded = wall time inside each phase " +
      "at full load (includes waiting for the CPU, the pool and the database).\n",
  );
  console.log(
    "| storage | instances | req/s | vs SQLite × 1 | p50 ms | p99 ms | non-2xx | socket errors | cache hits / misses | rate-limit round trips | split, 1 conn | split, loaded | revoked key refused after, ms (per instance) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const sp = (x: readonly number[]) => x.map((v) => f(v)).join(" / ");
  const sqlite1 = rows.find((r) => r.name === "SQLite" && r.instances === 1);
  for (const r of rows) {
    const errs = /connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(r.errors);
    const socket = errs ? errs.slice(1).reduce((a, x) => a + Number(x), 0) : 0;
    const rev = r.revocation.delays.map((x) =>
      `${f(x.delayMs)}${x.okAfter ? " (200 after!)" : ""}`
    );
    console.log(
      `| ${r.name} | ${r.instances} | ${f(r.rps)} | ${
        sqlite1 ? `${f(r.rps / sqlite1.rps, 2)}×` : "–"
      } | ${f(r.p50, 2)} | ${
        f(r.p99, 2)
      } | ${r.non2xx} | ${socket} | ${r.cache.hits} / ${r.cache.misses} | ${r.cache.leases} | ${
        sp(r.idle)
      } | ${sp(r.loaded)} | ${rev.join(", ")} (answered in ${f(r.revocation.answeredMs)}) |`,
    );
    if (r.errors) console.log(`  (${r.name} ×${r.instances}: ${r.errors})`);
  }
}

/** The 1-minute load average (other work on the machine shows here). */
async function loadAvg(): Promise<string> {
  return (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")[0]!;
}
