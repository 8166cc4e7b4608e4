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
