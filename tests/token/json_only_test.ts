/**
 * The token service's admin routes that read a body read it only as JSON: a form, text/plain, XML
 * or a body without Content-Type is 415 UNSUPPORTED_MEDIA_TYPE; `application/json` with or without
 * `charset=utf-8` is read. (Issuance and the contract application over real HTTP:
 * tests/e2e/json_only_test.ts.)
 */
import { equal } from "node:assert/strict";
import { ADMIN_TOKEN, tokenEnv } from "../_helpers/token_env.ts";

Deno.test("[token] admin routes with a body answer 415 to anything but application/json", async () => {
  const t = await tokenEnv();
  const body = new TextEncoder().encode(JSON.stringify({ name: "ACME", email: "a@b.test" }));
  const post = (type: string | null) =>
    t.app.request("/admin/v1/integrators", {
      method: "POST",
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(type === null ? {} : { "content-type": type }),
      },
      body,
    });
  for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml", null]) {
    const r = await post(type);
    equal(r.status, 415, String(type));
    equal((await r.json()).errorCode, "UNSUPPORTED_MEDIA_TYPE");
  }
  equal((await t.store.listIntegrators()).length, 0, "nothing was created");
  for (const type of ["application/json", "application/json; charset=utf-8"]) {
    const r = await post(type);
    equal(r.status, 201, type);
    await r.body?.cancel();
  }
});
