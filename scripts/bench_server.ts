/**
 * Benchmark server: one `Deno.serve` on 127.0.0.1 serving, side by side, a bare Hono route
 * (`POST /bare`: `c.req.json()` + `c.json()`, the baseline) and either the token service app or
 * the agent app. Prints `READY <port>` and, for the agent, confirms nothing by itself.
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
  createTokenApp,
  type IssueTimings,
  loadKeyRing,
  sqliteTokenStore,
} from "../src/token/mod.ts";

const [kind, dataDir, tokenUrl] = Deno.args;
const bare = new Hono();
bare.post("/bare", async (c) => c.json({ ok: true, echo: await c.req.json() }));

let port = 0;
let inner: Hono;
const timings: IssueTimings = { keyLookupUs: 0, policyUs: 0, signingUs: 0 };
if (kind === "token") {
  await Deno.mkdir(dataDir!, { recursive: true });
  const store = sqliteTokenStore(`${dataDir}/token-service.sqlite`);
  await store.migrate();
  const ring = await loadKeyRing(store, Date.now());
  inner = createTokenApp({
    store,
    keyRing: () => ring,
    clock: systemClock,
    config: { issuer: "bench", audience: "svc-agent", minAgentVersion: null },
    timings,
  });
  inner.get("/_timings", (c) => c.json(timings));
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
  return path === "/bare" ? bare.fetch(req) : inner.fetch(req);
});
port = server.addr.port;
console.log(`READY ${port}`);
