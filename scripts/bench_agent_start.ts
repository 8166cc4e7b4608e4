/**
 * Issue #7 benchmark: the agent's cold start to the first `/health` answer (and to "Agent
 * ready", when operations are served), and its resident memory (VmRSS) after 10,000
 * operations, against a bare `Deno.serve` hello-world started the same way (`deno run -A
 * <file>`) and sent 10,000 requests. The agent runs as autostart runs it (`--v8-flags` of
 * AGENT_V8_FLAGS); the hello-world is measured plain and with the same flags. One run; start
 * times are the median of 5 starts each.
 *
 *   deno run -A scripts/bench_agent_start.ts [--ops 10000]
 */
import { parseArgs } from "node:util";
import { TextLineStream } from "../tests/_helpers/lines.ts";
import { loadKeyRing } from "../src/token/signer.ts";
import { openTokenStore } from "../src/token/open_store.ts";
import { AGENT_V8_FLAGS } from "../src/defaults.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { ops: { type: "string", default: "10000" } },
});
const OPS = Number(values.ops);
const root = new URL("../", import.meta.url).pathname;

const V8 = `--v8-flags=${AGENT_V8_FLAGS}`;

async function spawn(
  args: string[],
  banner: RegExp,
  env: Record<string, string> = {},
  flags: string[] = [],
) {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, ...args],
    env: {
      NO_COLOR: "1",
      SVC_LOG_LEVEL: "error",
      SVC_OPEN_BROWSER: "never",
      SVC_RATE_LIMIT_OPERATIONS: "1000000000",
      ...env,
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream())
    .getReader();
  let url = "";
  while (!url) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`${args.join(" ")} exited`);
    url = banner.exec(value)?.[1] ?? "";
  }
  // Poll the health route until it answers (the banner comes right after listen).
  const path = url.includes("Hello") ? "/" : "/health";
  for (;;) {
    try {
      const r = await fetch(`${url}${path}`);
      await r.body?.cancel();
      if (r.ok) break;
    } catch { /* not yet */ }
  }
  const ms = performance.now() - t0;
  let readyMs = ms;
  if (banner.source.includes("Agent")) {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`${args.join(" ")} exited`);
      if (/^Agent ready:/.test(value)) break;
    }
    readyMs = performance.now() - t0;
  }
  (async () => {
    while (!(await lines.read()).done) { /* drain */ }
  })();
  return { child, url, ms, readyMs };
}

const rss = (pid: number) => {
  const s = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(s)![1]) / 1024;
};
/** OPS plain GETs, 16 in flight (the hello-world's counterpart of the agent's operations). */
async function sendHello(url: string) {
  for (let i = 0; i < OPS; i += 16) {
    await Promise.all(Array.from({ length: 16 }, async () => {
      const r = await fetch(url);
      await r.body?.cancel();
    }));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = await Deno.makeTempDir({ prefix: "svc-bench-start-" });
const ts = await spawn([
  `${root}main.ts`,
  "token-service",
  "--port",
  "0",
  "--data-dir",
  `${dir}/ts`,
], /^Token service: (\S+)/);

const starts = { agent: [] as number[], ready: [] as number[], hello: [] as number[] };
for (let i = 0; i < 5; i++) {
  const h = await spawn([`${root}scripts/hello_server.ts`], /^Hello: (\S+)/);
  starts.hello.push(h.ms);
  h.child.kill();
  await h.child.status;
  const a = await spawn(
    [
      `${root}main.ts`,
      "agent",
      "--port",
      "0",
      "--data-dir",
      `${dir}/agent${i}`,
      "--token-service",
      ts.url,
    ],
    /^Agent: (\S+)/,
    {},
    [V8],
  );
  starts.agent.push(a.ms);
  starts.ready.push(a.readyMs);
  a.child.kill();
  await a.child.status;
}

// Memory after OPS operations.
const agent = await spawn(
  [
    `${root}main.ts`,
    "agent",
    "--port",
    "0",
    "--data-dir",
    `${dir}/agent-mem`,
    "--token-service",
    ts.url,
  ],
  /^Agent: (\S+)/,
  {},
  [V8],
);
const store = await openTokenStore({ dataDir: `${dir}/ts` });
const ring = await loadKeyRing(store, Date.now());
const rssStartAgent = rss(agent.child.pid);
let done = 0;
while (done < OPS) {
  const n = Math.min(1000, OPS - done);
  const now = Math.floor(Date.now() / 1000);
  const tokens = await Promise.all(Array.from({ length: n }, () =>
    ring.sign(
      {
        iss: ts.url,
        aud: "svc-agent",
        sub: "bench",
        jti: crypto.randomUUID(),
        typeId: "nap_catalog",
        mode: "test",
        intg: "bench",
      },
      now,
      now + 5,
    )));
  for (let i = 0; i < n; i += 16) {
    await Promise.all(
      tokens.slice(i, i + 16).map(async (t) => {
        const r = await fetch(`${agent.url}/api/v1/operations/nap_catalog`, {
          method: "POST",
          headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
          body: '{"filter":"ДДС"}',
        });
        if (r.status !== 200) throw new Error(`status ${r.status}`);
        await r.body?.cancel();
      }),
    );
  }
  done += n;
}
const agentRss = rss(agent.child.pid);
const hello = await spawn([`${root}scripts/hello_server.ts`], /^Hello: (\S+)/);
const rssStartHello = rss(hello.child.pid);
await sendHello(hello.url);
const helloRss = rss(hello.child.pid);
const helloV8 = await spawn([`${root}scripts/hello_server.ts`], /^Hello: (\S+)/, {}, [V8]);
await sendHello(helloV8.url);
const helloV8Rss = rss(helloV8.child.pid);
for (const p of [agent.child, hello.child, helloV8.child, ts.child]) {
  p.kill();
  await p.status;
}
await store.close();
await Deno.remove(dir, { recursive: true });

const sa = median(starts.agent), sr = median(starts.ready), sh = median(starts.hello);
console.log(
  `deno run -A, loopback, median of 5 starts; memory after ${OPS} requests (16 in flight)\n`,
);
console.log("| measure | agent | bare Deno.serve | ratio | target |\n|---|---|---|---|---|");
console.log(
  `| cold start to first answer | ${sa.toFixed(0)} ms | ${sh.toFixed(0)} ms | ${
    (sa / sh).toFixed(2)
  }× | ≤ 2× |`,
);
console.log(
  `| cold start to "Agent ready" (operations served) | ${sr.toFixed(0)} ms | ${
    sh.toFixed(0)
  } ms | ${(sr / sh).toFixed(2)}× | |`,
);
console.log(
  `| RSS when ready | ${rssStartAgent.toFixed(0)} MB | ${rssStartHello.toFixed(0)} MB | ${
    (rssStartAgent / rssStartHello).toFixed(2)
  }× | |`,
);
console.log(
  `| RSS after ${OPS} operations | ${agentRss.toFixed(0)} MB | ${helloRss.toFixed(0)} MB | ${
    (agentRss / helloRss).toFixed(2)
  }× | ≤ 2× |`,
);
console.log(
  `| RSS after ${OPS} operations, hello-world with the agent's ${V8} | ${
    agentRss.toFixed(0)
  } MB | ${helloV8Rss.toFixed(0)} MB | ${(agentRss / helloV8Rss).toFixed(2)}× | |`,
);
