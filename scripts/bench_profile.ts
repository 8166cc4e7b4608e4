/**
 * The integrators' profile pages (docs/token-service.md § The profile; BENCHMARKS.md § The
 * profile) through the token service's whole app in process (`app.request`: the edge, the
 * guard with its session lookup, the page's queries and rendering), with 1,000 integrators and
 * 100,000 request-log rows of the last 7 days (the signed-in integrator holding 10,000 of them,
 * the others 90 each) and 90 days of daily usage, on SQLite (a file, as deployed) or PostgreSQL
 * (`--pg`, SVC_TEST_DATABASE_URL). The baseline, measured in the same run and alternating with
 * the pages: the bare indexed `SELECT` of the request log blocks holding the 200 newest entries
 * of the integrator's 7 days, through a connection of its own (the log is stored in blocks,
 * src/token/store/request_log_blocks.ts; here, with one entry a minute, a block holds one entry: the
 * reader's worst case). `store.listRequestLog` (the same query, the blocks decoded and
 * filtered) is measured beside it.
 *
 * Each page is requested `--n` times in rounds that alternate the subjects; prints p50 and p95
 * per subject as a markdown table.
 *
 * Usage: `deno run -A scripts/bench_profile.ts [--n 300] [--pg]`
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { parseArgs } from "node:util";
import { systemClock } from "../src/clock.ts";
import {
  createTokenService,
  openTokenStore,
  requestLogBlocks,
  type RequestLogEntry,
  type TokenStore,
} from "../src/token/mod.ts";
import { hashSecret } from "../src/token/access/api_keys.ts";
import { SQLITE_FILE } from "../src/token/store/open_store.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { n: { type: "string", default: "300" }, pg: { type: "boolean", default: false } },
});
const N = Number(values.n);
const DAY = 86_400_000;
const now = Date.now();

/** The bare SELECT of the baseline: an integrator's newest blocks from `since` on. */
const BARE =
  "SELECT key_id, last_at, body, packed FROM request_log_blocks WHERE integrator_id = $1 " +
  "AND last_at >= $2 ORDER BY last_at DESC LIMIT 200";

async function openStore(): Promise<{
  store: TokenStore;
  bare: (integratorId: string, since: number) => Promise<unknown>;
  done: () => Promise<void>;
}> {
  if (values.pg) {
    const { freshPgSchema } = await import("../tests/_helpers/postgres.ts");
    const pg = await freshPgSchema();
    const store = await openTokenStore({ dataDir: "/nonexistent", databaseUrl: pg.url });
    const raw = postgres(pg.url, { max: 1, onnotice: () => {} });
    return {
      store,
      bare: (i, since) => raw.unsafe(BARE, [i, since], { prepare: true }),
      done: () => raw.end().then(() => store.close()).then(() => pg.drop()),
    };
  }
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-profile-" });
  const store = await openTokenStore({ dataDir: dir });
  const raw = new DatabaseSync(join(dir, SQLITE_FILE));
  const bare = raw.prepare(BARE.replace("$1", "?").replace("$2", "?"));
  return {
    store,
    bare: (i, since) => Promise.resolve(bare.all(i, since)),
    done: () => {
      raw.close();
      return store.close().then(() => Deno.remove(dir, { recursive: true }));
    },
  };
}

const { store, bare, done } = await openStore();
console.error("filling: 1,000 integrators, 100,000 request log rows, 90 days of usage …");
const TYPES = ["vat", "dec1_6", "debt_payments", "due_amounts", "vat_result"];
for (let i = 0; i < 1000; i++) {
  const id = `int_${String(i).padStart(4, "0")}`;
  await store.createIntegratorWithUser(
    { id, name: `Company ${i}`, email: `c${i}@bench.test`, allowedOrigins: [], createdAt: now },
    {
      id: `usr_${i}`,
      role: "integrator",
      email: `c${i}@bench.test`,
      integratorId: id,
      createdAt: now,
      createdBy: null,
    },
  );
  await store.createKey({
    id: `key_${i}`,
    integratorId: id,
    mode: "test",
    secretHash: hashSecret(`bench-${i}`),
    label: null,
    createdAt: now,
    expiresAt: now + 90 * DAY,
    revokedAt: null,
    allowedEiks: null,
  });
}
const rows: RequestLogEntry[] = [];
for (let j = 0; j < 100_000; j++) {
  // The signed-in integrator (int_0000) holds 10,000 rows; the others 90 each.
  const i = j < 10_000 ? 0 : 1 + ((j - 10_000) % 999);
  const status = j % 10 === 0 ? 403 : 200;
  rows.push({
    at: now - Math.floor((j * 7 * DAY) / 100_000) - 1,
    integratorId: `int_${String(i).padStart(4, "0")}`,
    keyId: `key_${i}`,
    typeId: TYPES[j % TYPES.length]!,
    eiks: "121212121",
    status,
    errorCode: status === 403 ? "EIK_NOT_ALLOWED" : null,
    requestId: crypto.randomUUID(),
  });
}
const daily = Array.from({ length: 90 }, (_, d) =>
  TYPES.map((typeId) => ({
    day: new Date(now - d * DAY).toISOString().slice(0, 10),
    integratorId: "int_0000",
    keyId: "key_0",
    typeId,
    count: 100 + d,
  }))).flat();
await store.addRequestLog(requestLogBlocks(rows), daily);

const svc = await createTokenService({
  store,
  clock: systemClock,
  config: { issuer: "http://bench.test", audience: "svc-agent", minAgentVersion: null },
});
const sid = "bench-session-id-0123456789abcdefghijklmnopqrstu";
await store.createSession({
  idHash: hashSecret(sid),
  userId: "usr_0",
  csrf: "x",
  createdAt: now,
  lastSeen: now,
});
const headers = { cookie: `svc_profile=${sid}`, "sec-fetch-site": "same-origin" };
const page = (path: string) => async () => {
  const r = await svc.app.request(`http://bench.test${path}`, { headers });
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
  await r.text();
};
const subjects: [string, () => Promise<unknown>][] = [
  [
    "bare indexed SELECT (the blocks of the 200 newest of 7 days)",
    () => bare("int_0000", now - 7 * DAY),
  ],
  [
    "store.listRequestLog (the same, decoded; 200 newest)",
    () => store.listRequestLog({ integratorId: "int_0000", since: now - 7 * DAY, limit: 200 }),
  ],
  ["GET /profile/log (200 rows)", page("/profile/log")],
  ["GET /profile/log?status=errors", page("/profile/log?status=errors")],
  ["GET /profile/log?key=key_0&status=403", page("/profile/log?key=key_0&status=403")],
  ["GET /profile/usage (90 days, SVG)", page("/profile/usage")],
  ["GET /profile/keys", page("/profile/keys")],
  ["GET /profile/contract", page("/profile/contract")],
];
for (const [, fn] of subjects) for (let i = 0; i < 20; i++) await fn(); // warm-up
const times: number[][] = subjects.map(() => []);
for (let round = 0; round < N; round++) {
  for (const [k, [, fn]] of subjects.entries()) {
    const t0 = performance.now();
    await fn();
    times[k]!.push(performance.now() - t0);
  }
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const base = pct(times[0]!, 0.5);
console.log(`\n${values.pg ? "PostgreSQL" : "SQLite"}, ${N} requests each, alternating\n`);
console.log("| subject | p50 ms | p95 ms | p50 / bare SELECT |");
console.log("|---|---|---|---|");
for (const [k, [name]] of subjects.entries()) {
  const p50 = pct(times[k]!, 0.5), p95 = pct(times[k]!, 0.95);
  console.log(`| ${name} | ${p50.toFixed(2)} | ${p95.toFixed(2)} | ${(p50 / base).toFixed(1)}× |`);
}
// The issuance path's share of the request log: begin + body + finish (the edge's part) per
// request, in memory (the flush runs on its timer, off the request path), against one Ed25519
// signature of a token-sized payload (node:crypto), both timed here.
{
  const { RequestLogRecorder } = await import("../src/token/request_log/recorder.ts");
  const { generateKeyPairSync, sign } = await import("node:crypto");
  const log = new RequestLogRecorder({ store, now: () => Date.now(), flushMs: 60_000 });
  const k = (await store.getKey("key_1"))!;
  const body = { typeId: "vat", eik: "121212121" };
  const reqs = Array.from({ length: 1000 }, () => new Request("http://x/", { method: "POST" }));
  const M = 100_000;
  // The request path: noting, the body's fields, completing (buffers one entry).
  let t0 = performance.now();
  for (let i = 0; i < M; i++) {
    const req = reqs[i % 1000]!;
    log.begin(req, k, Date.now());
    log.body(req, body);
    log.finish(req, 200, "0123456789abcdef0123456789abcdef", null);
    if (i % 50_000 === 49_999) {
      const t1 = performance.now();
      await log.flush();
      t0 += performance.now() - t1; // the flush is timed below
    }
  }
  const pathUs = ((performance.now() - t0) * 1000) / M;
  // The flush, per row (multi-row INSERTs and the daily UPSERT; on SQLite in this thread, as
  // the recorder writes before start() or when its writer thread could not be used).
  for (let i = 0; i < 10_000; i++) {
    const req = reqs[i % 1000]!;
    log.begin(req, k, Date.now());
    log.body(req, body);
    log.finish(req, 200, "0123456789abcdef0123456789abcdef", null);
  }
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await log.flush();
  const flushUs = ((performance.now() - t0) * 1000) / 10_000;
  // The CPU time of this process (on PostgreSQL the driver's encoding; not the server's).
  const cpu = process.cpuUsage(cpu0);
  const flushCpuUs = (cpu.user + cpu.system) / 10_000;
  // On SQLite the running service writes the rows through its writer thread
  // (src/token/store/request_log_writer.ts): this thread groups each batch into blocks (the recorder
  // does it as the requests are answered) and copies them to it, which write() does before it
  // returns. Batches of 1,000 rows (a busy service sends up to BATCH_ROWS).
  let postUs = NaN, threadUs = NaN;
  const writer = store.requestLogWriter(() => {});
  if (writer.offThread()) {
    await writer.write([], []); // the thread has opened the file
    const batch: RequestLogEntry[] = Array.from({ length: 1000 }, () => ({
      at: Date.now(),
      integratorId: "int_0001",
      keyId: "key_1",
      typeId: "vat",
      eiks: "121212121",
      status: 200,
      errorCode: null,
      requestId: "0123456789abcdef0123456789abcdef",
    }));
    for (let i = 0; i < 20; i++) await writer.write(requestLogBlocks(batch), []); // warm-up (JIT)
    let post = 0;
    t0 = performance.now();
    for (let i = 0; i < 20; i++) {
      const t1 = performance.now();
      const written = writer.write(requestLogBlocks(batch), []);
      post += performance.now() - t1;
      await written;
    }
    threadUs = ((performance.now() - t0) * 1000) / 20_000;
    postUs = (post * 1000) / 20_000;
  }
  await writer.close();
  const { privateKey } = generateKeyPairSync("ed25519");
  const payload = new TextEncoder().encode("x".repeat(300));
  t0 = performance.now();
  for (let i = 0; i < 20_000; i++) sign(null, payload, privateKey);
  const signUs = ((performance.now() - t0) * 1000) / 20_000;
  console.log(
    `\nrequest log: ${pathUs.toFixed(2)} µs per request on the request path ` +
      `(${(100 * pathUs / signUs).toFixed(1)} % of one Ed25519 signature, ${
        signUs.toFixed(1)
      } µs), ` +
      `${flushUs.toFixed(2)} µs per row in the flush, wall time (${
        (100 * flushUs / signUs).toFixed(1)
      } %; CPU time of this process ${flushCpuUs.toFixed(2)} µs per row, ${
        (100 * flushCpuUs / signUs).toFixed(1)
      } %)`,
  );
  if (!Number.isNaN(postUs)) {
    console.log(
      `request log through the writer thread: ${postUs.toFixed(2)} µs per row in this thread ` +
        `(${(100 * postUs / signUs).toFixed(1)} % of a signature), ${
          threadUs.toFixed(2)
        } µs per row until committed by the thread`,
    );
  }
}
await svc.stop();
await done();
