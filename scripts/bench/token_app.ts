/**
 * The token service as the issuance benchmarks build it (scripts/bench_server.ts, over HTTP;
 * scripts/bench_issue_inproc.ts, in process): the token app on a store, and the baseline's work,
 * one signature of issuance-like claims with the same key ring.
 * @module
 */
import { systemClock } from "../../src/clock.ts";
import {
  createRateLimiter,
  createTokenApp,
  type IssueTimings,
  type KeyRing,
  memoryRateCounter,
  type RequestLogRecorder,
  type TokenStore,
} from "../../src/token/mod.ts";

/**
 * The token app as deployed on SQLite: both budgets counted (src/cli/token_servers.ts), high
 * enough to refuse none.
 * @param store the token store
 * @param ring its key ring
 * @param requestLog the request log (absent: none)
 * @param timings where issuance adds its time split (absent: not timed)
 * @returns the app (its `fetch` answers `POST /api/v1/tokens/issue`)
 */
export function benchTokenApp(
  store: TokenStore,
  ring: KeyRing,
  requestLog?: RequestLogRecorder,
  timings?: IssueTimings,
): ReturnType<typeof createTokenApp> {
  return createTokenApp({
    store,
    keyRing: () => ring,
    clock: systemClock,
    config: { issuer: "bench", audience: "svc-agent", minAgentVersion: null },
    timings,
    rateLimiter: createRateLimiter(
      { windowSeconds: 10, perKey: 1e9, perIntegrator: 1e9 },
      memoryRateCounter(),
    ),
    requestLog,
  });
}

/**
 * The baseline's answer: the body's fields signed as a 5-second token, as issuance signs them.
 * @param ring the key ring
 * @param body the request's parsed body
 * @returns the token, its expiry (ISO 8601) and `jti`
 */
export async function bareSign(
  ring: KeyRing,
  body: Record<string, unknown>,
): Promise<{ token: string; expiresAt: string; jti: string }> {
  const iat = Math.floor(Date.now() / 1000);
  const jti = crypto.randomUUID();
  const claims = { iss: "bench", aud: "svc-agent", sub: "bench", jti, ...body, mode: "test" };
  const token = await ring.sign(claims, iat, iat + 5);
  return { token, expiresAt: new Date((iat + 5) * 1000).toISOString(), jti };
}
