/**
 * Benchmark server: one `Deno.serve` on 127.0.0.1 serving, side by side, a bare Hono route
 * (`POST /bare`: `c.req.json()` + `c.json()`, the baseline) and either the token service app or
 * the agent app. With the token app also `POST /bare-sign`: the bare route plus one token
 * signature with the service's own key ring (BENCHMARKS.md: issuance against "bare route + one
 * signature"), and `POST /bare-sign-headers`: the same with issuance's HTTP shape (its request
 * header read and its seven answer header fields), which splits the difference between the two
 * into wire cost and issuance's own work; and issuance without the request log, for requests
 * carrying `X-Bench-No-Log`. `SVC_BENCH_DATABASE_URL=postgres://…` puts the token store on
 * PostgreSQL. Prints `READY <port>` and, for the agent, confirms nothing by itself.
 *
 *   deno run -A scripts/bench_server.ts token|agent <dataDir> [tokenServiceUrl]
 */
import { Hono } from "hono";
import { createRemoteJWKSet } from "jose";
import { systemClock } from "../src/clock.ts";
import { createAgentApp } from "../src/agent/app.ts";
import { silentLogger } from "../src/log.ts";
import { createTestPortal } from "../src/portal/test/adapter.ts";
import {
  type IssueTimings,
  loadKeyRing,
  openTokenStore,
  RequestLogRecorder,
  setRateLimitHeaders,
} from "../src/token/mod.ts";
import { bareSign, benchTokenApp } from "./bench/token_app.ts";

/** A budget as issuance answers it (the headers of `/bare-sign-headers`). */
const BUDGET = {
  scope: "key",
  limit: 1e9,
  remaining: 1e9 - 1,
  resetSeconds: 7,
  windowSeconds: 10,
} as const;

const [kind, dataDir, tokenUrl] = Deno.args;
const bare = new Hono();
bare.post("/bare", async (c) => c.json({ ok: true, echo: await c.req.json() }));

let port = 0;
let issued = 0;
/** What serves a request: the token app or the agent app. */
type Fetcher = { fetch: (req: Request) => Response | Promise<Response> };
let inner: Fetcher;
let noLog: Fetcher | undefined;
const timings: IssueTimings = { keyLookupUs: 0, policyUs: 0, signingUs: 0 };
if (kind === "token") {
  await Deno.mkdir(dataDir!, { recursive: true });
  // SVC_BENCH_DATABASE_URL: the token store on PostgreSQL instead (a scratch database).
  const store = await openTokenStore({
    dataDir: dataDir!,
    databaseUrl: Deno.env.get("SVC_BENCH_DATABASE_URL"),
  });
  const ring = await loadKeyRing({ store }, Date.now());
  bare.post("/bare-sign", async (c) => c.json(await bareSign(ring, await c.req.json())));
  // The same with issuance's HTTP shape: the Authorization header read, and the answer's seven
  // header fields (issuance's wire cost without its work).
  bare.post("/bare-sign-headers", async (c) => {
    const intg = c.req.header("authorization")?.slice(7, 16);
    const signed = await bareSign(ring, await c.req.json());
    const res = new Response(JSON.stringify({ ...signed, issuer: "bench", intg }), {
      headers: { "content-type": "application/json" },
    });
    res.headers.set("cache-control", "no-store");
    setRateLimitHeaders(res.headers, BUDGET);
    res.headers.set("x-request-id", crypto.randomUUID());
    return res;
  });
  const requestLog = new RequestLogRecorder({
    store,
    now: () => Date.now(),
    flushMs: 1000,
    onError: (e) => console.error(`request log: ${e}`),
  });
  requestLog.start();
  const tokenApp = (log: RequestLogRecorder | undefined) =>
    benchTokenApp(store, ring, log, timings);
  // The request log of token requests, as deployed (flushed every second, on SQLite by its
  // writer thread); off with SVC_BENCH_REQUEST_LOG=0 (BENCHMARKS.md § The profile).
  const withLog = tokenApp(Deno.env.get("SVC_BENCH_REQUEST_LOG") === "0" ? undefined : requestLog);
  withLog.get("/_timings", (c) => c.json({ ...timings, requests: issued }));
  inner = withLog;
  // The same issuance without the request log, asked for with `X-Bench-No-Log: 1`: both in
  // the same interleaved rounds, so the machine's drift falls on both alike.
  noLog = tokenApp(undefined);
} else {
  inner = createAgentApp({
    clock: systemClock,
    log: silentLogger,
    verifier: {
      getKey: createRemoteJWKSet(new URL(`${tokenUrl}/.well-known/jwks.json`)),
      issuer: tokenUrl!,
      audience: "svc-agent",
    },
    senders: [],
    portals: { test: createTestPortal({ now: () => new Date() }) },
    openBrowser: (url) => console.log(`CONFIRM ${url}`),
    rateLimits: { operationsPer10s: 1e9 },
    port: () => port,
  }).app;
}
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/api/v1/tokens/issue") issued++;
  if (path === "/bare" || path.startsWith("/bare-sign")) return bare.fetch(req);
  return noLog && req.headers.has("x-bench-no-log") ? noLog.fetch(req) : inner.fetch(req);
});
port = server.addr.port;
console.log(`READY ${port}`);
