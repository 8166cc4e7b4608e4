/**
 * One OS user per agent (docs/running.md § Shared PCs): the cost of the peer check per request.
 * Two copies of the agent's whole HTTP app are served over real loopback TCP in this process —
 * one with the check of this OS (host/peer_owner.ts: netlink sock_diag on Linux), one without — and
 * sent the same light requests by `fetch` over kept-alive connections, alternating in bursts of
 * ~20 ms; each figure is the median per-request time over the rounds. Requests: `GET
 * /favicon.ico` (the lightest route behind every middleware) and `POST /console/links` (the
 * `agent open` handshake). Then the check alone (µs per call), through netlink (what the agent
 * uses) and through /proc/net/tcp (its fallback). Each with the machine's socket
 * table as it is, and with `--busy N` more loopback connections open (2N sockets in the table,
 * a terminal server's load).
 *
 * Usage: `deno run -A scripts/bench_peer_check.ts [--rounds 15] [--busy 1000]`
 * @module
 */
import { createAgentApp } from "../src/agent/mod.ts";
import { linuxPeerUid } from "../src/agent/host/peer_linux.ts";
import { sameUserCheck } from "../src/agent/host/mod.ts";
import { silentLogger } from "../src/log.ts";
import { createTestPortal } from "../src/portal/test/mod.ts";

const args = Deno.args;
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};
const ROUNDS = Number(arg("--rounds", "15"));
const BUSY = Number(arg("--busy", "1000"));
const SECRET = "bench-secret-bench-secret-bench-secret-abc";

const check = sameUserCheck(Deno.build.os);
if (!check) throw new Error(`the peer check is not enforced on ${Deno.build.os}`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Per-call µs of each subject: bursts of ~20 ms, subjects alternating round by round. */
async function timeAlternating(fns: (() => Promise<unknown> | unknown)[]): Promise<number[]> {
  const per: number[][] = fns.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, fn] of fns.entries()) {
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 20) {
        await fn();
        n++;
      }
      per[k]!.push(((performance.now() - t0) * 1000) / n);
    }
  }
  return per.map(median);
}

/** The agent's app served on loopback, with or without the check. */
function serve(withCheck: boolean) {
  let port = 0;
  const { app } = createAgentApp({
    clock: { now: () => Date.now() },
    log: silentLogger,
    verifier: { getKey: () => Promise.reject(new Error("unused")), issuer: "x", audience: "x" },
    senders: [],
    portals: { test: createTestPortal({ now: () => new Date() }) },
    openBrowser: () => {},
    port: () => port,
    rateLimits: { confirmPerMinute: 1e9 },
    console: { dataDir: "/nonexistent", tokenServiceUrl: "http://127.0.0.1:9", linkSecret: SECRET },
    ...(withCheck ? { sameUser: check! } : {}),
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  port = server.addr.port;
  return { server, url: `http://127.0.0.1:${port}` };
}

/** Open `n` loopback connections (2n sockets in the table). */
async function busyTable(n: number) {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < n; i++) {
    conns.push(await Deno.connect({ hostname: "127.0.0.1", port: l.addr.port }));
    conns.push(await l.accept());
  }
  return () => {
    for (const c of conns) c.close();
    l.close();
  };
}

const us = (x: number) => `${x.toFixed(1)} µs`;
const on = serve(true), off = serve(false);
const requests: [string, (base: string) => Promise<unknown>][] = [
  ["GET /favicon.ico", async (b) => await (await fetch(`${b}/favicon.ico`)).arrayBuffer()],
  ["POST /console/links", async (b) =>
    await (await fetch(`${b}/console/links`, {
      method: "POST",
      headers: { "x-svc-console-secret": SECRET },
    })).arrayBuffer()],
];
// Both answer as they should (the check passes this process's own requests).
for (const base of [on.url, off.url]) {
  const r = await fetch(`${base}/console/links`, {
    method: "POST",
    headers: { "x-svc-console-secret": SECRET },
  });
  if (r.status !== 200) throw new Error(`${base}: ${r.status} ${await r.text()}`);
}

console.log("| socket table | request | with the check | without | ratio |");
console.log("|---|---|---:|---:|---:|");
for (const busy of [0, BUSY]) {
  const close = busy ? await busyTable(busy) : () => {};
  const lines = Deno.build.os === "linux"
    ? Deno.readTextFileSync("/proc/net/tcp").split("\n").length - 2
    : 0;
  const label = `${lines.toLocaleString("en")} sockets`;
  for (const [name, req] of requests) {
    const [a, b] = await timeAlternating([() => req(on.url), () => req(off.url)]);
    console.log(`| ${label} | ${name} | ${us(a!)} | ${us(b!)} | ${(a! / b!).toFixed(2)}× |`);
  }
  if (Deno.build.os === "linux") {
    // The check alone, on a connection of this process.
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const c = await Deno.connect({ hostname: "127.0.0.1", port: l.addr.port });
    const s = await l.accept();
    const peer = s.remoteAddr as Deno.NetAddr;
    if (linuxPeerUid(peer, [l.addr.port]) !== Deno.uid()) throw new Error("not found");
    const proc = (p: string) => Deno.readTextFileSync(p);
    const [alone, viaProc] = await timeAlternating([
      () => linuxPeerUid(peer, [l.addr.port]),
      () => linuxPeerUid(peer, [l.addr.port], proc),
    ]);
    console.log(`| ${label} | the check alone (netlink sock_diag) | ${us(alone!)} | — | — |`);
    console.log(`| ${label} | the check alone (/proc/net/tcp) | ${us(viaProc!)} | — | — |`);
    c.close();
    s.close();
    l.close();
  }
  close();
}
await on.server.shutdown();
await off.server.shutdown();
