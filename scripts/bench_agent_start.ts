/**
 * Benchmark (BENCHMARKS.md § Agent cold start): the agent's cold start to the first `/health`
 * answer (and to "Agent ready", when operations are served), and its resident memory (VmRSS) after
 * 10,000 operations, against a bare `Deno.serve` hello-world started the same way (`deno run -A
 * --v8-flags=<flags> <file>`) and sent 10,000 requests.
 *
 * Every Deno process of the run (token service, agent, hello-world) gets the same V8 flags
 * (default AGENT_V8_FLAGS, as autostart runs the agent): Deno's V8 code cache is only valid for
 * the flags it was made with, so alternating flags made every agent start a cache-cold one
 * (measured: 80 ms to the banner instead of 37 ms). One warm-up start of each is discarded; the
 * start times are the median of `--starts` starts. While phase 2 loads, `/health` is polled
 * back to back and the longest wait for an answer is reported.
 *
 *   deno run -A scripts/bench_agent_start.ts [--ops 10000] [--starts 5]
 *     [--entry dist/svc-filing.bundle.js] [--v8-flags FLAGS]
 *
 * `--entry` runs another form of the program (e.g. the bundle of `deno task build`; a path
 * outside the repository is run with `--no-config` and the lazy-import flag).
 */
import { parseArgs } from "node:util";
import { TextLineStream } from "../tests/_helpers/lines.ts";
import { loadKeyRing, openTokenStore } from "../src/token/mod.ts";
import { AGENT_V8_FLAGS } from "../src/defaults.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    ops: { type: "string", default: "10000" },
    starts: { type: "string", default: "5" },
    entry: { type: "string" },
    "v8-flags": { type: "string", default: AGENT_V8_FLAGS },
  },
});
const OPS = Number(values.ops);
const STARTS = Number(values.starts);
const root = new URL("../", import.meta.url).pathname;
const ENTRY = values.entry ? await Deno.realPath(values.entry) : `${root}main.ts`;
const V8 = `--v8-flags=${values["v8-flags"]}`;
/** Deno flags for the agent: a bundle outside the repository has no deno.json to read. */
const ENTRY_FLAGS = ENTRY.startsWith(root)
  ? [V8]
  : [V8, "--no-config", "--no-lock", "--unstable-lazy-dynamic-imports"];

async function spawn(
  args: string[],
  banner: RegExp,
  env: Record<string, string> = {},
  flags: string[] = [V8],
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
  let readyMs = ms, longestWait = 0;
  if (banner.source.includes("Agent")) {
    // Poll /health back to back until it says "ok": the longest answer is the longest time a
    // request waited for a module group of phase 2.
    for (let status = "starting"; status === "starting";) {
      const s = performance.now();
      const r = await fetch(`${url}/health`);
      status = (await r.json()).status;
      longestWait = Math.max(longestWait, performance.now() - s);
    }
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
  return { child, url, ms, readyMs, longestWait };
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

const startAgent = (name: string) =>
  spawn(
    [ENTRY, "agent", "--port", "0", "--data-dir", `${dir}/${name}`, "--token-service", ts.url],
    /^Agent: (\S+)/,
    {},
    ENTRY_FLAGS,
  );
const startHello = () =>
  spawn([`${root}scripts/hello_server.ts`], /^Hello: (\S+)/, {}, ENTRY_FLAGS);
const stop = async (p: { child: Deno.ChildProcess }) => {
  p.child.kill();
  await p.child.status;
};

// Warm-up (not counted): the first start after other flags or a change rebuilds the code cache.
const first = { hello: await startHello(), agent: await startAgent("agent-warmup") };
await stop(first.hello);
await stop(first.agent);
const starts = {
  agent: [] as number[],
  ready: [] as number[],
  hello: [] as number[],
  wait: [] as number[],
};
for (let i = 0; i < STARTS; i++) {
  const h = await startHello();
  starts.hello.push(h.ms);
  await stop(h);
  const a = await startAgent(`agent${i}`);
  starts.agent.push(a.ms);
  starts.ready.push(a.readyMs);
  starts.wait.push(a.longestWait);
  await stop(a);
}

// Memory after OPS operations.
const agent = await startAgent("agent-mem");
const store = await openTokenStore({ dataDir: `${dir}/ts` });
const ring = await loadKeyRing({ store }, Date.now());
const rssStartAgent = rss(agent.child.pid);
let done = 0, opsMs = 0;
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
  const t = performance.now();
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
  opsMs += performance.now() - t;
  done += n;
}
const agentRss = rss(agent.child.pid);
const hello = await startHello();
const rssStartHello = rss(hello.child.pid);
await sendHello(hello.url);
const helloRss = rss(hello.child.pid);
// For comparison: the hello-world without the agent's V8 flags (run last: other flags would
// invalidate the code cache the starts above used).
const plainFlags = ENTRY_FLAGS.filter((f) => !f.startsWith("--v8-flags"));
const startPlain = () => spawn([`${root}scripts/hello_server.ts`], /^Hello: (\S+)/, {}, plainFlags);
await stop(await startPlain()); // warm-up under these flags
const plainStarts: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const p = await startPlain();
  plainStarts.push(p.ms);
  await stop(p);
}
const plain = await startPlain();
await sendHello(plain.url);
const plainRss = rss(plain.child.pid);
for (const p of [agent, hello, plain, ts]) await stop(p);
await store.close();
await Deno.remove(dir, { recursive: true });

const sa = median(starts.agent), sr = median(starts.ready), sh = median(starts.hello);
const row = (what: string, a: number, h: number, unit: string, target = "") =>
  console.log(
    `| ${what} | ${a.toFixed(0)} ${unit} | ${h.toFixed(0)} ${unit} | ${
      (a / h).toFixed(2)
    }× | ${target} |`,
  );
console.log(
  `deno run -A ${ENTRY_FLAGS.join(" ")}, loopback; ${ENTRY.replace(root, "")}; ` +
    `median of ${STARTS} starts after one warm-up; memory after ${OPS} requests (16 in flight)\n`,
);
console.log("| measure | agent | bare Deno.serve | ratio | target |\n|---|---|---|---|---|");
row("cold start to first `/health` answer", sa, sh, "ms", "≤ 2×");
row("cold start to first answer, hello-world without V8 flags", sa, median(plainStarts), "ms");
row("cold start to `Agent ready` (operations served)", sr, sh, "ms");
row("RSS when ready", rssStartAgent, rssStartHello, "MB");
row(`RSS after ${OPS} operations`, agentRss, helloRss, "MB", "≤ 2×");
row(`RSS after ${OPS} operations, hello-world without V8 flags`, agentRss, plainRss, "MB");
console.log(
  `| operations/s during that run (token signing excluded) | ${
    (OPS / opsMs * 1000).toFixed(0)
  } | | | |`,
);
console.log(
  `\nLongest /health wait while phase 2 loads (median over starts): ${
    median(starts.wait).toFixed(0)
  } ms; first start of the run (warm-up): agent ${first.agent.ms.toFixed(0)} ms, hello-world ${
    first.hello.ms.toFixed(0)
  } ms.`,
);
