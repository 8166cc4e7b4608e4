/**
 * Token-service processes on PostgreSQL for the e2e tests (scale-out, outage): their
 * environment and a key made through the admin API.
 * @module
 */

const ADMIN = "scale-out-admin-token-0123456789abcdefghij";

/** Create an integrator and a test key through the admin API; returns the secret. */
export async function adminKey(url: string, integratorId: string): Promise<string> {
  const call = async (path: string, body: unknown) => {
    const r = await fetch(`${url}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const j = await r.json();
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(j)}`);
    return j;
  };
  await call("/integrators", { id: integratorId, name: `${integratorId} Ltd` });
  return (await call("/keys", { integratorId, mode: "test" })).secret;
}

/** The environment of a token-service process on a PostgreSQL database (budgets out of the way
 * of the load tests). */
export function serviceEnv(databaseUrl: string): Record<string, string> {
  return {
    SVC_DATABASE_URL: databaseUrl,
    SVC_SIGNING_KEY_SECRET: "scale-out-test-signing-key-secret-0123456789",
    SVC_ADMIN_TOKEN: ADMIN,
    SVC_RATE_LIMIT_PER_KEY: "100000",
    SVC_RATE_LIMIT_PER_INTEGRATOR: "0",
  };
}

/**
 * Wait, if need be, until the rate-limit window now running has at least `needSeconds` left,
 * so that a test's hits all fall into one window. The windows are fixed and aligned to the
 * epoch (src/token/edge/rate_limit.ts), so a boundary can otherwise fall between two of a test's
 * requests and start the count over.
 * @param windowSeconds the service's SVC_RATE_LIMIT_WINDOW_SECONDS
 * @param needSeconds how long the test's counted requests may take, at most
 */
export async function awayFromWindowEdge(windowSeconds: number, needSeconds: number) {
  const windowMs = windowSeconds * 1000;
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs < needSeconds * 1000) await new Promise((r) => setTimeout(r, leftMs + 50));
}
