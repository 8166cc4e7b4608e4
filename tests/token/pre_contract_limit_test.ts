/**
 * Before a contract, the live keys of one integrator together cover at most 3 EIKs and last 7
 * days from its first live key (docs/token-service.md § Access phases): four live keys filing
 * for 12 companies are refused with 402 `EIK_LIMIT_REACHED` after the third EIK, whichever key
 * asks; an EIK one key covers is free for the others; once the integrator's 7 days are over no
 * new live key is made (402 `LIVE_TRIAL_OVER`). Another integrator has its own 3.
 * Over HTTP against the token app on SQLite and (when SVC_TEST_DATABASE_URL is set) PostgreSQL.
 */
import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { AppError } from "../../src/contract/mod.ts";
import { systemClock } from "../../src/clock.ts";
import {
  createApiKey,
  createTokenService,
  sqliteTokenStore,
  type TokenStore,
} from "../../src/token/mod.ts";
import { pgIgnored } from "../_helpers/postgres.ts";

const DAY = 24 * 3600 * 1000;
const EIKS = Array.from({ length: 12 }, (_, i) => String(100000001 + i * 1111111));

async function suite(store: TokenStore) {
  await store.migrate();
  const svc = await createTokenService({
    store,
    clock: systemClock,
    config: { issuer: "http://svc.test", audience: "svc-agent", minAgentVersion: null },
    usageFlushMs: 0,
  });
  try {
    const now = Date.now();
    for (const id of ["intg_a", "intg_b"]) {
      await store.createIntegrator({
        id,
        name: id,
        email: null,
        locale: "bg",
        allowedOrigins: [],
        createdAt: now,
      });
    }
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) {
      keys.push((await createApiKey(store, { mode: "live", integratorId: "intg_a", now })).secret);
    }
    const issue = async (secret: string, eik: string) => {
      const r = await svc.app.request("http://svc.test/api/v1/tokens/issue", {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ typeId: "vat", eik }),
      });
      const body = await r.json();
      return { status: r.status, code: body.errorCode as string | undefined };
    };
    // Key i files for companies i, i+4, i+8: 12 companies over four keys.
    const answers: number[] = [];
    for (let n = 0; n < 12; n++) answers.push((await issue(keys[n % 4]!, EIKS[n]!)).status);
    deepStrictEqual(answers, [200, 200, 200, 402, 402, 402, 402, 402, 402, 402, 402, 402]);
    equal((await issue(keys[3]!, EIKS[5]!)).code, "EIK_LIMIT_REACHED");
    // An EIK the first key covers is free for the fourth; the three stay the three.
    equal((await issue(keys[3]!, EIKS[0]!)).status, 200);
    equal((await issue(keys[0]!, EIKS[2]!)).status, 200);
    // A fifth key gets nothing new either.
    const fresh = await createApiKey(store, { mode: "live", integratorId: "intg_a", now });
    equal((await issue(fresh.secret, EIKS[11]!)).status, 402);
    // Another integrator has its own three.
    const b = await createApiKey(store, { mode: "live", integratorId: "intg_b", now });
    for (const eik of EIKS.slice(9)) equal((await issue(b.secret, eik)).status, 200);

    // The 7 days are the integrator's: a key made on day 5 ends with them, none is made on day 8.
    const day5 = await createApiKey(store, {
      mode: "live",
      integratorId: "intg_a",
      now: now + 5 * DAY,
    });
    equal(day5.record.expiresAt, now + 7 * DAY);
    await rejects(
      createApiKey(store, { mode: "live", integratorId: "intg_a", now: now + 8 * DAY }),
      (e) => e instanceof AppError && e.code === "LIVE_TRIAL_OVER",
    );
    // Test keys are not part of the trial.
    const test = await createApiKey(store, {
      mode: "test",
      integratorId: "intg_a",
      now: now + 8 * DAY,
    });
    equal(test.record.mode, "test");
  } finally {
    await svc.stop();
    await store.close();
  }
}

Deno.test("[token/sqlite] pre-contract limits are the integrator's: 3 EIKs and 7 days", async () => {
  await suite(sqliteTokenStore(":memory:"));
});

Deno.test({
  name: "[token/postgres] pre-contract limits are the integrator's: 3 EIKs and 7 days",
  ignore: pgIgnored(),
  async fn() {
    const { freshPgSchema } = await import("../_helpers/postgres.ts");
    const { openTokenStore } = await import("../../src/token/mod.ts");
    const pg = await freshPgSchema();
    try {
      await suite(await openTokenStore({ dataDir: "/nonexistent", databaseUrl: pg.url }));
    } finally {
      await pg.drop();
    }
  },
});
