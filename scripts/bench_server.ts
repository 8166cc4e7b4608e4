/**
 * Benchmark server: one `Deno.serve` on 127.0.0.1 serving, side by side, a bare Hono route
 * (`POST /bare`: `c.req.json()` + `c.json()`, the baseline) and either the token service app or
 * the agent app. With the token app also `POST /bare-sign`: the bare route plus one token
 * signature with the service's own key ring (BENCHMARKS.md: issuance against "bare route + one
 * signature"), and `POST /bare-sign-headers`: the same with issuance's HTTP shape (its request
 * header read and its seven answer header fields), which splits the difference between the two
 * into wire cost and issuance's own work. Prints `READY <port>` and, for the agent, confirms
 * nothing by itself.
 *
 *   deno run -A scripts/bench_server.ts token|agent <dataDir> [tokenServiceUrl]
 */
import { type Context, Hono } from "hono";
import { createRemoteJWKSet } from "jose";
import { systemClock } from "../src/clock.ts";
import { createAgentApp } from "../src/agent/app.ts";
import { silentLogger } from "../src/log.ts";
import { createTestPortal } from "../src/portal/test/adapter.ts";
import {
  createRateLimiter,
  createTokenApp,
  type IssueTimings,
  loadKeyRing,
  memoryRateCounter,
  RequestLogRecorder,
  setRateLimitHeaders,
  sqliteTokenStore,
} from "../src/token/mod.ts";

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
let inner: { fetch: (req: Request) => Response | Promise<Response> };
const timings: IssueTimings = { keyLookupUs: 0, policyUs: 0, signingUs: 0 };
if (kind === "token") {
  await Deno.mkdir(dataDir!, { recursive: true });
  const store = sqliteTokenStore(`${dataDir}/token-service.sqlite`);
  await store.migrate();
  const ring = await loadKeyRing(store, Date.now());
  const bareSign = async (c: Context) => {
    const body = await c.req.json();
    const iat = Math.floor(Date.now() / 1000);
    const jti = crypto.randomUUID();
    const claims = { iss: "bench", aud: "svc-agent", sub: "bench", jti, ...body, mode: "test" };
    const token = await ring.sign(claims, iat, iat + 5);
    return { token, expiresAt: new Date((iat + 5) * 1000).toISOString(), jti };
  };
  bare.post("/bare-sign", async (c) => c.json(await bareSign(c)));
  // The same with issuance's HTTP shape: the Authorization header read, and the answer's seven
  // header fields (issuance's wire cost without its work).
  bare.post("/bare-sign-headers", async (c) => {
    const intg = c.req.header("authorization")?.slice(7, 16);
    const res = new Response(JSON.stringify({ ...await bareSign(c), issuer: "bench", intg }), {
      headers: { "content-type": "application/json" },
    });
    res.headers.set("cache-control", "no-store");
    setRateLimitHeaders(res.headers, BUDGET);
    res.headers.set("x-request-id", crypto.randomUUID());
    return res;
  });
  const requestLog = new RequestLogRecorder({ store, now: () => Date.now(), flushMs: 1000 });
  requestLog.start();
  const tokenApp = createTokenApp({
    store,
    keyRing: () => ring,
    clock: systemClock,
    config: { issuer: "bench", audience: "svc-agent", minAgentVersion: null },
    timings,
    // Both budgets counted, as deployed on SQLite (src/cli/token_servers.ts), high enough to refuse none.
    rateLimiter: createRateLimiter(
      { windowSeconds: 10, perKey: 1e9, perIntegrator: 1e9 },
      memoryRateCounter(),
    ),
    // The request log of token requests, as deployed (flushed every second); off with
    // SVC_BENCH_REQUEST_LOG=0 to compare (BENCHMARKS.md § The profile).
    requestLog: Deno.env.get("SVC_BENCH_REQUEST_LOG") === "0" ? undefined : requestLog,
  });
  tokenApp.get("/_timings", (c) => c.json({ ...timings, requests: issued }));
  inner = tokenApp;
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
  return path === "/bare" || path.startsWith("/bare-sign") ? bare.fetch(req) : inner.fetch(req);
});
port = server.addr.port;
console.log(`READY ${port}`);
