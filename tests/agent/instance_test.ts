import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  acquireInstanceLock,
  discoverAgent,
  type InstanceLock,
  LOCK_FILE,
  processAlive,
  type RunningAgent,
} from "../../src/agent/start/instance.ts";

const info = (port = 0) => ({
  pid: Deno.pid,
  port,
  startedAt: new Date().toISOString(),
  version: "9.9.9",
});
const held = (r: InstanceLock | { running: RunningAgent }): InstanceLock => {
  ok(!("running" in r), `expected the lock, got ${JSON.stringify(r)}`);
  return r as InstanceLock;
};
const running = (r: InstanceLock | { running: RunningAgent }): RunningAgent => {
  ok("running" in r, "expected a running agent");
  return (r as { running: RunningAgent }).running;
};
/** A fake agent's /health on a free loopback port. */
function fakeAgent(service = "svc-agent") {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/health"
        ? Response.json({ status: "ok", service, version: "9.9.9" })
        : new Response("no", { status: 404 }),
  );
}

Deno.test("acquireInstanceLock() second acquisition in one data dir reports the first (port from /health)", async () => {
  const dir = await Deno.makeTempDir();
  const srv = fakeAgent();
  try {
    const lock = held(await acquireInstanceLock(dir, info()));
    await lock.update(srv.addr.port);
    const stored = JSON.parse(await Deno.readTextFile(join(dir, LOCK_FILE)));
    equal(stored.port, srv.addr.port);
    equal(stored.pid, Deno.pid);
    const r = running(await acquireInstanceLock(dir, info()));
    deepStrictEqual(r, {
      pid: Deno.pid,
      port: srv.addr.port,
      url: `http://127.0.0.1:${srv.addr.port}`,
      version: "9.9.9",
    });
    await lock.release();
    await Deno.stat(join(dir, LOCK_FILE)).then(() => ok(false, "lock not removed"), () => {});
    held(await acquireInstanceLock(dir, info())).releaseSync();
  } finally {
    await srv.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("acquireInstanceLock() a starting agent (alive, young lock, no /health yet) counts as running", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = held(await acquireInstanceLock(dir, info()));
    await first.update(1); // nothing listens on port 1
    const r = running(await acquireInstanceLock(dir, info(), { probeTimeoutMs: 300 }));
    equal(r.pid, Deno.pid);
    equal(r.port, 1);
    await first.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("acquireInstanceLock() takes over the stale lock of a dead pid", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const child = new Deno.Command(Deno.execPath(), { args: ["eval", "0"] }).spawn();
    const deadPid = child.pid;
    await child.status;
    equal(await processAlive(deadPid), false);
    await Deno.writeTextFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ ...info(1), pid: deadPid, instanceId: "old" }),
    );
    const lock = held(await acquireInstanceLock(dir, info(), { probeTimeoutMs: 300 }));
    const stored = JSON.parse(await Deno.readTextFile(lock.path));
    equal(stored.pid, Deno.pid);
    ok(stored.instanceId !== "old");
    equal((await Array.fromAsync(Deno.readDir(dir))).length, 1, "no leftover .stale files");
    await lock.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("acquireInstanceLock() takes over an old lock of a live pid that never answered /health, and garbage", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const old = new Date(Date.now() - 3_600_000).toISOString();
    await Deno.writeTextFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ ...info(1), startedAt: old, instanceId: "reused-pid" }),
    );
    const lock = held(await acquireInstanceLock(dir, info(), { probeTimeoutMs: 300 }));
    await lock.release();
    await Deno.writeTextFile(join(dir, LOCK_FILE), "{not json");
    const later = Date.now() + 3_600_000;
    held(await acquireInstanceLock(dir, info(), { now: () => later })).releaseSync();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("InstanceLock.release() leaves a successor's lock alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const lock = held(await acquireInstanceLock(dir, info()));
    const successor = JSON.stringify({ ...info(5), instanceId: "successor" });
    await Deno.writeTextFile(lock.path, successor);
    await lock.release();
    equal(await Deno.readTextFile(lock.path), successor);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("discoverAgent() returns the first port answering as svc-agent, ignores other services", async () => {
  const other = fakeAgent("something-else");
  const agent = fakeAgent();
  try {
    const closed = (() => {
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const p = (l.addr as Deno.NetAddr).port;
      l.close();
      return p;
    })();
    const found = await discoverAgent([closed, other.addr.port, agent.addr.port], fetch, 1000);
    deepStrictEqual(found, {
      pid: null,
      port: agent.addr.port,
      url: `http://127.0.0.1:${agent.addr.port}`,
      version: "9.9.9",
    });
    equal(await discoverAgent([closed, other.addr.port]), null);
  } finally {
    await other.shutdown();
    await agent.shutdown();
  }
});

/** A tiny resident agent built from instance.ts + Deno.serve (what main.ts will do). */
const SCRIPT = `
import { acquireInstanceLock } from ${
  JSON.stringify(import.meta.resolve("../../src/agent/start/instance.ts"))
};
const dir = Deno.args[0];
const r = await acquireInstanceLock(dir, { pid: Deno.pid, port: 0, startedAt: new Date().toISOString(), version: "9.9.9" });
if ("running" in r) {
  const a = r.running;
  console.log(\`Agent already running at \${a.url} (pid \${a.pid}, version \${a.version})\`);
  Deno.exit(0);
}
const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} },
  () => Response.json({ status: "ok", service: "svc-agent", version: "9.9.9" }));
await r.update(srv.addr.port);
console.log("Agent: http://127.0.0.1:" + srv.addr.port);
Deno.addSignalListener("SIGTERM", async () => { await r.release(); Deno.exit(0); });
`;

Deno.test({
  name: "[instance] a second agent process with the same data dir prints the first and exits 0",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir();
    const script = join(dir, "mini_agent.ts");
    await Deno.writeTextFile(script, SCRIPT);
    const first = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-lock", script, join(dir, "data")],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    try {
      const reader = first.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const line = (await reader.read()).value ?? "";
      const url = line.match(/Agent: (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
      ok(url, `first start printed ${line}`);
      const second = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--no-lock", script, join(dir, "data")],
        stdout: "piped",
      }).output();
      equal(second.code, 0);
      equal(
        new TextDecoder().decode(second.stdout).trim(),
        `Agent already running at ${url} (pid ${first.pid}, version 9.9.9)`,
      );
      first.kill("SIGTERM");
      equal((await first.status).code, 0);
      reader.releaseLock();
      await first.stdout.cancel().catch(() => {});
      await Deno.stat(join(dir, "data", LOCK_FILE)).then(() => ok(false, "lock left"), () => {});
    } finally {
      try {
        first.kill("SIGKILL");
      } catch { /* exited */ }
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "[main.ts] `agent` started twice with one data dir: the second prints the first and exits 0",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir();
    const main = new URL("../../main.ts", import.meta.url).pathname;
    const args = ["run", "-A", main, "agent", "--port", "0", "--data-dir", dir];
    const env = { SVC_OPEN_BROWSER: "never", SVC_LOG_LEVEL: "error", NO_COLOR: "1" };
    const first = new Deno.Command(Deno.execPath(), { args, env, stdout: "piped" }).spawn();
    try {
      const reader = first.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!/Agent: http:\/\/127\.0\.0\.1:\d+/.test(out)) {
        const { value, done } = await reader.read();
        if (done) break;
        out += value;
      }
      const url = out.match(/Agent: (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
      ok(url, `first start printed: ${out}`);
      const second = await new Deno.Command(Deno.execPath(), { args, env, stdout: "piped" })
        .output();
      equal(second.code, 0);
      ok(
        new TextDecoder().decode(second.stdout).includes(
          `Agent already running at ${url} (pid ${first.pid}, version `,
        ),
      );
      const health = await fetch(`${url}/health`);
      equal(health.status, 200, "the first agent keeps serving");
      await health.body?.cancel();
      first.kill("SIGTERM"); // graceful shutdown releases the lock
      equal((await first.status).code, 0);
      reader.releaseLock();
      await first.stdout.cancel().catch(() => {});
      await Deno.stat(join(dir, LOCK_FILE)).then(() => ok(false, "lock left"), () => {});
    } finally {
      try {
        first.kill("SIGKILL");
      } catch { /* exited */ }
      await first.status;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "[main.ts] `agent` whose whole port range is taken fails and leaves no lock behind",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir();
    // Ten consecutive busy loopback ports: the start port and its fallback range.
    let held: Deno.Listener[] = [];
    for (let base = 41000; base < 60000 && held.length < 10; base += 10) {
      for (const l of held) l.close();
      held = [];
      for (let p = base; p < base + 10; p++) {
        try {
          held.push(Deno.listen({ hostname: "127.0.0.1", port: p }));
        } catch {
          break;
        }
      }
    }
    equal(held.length, 10, "ten consecutive free ports to occupy");
    try {
      const main = new URL("../../main.ts", import.meta.url).pathname;
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          main,
          "agent",
          "--port",
          String((held[0]!.addr as Deno.NetAddr).port),
          "--data-dir",
          dir,
        ],
        env: { SVC_OPEN_BROWSER: "never", SVC_LOG_LEVEL: "error", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(out.code, 1);
      ok(new TextDecoder().decode(out.stderr).length > 0, "the error is printed");
      await Deno.stat(join(dir, LOCK_FILE)).then(() => ok(false, "lock left"), () => {});
    } finally {
      for (const l of held) l.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
