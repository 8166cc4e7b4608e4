/**
 * The TokenStore contract, part 1, run against SQLite and PostgreSQL (`backendTest`):
 * migrations, integrators and keys, rotation, atomic EIK claims under concurrency, signing keys.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { createApiKey, hashSecret, rotateApiKey } from "../../../src/token/access/api_keys.ts";
import { loadKeyRing, rotateSigningKey } from "../../../src/token/issuance/signer.ts";
import { backendTest } from "../../_helpers/token_env.ts";
import { DAY, integrator, T0 } from "./store_fixtures.ts";

backendTest("migrate() is idempotent and safe when two instances start at once", async (db) => {
  const [a, b] = await Promise.all([db.open(), db.open()]);
  await a.migrate();
  await Promise.all([a.migrate(), b.migrate()]);
  await a.createIntegrator(integrator("i1"));
  deepStrictEqual((await b.getIntegrator("i1"))?.allowedOrigins, ["https://app.example.test"]);
  equal((await b.getIntegrator("i1"))?.locale, "en");
});

backendTest(
  "integrators and keys round-trip; listKeys filters; updateIntegrator patches",
  async (db) => {
    const s = await db.open();
    await s.createIntegrator(integrator("i1"));
    await s.createIntegrator(integrator("i2", null));
    const { secret, record } = await createApiKey(s, {
      mode: "live",
      integratorId: "i1",
      now: T0,
      label: "Ключ",
    });
    await createApiKey(s, { mode: "test", integratorId: "i2", now: T0 });
    deepStrictEqual(await s.findKeyByHash(hashSecret(secret)), {
      ...record,
      integratorName: "Integrator i1",
      integratorOrigins: ["https://app.example.test"],
    });
    deepStrictEqual(await s.getKey(record.id), record);
    equal(record.expiresAt, T0 + 7 * DAY);
    equal((await s.listKeys()).length, 2);
    deepStrictEqual((await s.listKeys({ integratorId: "i1" })).map((k) => k.id), [record.id]);
    const upd = await s.updateIntegrator("i2", { email: "ops@i2.test", locale: "bg" });
    equal(upd?.email, "ops@i2.test");
    equal(upd?.locale, "bg");
    equal(upd?.name, "Integrator i2");
    equal(await s.updateIntegrator("nope", { name: "x" }), null);
    deepStrictEqual((await s.listIntegrators()).map((i) => i.id), ["i1", "i2"]);
    ok(await s.setAllowedEiks(record.id, ["121212121"]));
    deepStrictEqual((await s.getKey(record.id))?.allowedEiks, ["121212121"]);
    ok(!(await s.setAllowedEiks("key_nope", null)));
  },
);

backendTest("revokeKey() revokes once and cuts a rotation's grace short", async (db) => {
  const s = await db.open();
  await s.createIntegrator(integrator("i1"));
  const { record } = await createApiKey(s, { mode: "test", integratorId: "i1", now: T0 });
  const rotated = await rotateApiKey(s, record, 3600_000, T0 + 1000);
  ok(rotated);
  equal((await s.getKey(record.id))?.revokedAt, T0 + 1000 + 3600_000);
  equal(rotated.record.rotatedFrom, record.id);
  equal(rotated.record.expiresAt, record.expiresAt, "rotation keeps the expiry");
  equal(
    (await s.revokeKey(record.id, T0 + 2000))?.revokedAt,
    T0 + 2000,
    "revoking during the grace period ends it, and answers the revoked key",
  );
  equal((await s.getKey(record.id))?.revokedAt, T0 + 2000);
  equal(await s.revokeKey(record.id, T0 + 3000), null, "already revoked");
  equal(await s.revokeKey("key_unknown", T0 + 3000), null, "unknown");
  equal(await rotateApiKey(s, record, 0, T0 + 4000), null, "a revoked key cannot be rotated");
});

backendTest(
  "claimEiks() never exceeds the limit under concurrent claims from two instances",
  async (db) => {
    const [a, b] = await Promise.all([db.open(), db.open()]);
    await a.createIntegrator(integrator("i1"));
    const { record } = await createApiKey(a, { mode: "live", integratorId: "i1", now: T0 });
    const eiks = Array.from({ length: 10 }, (_, i) => String(200000000 + i));
    const results = await Promise.all(
      eiks.map((e, i) => (i % 2 ? a : b).claimEiks(record.id, [e], 3, T0 + i)),
    );
    equal(results.filter((r) => r.ok).length, 3);
    equal((await a.keyEiks(record.id)).length, 3);
    const again = await b.claimEiks(record.id, (await a.keyEiks(record.id)).slice(0, 2), 3, T0);
    ok(again.ok, "EIKs already in the set are free");
    deepStrictEqual(await a.claimEiks(record.id, ["999999999"], 3, T0), {
      ok: false,
      used: 3,
      limit: 3,
    });
  },
);

backendTest(
  "signing keys: concurrent first starts keep one current key; rotation retires it",
  async (db) => {
    const [a, b] = await Promise.all([db.open(), db.open()]);
    const [ra, rb] = await Promise.all([
      loadKeyRing({ store: a }, T0),
      loadKeyRing({ store: b }, T0),
    ]);
    const current = (await a.listSigningKeys()).filter((k) => k.retiredAt === null);
    equal(current.length, 1);
    // Whichever insert lost the race reloads the winner on its next load.
    equal((await loadKeyRing({ store: a }, T0)).kid, current[0]!.kid);
    ok([ra.kid, rb.kid].includes(current[0]!.kid));
    await rotateSigningKey({ store: b }, T0 + 1000);
    const after = await loadKeyRing({ store: a }, T0 + 1000);
    ok(after.kid !== current[0]!.kid);
    deepStrictEqual(
      after.jwks().keys.map((k) => k.kid).sort(),
      [after.kid, current[0]!.kid].sort(),
    );
  },
);
