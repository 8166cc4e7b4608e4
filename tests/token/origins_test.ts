import { deepStrictEqual, equal } from "node:assert/strict";
import { tokenEnv } from "../_helpers/token_env.ts";
import { createApiKey } from "../../src/token/access/api_keys.ts";

Deno.test("[token] a key's own page origins bind tokens (403 ORIGIN_NOT_ALLOWED otherwise) and are published for agents", async () => {
  const t = await tokenEnv();
  const { secret } = await createApiKey(t.store, {
    mode: "test",
    now: t.clock.now(),
    allowedOrigins: ["https://app.integrator.example"],
  });
  const ok = await t.issue(secret, {
    typeId: "nap_catalog",
    origin: "https://app.integrator.example",
  });
  equal(ok.status, 200);
  const bad = await t.issue(secret, { typeId: "nap_catalog", origin: "https://evil.example" });
  equal(bad.status, 403);
  equal((await bad.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  const published = await (await t.app.request("/api/v1/allowed-origins")).json();
  deepStrictEqual(published.origins, ["https://app.integrator.example"]);
  // A key without its own origins, of an integrator without origins, may bind any origin.
  const { secret: open } = await t.newKey("test");
  equal(
    (await t.issue(open, { typeId: "nap_catalog", origin: "https://other.example" })).status,
    200,
  );
});
