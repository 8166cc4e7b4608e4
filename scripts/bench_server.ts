/**
 * Benchmark server: one `Deno.serve` on 127.0.0.1 serving, side by side, a bare Hono route
 * (`POST /bare`: `c.req.json()` + `c.json()`, the baseline) and either the token service app or
 * the agent app. With the token app also `POST /bare-sign`: the bare route plus one token
 * signature with the service's own key ring (issue #17: issuance against "bare route + one
 * signature"). Prints `READY <port>` and, for the agent, confirms nothing by itself.
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
  createRateLimiter,
  createTokenApp,
  type IssueTimings,
  loadKeyRing,
  memoryRateCounter,
  sqliteTokenStore,
} from "../src/token/mod.ts";

const [kind, dataDir, tokenUrl] = Deno.args;
const bare = new Hono();
bare.post("/bare", async (c) => c.json({ ok: true, echo: await c.req.json() }));

let port = 0;
let issued = 0;
let inner: Hono;
const timings: IssueTimings = { keyLookupUs: 0, policyUs: 0, signingUs: 0 };
if (kind === "token") {
  await Deno.mkdir(dataDir!, { recursive: true });
  const store = sqliteTokenStore(`${dataDir}/token-service.sqlite`);
  await store.migrate();
  const ring = await loadKeyRing(store, Date.now());
  bare.post("/bare-sign", async (c) => {
    const body = await c.req.json();
    const iat = Math.floor(Date.now() / 1000);
    const jti = crypto.randomUUID();
    const claims = { iss: "bench", aud: "svc-agent", sub: "bench", jti, ...body, mode: "test" };
    const token = await ring.sign(claims, iat, iat + 5);
    return c.json({ token, expiresAt: new Date((iat + 5) * 1000).toISOString(), jti });
  });
  inner = createTokenApp({
    store,
    keyRing: () => ring,
    clock: systemClock,
    config: { issuer: "bench", audience: "svc-agent", minAgentVersion: null },
    timings,
    // Both budgets counted, as deployed on SQLite (serve_token.ts), high enough to refuse none.
    rateLimiter: createRateLimiter(
      { windowSeconds: 10, perKey: 1e9, perIntegrator: 1e9 },
      memoryRateCounter(),
    ),
  });
  inner.get("/_timings", (c) => c.json({ ...timings, requests: issued }));
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
  return path === "/bare" || path === "/bare-sign" ? bare.fetch(req) : inner.fetch(req);
});
port = server.addr.port;
console.log(`READY ${port}`);
