import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import {
  findOwnAgent,
  readRunningRecord,
  removeRunningRecordSync,
  RUNNING_FILE,
  type RunningRecord,
  writeRunningRecord,
} from "../../src/agent/start/mod.ts";

const rec = (over: Partial<RunningRecord> = {}): RunningRecord => ({
  pid: Deno.pid,
  port: 17470,
  tlsPort: null,
  startedAt: "2026-03-02T10:00:00.000Z",
  version: "1.0.0",
  tokenServiceUrl: "http://127.0.0.1:4321",
  ...over,
});

Deno.test("writeRunningRecord() / readRunningRecord() / removeRunningRecordSync(): owner-only, only the writer's pid removes it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    equal(await readRunningRecord(dir), null);
    await writeRunningRecord(dir, rec({ tlsPort: 17490 }));
    deepStrictEqual(await readRunningRecord(dir), rec({ tlsPort: 17490 }));
    if (Deno.build.os !== "windows") {
      equal(((await Deno.stat(join(dir, RUNNING_FILE))).mode ?? 0) & 0o777, 0o600);
    }
    removeRunningRecordSync(dir, Deno.pid + 1); // another process's exit leaves it
    equal((await readRunningRecord(dir))?.pid, Deno.pid);
    removeRunningRecordSync(dir, Deno.pid);
    equal(await readRunningRecord(dir), null);
    removeRunningRecordSync(dir, Deno.pid); // gone: no error
    await Deno.writeTextFile(join(dir, RUNNING_FILE), "{half");
    equal(await readRunningRecord(dir), null);
    equal(await findOwnAgent(dir), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("findOwnAgent(): a live record on an answering port; a dead pid or a silent port is not this folder's agent", async () => {
  const dir = await Deno.makeTempDir();
  const srv = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ status: "ok", service: "svc-agent", version: "1.0.1" }),
  );
  const alive = (pid: number) => Promise.resolve(pid === Deno.pid);
  try {
    await writeRunningRecord(dir, rec({ port: srv.addr.port }));
    deepStrictEqual(await findOwnAgent(dir, { isAlive: alive }), {
      pid: Deno.pid,
      port: srv.addr.port,
      version: "1.0.1",
      state: "running",
      tokenServiceUrl: "http://127.0.0.1:4321",
      from: "running-file",
    });
    await writeRunningRecord(dir, rec({ port: srv.addr.port, pid: 4_000_000 }));
    equal(await findOwnAgent(dir, { isAlive: alive }), null);
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const silent = (l.addr as Deno.NetAddr).port;
    l.close();
    await writeRunningRecord(dir, rec({ port: silent }));
    equal(await findOwnAgent(dir, { isAlive: alive, timeoutMs: 500 }), null);
  } finally {
    await srv.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
