import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { createEarlyHandler, earlySettings, isOwnHost } from "../../src/agent/early.ts";

const defaults = { port: 17470, dataDir: "/home/a/.local/share/svc-filing" };

Deno.test("earlySettings(): flag over variable over default; anything unusual goes to the zod config", () => {
  deepStrictEqual(earlySettings({}, {}, defaults), defaults);
  deepStrictEqual(
    earlySettings(
      { port: "0", dataDir: "/d" },
      { SVC_AGENT_PORT: "17471", SVC_DATA_DIR: "/e" },
      defaults,
    ),
    { port: 0, dataDir: "/d" },
  );
  deepStrictEqual(earlySettings({}, { SVC_AGENT_PORT: "17471", SVC_DATA_DIR: "/e" }, defaults), {
    port: 17471,
    dataDir: "/e",
  });
  deepStrictEqual(earlySettings({}, { SVC_AGENT_PORT: "", SVC_DATA_DIR: "" }, defaults), defaults);
  for (const port of ["-1", "65536", "80x", " 80", "1e3", "123456"]) {
    equal(earlySettings({ port }, {}, defaults), null, port);
  }
});

Deno.test("isOwnHost(): loopback names on the agent's ports only, any case", () => {
  ok(isOwnHost("127.0.0.1:17470", [17470]));
  ok(isOwnHost("LOCALHOST:17471", [17470, 17471]));
  ok(isOwnHost("[::1]:17470", [17470]));
  ok(!isOwnHost("127.0.0.1:17471", [17470]));
  ok(!isOwnHost("evil.example:17470", [17470]));
  ok(!isOwnHost("127.0.0.1", [17470]));
});

const req = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  new Request(`http://127.0.0.1:17470${path}`, {
    method,
    headers: { host: "127.0.0.1:17470", ...headers },
  });

Deno.test("early handler: answers /health as starting, holds every other request until the app is ready", async () => {
  const h = createEarlyHandler("1.2.3", () => [17470]);
  const health = await h.fetch(req("/health"));
  equal(health.status, 200);
  equal(health.headers.get("cache-control"), "no-store");
  deepStrictEqual(await health.json(), {
    status: "starting",
    service: "svc-agent",
    version: "1.2.3",
    port: 17470,
    latestVersion: null,
    updateAvailable: false,
  });
  let answered = false;
  const op = Promise.resolve(h.fetch(req("/api/v1/operations/nap_catalog", {}, "POST"))).then(
    (r) => (answered = true, r),
  );
  // A page's /health needs the full app's CORS answer, and a foreign Host its 421: both wait.
  const fromPage = Promise.resolve(h.fetch(req("/health", { origin: "https://app.example" })));
  const foreign = Promise.resolve(h.fetch(req("/health", { host: "evil.example:17470" })));
  await new Promise((r) => setTimeout(r, 20));
  equal(answered, false, "an operation waits for the app");
  const seen: string[] = [];
  h.ready((r) => {
    seen.push(`${r.method} ${new URL(r.url).pathname} ${r.headers.get("host")}`);
    return new Response("full app", { status: 299 });
  });
  for (const p of [op, fromPage, foreign]) {
    const r = await p;
    equal(r.status, 299);
    equal(await r.text(), "full app");
  }
  deepStrictEqual(seen, [
    "POST /api/v1/operations/nap_catalog 127.0.0.1:17470",
    "GET /health 127.0.0.1:17470",
    "GET /health evil.example:17470",
  ]);
  equal((await h.fetch(req("/health"))).status, 299, "after ready, /health is the app's");
});

Deno.test("early handler: when the start fails, waiting requests get 502 AGENT_INTERNAL_ERROR", async () => {
  const h = createEarlyHandler("1.2.3", () => [17470]);
  const waiting = Promise.resolve(h.fetch(req("/api/senders")));
  h.failed();
  const r = await waiting;
  equal(r.status, 502);
  equal((await r.json()).errorCode, "AGENT_INTERNAL_ERROR");
});
