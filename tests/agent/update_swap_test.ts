/**
 * runSwap() with real folders and real processes (Linux/macOS: sh, sleep): a new version whose
 * program runs but never answers /health is stopped after the health timeout and the previous
 * package is put back, with last.json saying why; a staged package that cannot be moved in is
 * rolled back the same way. (tests/e2e/update_test.ts runs the whole update with real packages.)
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import {
  readOutcome,
  runSwap,
  type SwapPlan,
  systemProcessDeps,
} from "../../src/agent/update/mod.ts";
import { processAlive } from "../../src/agent/start/mod.ts";

const posix = Deno.build.os !== "windows";

async function site() {
  const dir = await Deno.makeTempDir({ prefix: "svc-swap-test-" });
  const install = join(dir, "opt", "svc-filing");
  const staged = join(dir, "data", "updates", "0.9.1.unpacking", "svc-filing");
  const data = join(dir, "data");
  await Deno.mkdir(install, { recursive: true });
  await Deno.mkdir(staged, { recursive: true });
  await Deno.writeTextFile(join(install, "VERSION"), "0.9.0\n");
  await Deno.writeTextFile(join(staged, "VERSION"), "0.9.1\n");
  // The new launcher runs but never listens: it records its pid and sleeps.
  await Deno.writeTextFile(
    join(staged, "svc-filing"),
    `#!/bin/sh\necho $$ > "${dir}/new.pid"\nexec sleep 30\n`,
    { mode: 0o755 },
  );
  const plan: SwapPlan = {
    id: "u1",
    os: Deno.build.os,
    install,
    staged,
    dataDir: data,
    from: "0.9.0",
    to: "0.9.1",
    agent: null,
    waitPids: [],
  };
  const lines: string[] = [];
  const deps = {
    ...systemProcessDeps(Deno.build.os, data, join(data, "updates", "agent.log")),
    log: (_l: string, msg: string, f?: Record<string, unknown>) =>
      void lines.push(`${msg} ${JSON.stringify(f ?? {})}`),
    healthTimeoutMs: 1_000,
  };
  return { dir, install, staged, data, plan, deps, lines };
}

Deno.test({
  name: "runSwap() rolls back a new version that never answers /health, and stops it",
  ignore: !posix,
  async fn() {
    const s = await site();
    try {
      const o = await runSwap(s.plan, s.deps);
      assert.equal(o.outcome, "rolled_back");
      assert.match(o.reason!, /did not answer \/health within 1 s/);
      assert.equal(await Deno.readTextFile(join(s.install, "VERSION")), "0.9.0\n");
      for (const p of [`${s.install}.previous`, `${s.install}.failed`, s.staged]) {
        assert.equal(await Deno.stat(p).then(() => true, () => false), false, p);
      }
      const pid = Number(await Deno.readTextFile(join(s.dir, "new.pid")));
      assert.equal(await processAlive(pid), false, "the new version still runs");
      const last = await readOutcome(join(s.data, "updates", "last.json"));
      assert.deepEqual({ ...last, at: "" }, { ...o, at: "" });
      assert.ok(s.lines.some((l) => l.startsWith("rolling back")), s.lines.join("\n"));
    } finally {
      await Deno.remove(s.dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "runSwap() puts the previous package back when the new one cannot be moved in",
  ignore: !posix,
  async fn() {
    const s = await site();
    try {
      await Deno.remove(s.staged, { recursive: true }); // gone: the move fails
      const o = await runSwap(s.plan, s.deps);
      assert.equal(o.outcome, "rolled_back");
      assert.match(o.reason!, /could not be moved to/);
      assert.equal(await Deno.readTextFile(join(s.install, "VERSION")), "0.9.0\n");
      assert.equal(await Deno.stat(`${s.install}.previous`).then(() => true, () => false), false);
    } finally {
      await Deno.remove(s.dir, { recursive: true });
    }
  },
});
