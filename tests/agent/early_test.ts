import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { parseArgs } from "node:util";
import { posix, win32 } from "node:path";
import {
  createEarlyHandler,
  earlyAgentFlags,
  earlySettings,
  isOwnHost,
  phase2Start,
} from "../../src/agent/start/early.ts";
import { joinPath } from "../../src/defaults.ts";

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

Deno.test("earlyAgentFlags(): the plain agent command line, read as parseArgs reads it", () => {
  const lines = [
    [],
    ["--port", "0"],
    ["--port=17471", "--data-dir", "/tmp/a b"],
    ["--data-dir=/d", "--token-service", "http://127.0.0.1:17480", "--port", "5"],
    ["--data-dir=x=y"],
  ];
  for (const args of lines) {
    const early = earlyAgentFlags(args);
    const { values } = parseArgs({
      args,
      strict: true,
      options: {
        port: { type: "string" },
        "data-dir": { type: "string" },
        "token-service": { type: "string" },
      },
    });
    deepStrictEqual(early, {
      ...(values.port !== undefined ? { port: values.port } : {}),
      ...(values["data-dir"] !== undefined ? { dataDir: values["data-dir"] } : {}),
      ...(values["token-service"] !== undefined ? { tokenService: values["token-service"] } : {}),
    }, args.join(" "));
  }
  // Anything else takes the ordinary path, where parseArgs and zod report what is wrong.
  for (
    const args of [
      ["doctor"],
      ["--port"],
      ["--port", "--data-dir", "/d"],
      ["--port", "1", "--port", "2"],
      ["--help"],
      ["--", "--port", "1"],
      ["-p", "1"],
      ["--constructor", "1"],
      ["--__proto__=1"],
      ["--min-agent-version", "1.0.0"],
    ]
  ) equal(earlyAgentFlags(args), null, args.join(" "));
});

Deno.test("joinPath(): node:path's join for plain names, on each OS", () => {
  const cases: [string, string[]][] = [
    ["linux", ["/home/a/", "svc-filing"]],
    ["linux", ["/", "x"]],
    ["linux", [".", "x"]],
    ["linux", ["a", ".", "b"]],
    ["linux", ["/home/a", ".local", "share", "svc-filing"]],
    ["darwin", ["/Users/a", "Library", "Application Support", "svc-filing"]],
    ["windows", ["C:\\Users\\a\\AppData\\Local", "svc-filing"]],
    ["windows", [".", "svc-filing"]],
    ["windows", ["C:\\", "x"]],
    ["windows", ["C:/Users/a/", "x"]],
    ["windows", ["\\\\srv\\share\\", "x"]],
  ];
  for (const [os, parts] of cases) {
    equal(
      joinPath(os, ...parts),
      (os === "windows" ? win32 : posix).join(...parts),
      parts.join("|"),
    );
  }
});

Deno.test("phase2Start(): goes once the first /health is answered, or after the grace", async () => {
  const h = createEarlyHandler("1.2.3", () => [17470]);
  let started = false;
  const start = phase2Start(h, 60_000).then(() => started = true);
  await new Promise((r) => setTimeout(r, 20));
  equal(started, false, "nobody asked yet");
  const asked = performance.now();
  await (await h.fetch(req("/health"))).body?.cancel();
  await start;
  ok(started);
  ok(performance.now() - asked < 1000, "the answer, not the 60 s grace, started phase 2");
  const t = performance.now();
  await phase2Start(createEarlyHandler("1.2.3", () => [17470]), 30);
  ok(performance.now() - t >= 25, "without a caller it waits the grace");
});
