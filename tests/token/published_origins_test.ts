/**
 * The agents' allow-list (docs/token-service.md § Page origins): origins are registered only as
 * https (http on loopback only), at most 10 per list; the published list holds at most 10 per
 * integrator and never an http origin off loopback stored before the rule; it carries an ETag,
 * an agent's fetcher sends `If-None-Match` and keeps its copy on 304. Over real HTTP on loopback.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { systemClock } from "../../src/clock.ts";
import { publishedOrigins } from "../../src/agent/http/mod.ts";
import { createTokenService, sqliteTokenStore } from "../../src/token/mod.ts";

const ADMIN = "b".repeat(40);

Deno.test("[token] registered origins are https or loopback, capped; the published list has an ETag and 304", async () => {
  const store = sqliteTokenStore(":memory:");
  await store.migrate();
  const svc = await createTokenService({
    store,
    clock: systemClock,
    config: { issuer: "http://svc.test", audience: "svc-agent", minAgentVersion: null },
    adminToken: ADMIN,
    usageFlushMs: 0,
  });
  const statuses: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const res = await svc.app.fetch(req);
    if (new URL(req.url).pathname === "/api/v1/allowed-origins") statuses.push(res.status);
    return res;
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const admin = async (method: string, path: string, body: unknown) => {
    const r = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  try {
    // Registration: http off loopback and an 11th origin are refused.
    const plain = await admin("POST", "/integrators", {
      id: "evil",
      name: "Demo integrator",
      allowedOrigins: ["http://evil.example"],
    });
    equal(plain.status, 400);
    equal(plain.body.errorCode, "VALIDATION_FAILED");
    const many = Array.from({ length: 11 }, (_, i) => `https://p${i}.one.test`);
    equal(
      (await admin("POST", "/integrators", { name: "Many", allowedOrigins: many })).status,
      400,
    );
    const ok1 = await admin("POST", "/integrators", {
      id: "one",
      name: "One",
      allowedOrigins: ["http://localhost:5173", "https://app.one.test"],
    });
    equal(ok1.status, 201);
    // Stored before the rules (through the store): 12 https origins and an http one.
    await store.createIntegrator({
      id: "old",
      name: "Old",
      email: null,
      locale: "bg",
      allowedOrigins: [
        "http://plain.old.test",
        ...Array.from({ length: 12 }, (_, i) => `https://p${i}.old.test`),
      ],
      createdAt: Date.now(),
    });

    const fetchList = publishedOrigins(url);
    const first = await fetchList();
    ok(first.includes("http://localhost:5173") && first.includes("https://app.one.test"));
    ok(!first.includes("http://plain.old.test"));
    equal(first.filter((o) => o.endsWith(".old.test")).length, 10);
    // The second fetch sends the ETag and keeps its copy on 304.
    const second = await fetchList();
    deepStrictEqual(second, first);
    deepStrictEqual(statuses, [200, 304]);
    const direct = await fetch(`${url}/api/v1/allowed-origins`);
    const etag = direct.headers.get("etag")!;
    await direct.body?.cancel();
    ok(/^"[A-Za-z0-9_-]{43}"$/.test(etag), etag);
    const again = await fetch(`${url}/api/v1/allowed-origins`, {
      headers: { "if-none-match": etag },
    });
    equal(again.status, 304);
    equal(again.headers.get("etag"), etag);
    await again.body?.cancel();
  } finally {
    await server.shutdown();
    await svc.stop();
    await store.close();
  }
});
