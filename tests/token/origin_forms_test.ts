/**
 * docs/token-service.md § Page origins: the token service binds only http(s) origins. Over real
 * HTTP (the token app served on loopback): `POST /api/v1/tokens/issue` answers 400
 * VALIDATION_FAILED naming `origin` for `javascript:`, `file:`, `data:`, `null`, `"null"`, `ftp:`
 * and a URL with a path (and never signs `"null"`); the admin API refuses the same forms for
 * integrators' and keys' origins; origins stored before the fix that are not http(s) are neither
 * matched nor published to agents; `keys create --origin` refuses them with exit 2.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { decodeJwt } from "jose";
import { createApiKey } from "../../src/token/access/api_keys.ts";
import { httpOrigin } from "../../src/token/access/origins.ts";
import { ADMIN_TOKEN, tokenEnv } from "../_helpers/token_env.ts";
import { runInProcess } from "../cli/_run.ts";

/** Origins that must be refused, as JSON values. */
const BAD_ORIGINS: readonly unknown[] = [
  "javascript:alert(document.domain)",
  "javascript://app.example.com/%0aalert(1)",
  "file:///etc/passwd",
  "file://host/share",
  "data:text/html,<script>alert(1)</script>",
  null,
  "null",
  "ftp://files.example.com",
  "https://app.example.com/path",
  "https://app.example.com/?q=1",
  "https://app.example.com#x",
  "https://user:pw@app.example.com",
  "https://app.exa\tmple.com",
  "https:\\\\app.example.com",
  "ws://app.example.com",
  "blob:https://app.example.com/0b0e",
  "",
];

/** Serve the token app of a fresh in-memory service on a loopback port. */
async function served() {
  const t = await tokenEnv();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    t.app.fetch,
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  const post = (path: string, auth: string, body: unknown, method = "POST") =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { t, base, post, close: () => server.shutdown() };
}

Deno.test("httpOrigin() keeps http(s) origins and refuses every other form", () => {
  equal(httpOrigin("https://App.Example.com:443"), "https://app.example.com");
  equal(httpOrigin("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
  equal(httpOrigin("http://[::1]:3000/"), "http://[::1]:3000");
  equal(httpOrigin("https://bücher.example"), "https://xn--bcher-kva.example");
  for (const bad of BAD_ORIGINS) {
    if (typeof bad === "string") equal(httpOrigin(bad), null, bad);
  }
});

Deno.test("[token] POST /api/v1/tokens/issue refuses an origin that is not http(s) with 400 VALIDATION_FAILED over HTTP", async () => {
  const s = await served();
  try {
    const { secret } = await s.t.newKey("test");
    for (const origin of BAD_ORIGINS) {
      const res = await s.post("/api/v1/tokens/issue", secret, { typeId: "nap_catalog", origin });
      const body = await res.json();
      equal(res.status, 400, `${JSON.stringify(origin)}: ${JSON.stringify(body)}`);
      equal(body.errorCode, "VALIDATION_FAILED", JSON.stringify(origin));
      equal(body.details.field, "origin", JSON.stringify(origin));
      ok(!("token" in body));
    }
    // An http(s) origin is bound in its serialised form.
    const res = await s.post("/api/v1/tokens/issue", secret, {
      typeId: "nap_catalog",
      origin: "https://App.Example.com:443",
    });
    equal(res.status, 200);
    equal(decodeJwt((await res.json()).token).origin, "https://app.example.com");
  } finally {
    await s.close();
  }
});

Deno.test("[token] the admin API refuses integrator and key origins that are not http(s) over HTTP", async () => {
  const s = await served();
  try {
    const created = await s.post("/admin/v1/integrators", ADMIN_TOKEN, {
      id: "acme",
      name: "ACME",
      allowedOrigins: ["https://App.acme.example/"],
    });
    equal(created.status, 201, await created.clone().text());
    deepStrictEqual((await created.json()).allowedOrigins, ["https://app.acme.example"]);
    const key = await s.post("/admin/v1/keys", ADMIN_TOKEN, { integratorId: "acme", mode: "test" });
    const keyId = (await key.json()).key.id;
    for (const bad of BAD_ORIGINS) {
      const tries = [
        await s.post("/admin/v1/integrators", ADMIN_TOKEN, {
          name: "X",
          allowedOrigins: ["https://ok.example", bad],
        }),
        await s.post("/admin/v1/integrators/acme", ADMIN_TOKEN, { allowedOrigins: [bad] }, "PATCH"),
        await s.post(
          `/admin/v1/keys/${keyId}/allowed-origins`,
          ADMIN_TOKEN,
          { allowedOrigins: [bad] },
          "PUT",
        ),
      ];
      for (const [i, res] of tries.entries()) {
        const body = await res.json();
        equal(res.status, 400, `${i} ${JSON.stringify(bad)}: ${JSON.stringify(body)}`);
        equal(body.errorCode, "VALIDATION_FAILED");
        match(body.details.field, /^allowedOrigins\.\d$/);
      }
    }
    // Nothing was changed by the refused requests.
    const after = await (await fetch(`${s.base}/api/v1/allowed-origins`)).json();
    deepStrictEqual(after.origins, ["https://app.acme.example"]);
  } finally {
    await s.close();
  }
});

Deno.test("[token] origins stored before the fix that are not http(s) are neither published to agents nor matched", async () => {
  const s = await served();
  try {
    const store = s.t.store;
    await store.createIntegrator({
      id: "old",
      name: "Old",
      email: null,
      locale: "bg",
      allowedOrigins: ["file:///C:/page.html", "javascript:alert(1)", "https://old.example"],
      createdAt: s.t.clock.now(),
    });
    const { secret, record } = await createApiKey(store, {
      mode: "test",
      now: s.t.clock.now(),
      integratorId: "old",
    });
    await store.setAllowedOrigins(record.id, ["data:text/html,x", "https://key.example"]);
    const published = await (await fetch(`${s.base}/api/v1/allowed-origins`)).json();
    deepStrictEqual(published.origins.sort(), ["https://key.example", "https://old.example"]);
    ok(!published.origins.includes("null"));
    const ok200 = await s.post("/api/v1/tokens/issue", secret, {
      typeId: "nap_catalog",
      origin: "https://key.example",
    });
    equal(ok200.status, 200);
    const other = await s.post("/api/v1/tokens/issue", secret, {
      typeId: "nap_catalog",
      origin: "https://old.example",
    });
    equal((await other.json()).errorCode, "ORIGIN_NOT_ALLOWED");
  } finally {
    await s.close();
  }
});

Deno.test("[cli] keys create --origin accepts only http(s) origins (exit 2 otherwise) and stores them serialised", async () => {
  const t = await tokenEnv();
  for (const bad of BAD_ORIGINS) {
    if (typeof bad !== "string" || bad === "") continue;
    const r = await runInProcess(["keys", "create", "--mode", "test", "--origin", bad], {
      tokenStore: t.store,
    });
    equal(r.code, 2, `${bad}: ${r.stderr}`);
    match(r.stderr, /--origin must be an http\(s\) origin/);
  }
  equal((await t.store.listKeys()).length, 0);
  const r = await runInProcess(
    ["keys", "create", "--mode", "test", "--origin", "https://App.example.com", "--json"],
    { tokenStore: t.store },
  );
  equal(r.code, 0, r.stderr);
  deepStrictEqual((await t.store.getKey(r.json().keyId))?.allowedOrigins, [
    "https://app.example.com",
  ]);
});
