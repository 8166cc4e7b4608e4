/**
 * `agent doctor` against the real programs: after `demo` (`deno task start`: a token service on
 * a random port and an agent), `agent doctor --data-dir <demo>/agent` finds that agent as this
 * data folder's and checks the token service it was started with; the record the agent writes
 * (agent.running.json, 0600) is removed when the agent stops.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { readRunningRecord, RUNNING_FILE } from "../../src/agent/start/mod.ts";
import { MAIN, startAgent, startDemo } from "../_helpers/e2e.ts";
const ENV = { NO_COLOR: "1", SVC_OPEN_BROWSER: "never", SVC_LOG_LEVEL: "warn" };

async function doctor(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "agent", "doctor", ...args],
    env: ENV,
    clearEnv: false,
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

Deno.test("[e2e] agent doctor after `demo`: this data folder's agent and the token service it was started with", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-doctor-" });
  const demo = await startDemo({ dataDir: dir, env: ENV });
  try {
    const agentDir = join(dir, "agent");
    const port = Number(new URL(demo.agentUrl).port);
    const rec = await readRunningRecord(agentDir);
    equal(rec?.tokenServiceUrl, demo.tokenServiceUrl);
    equal(rec?.port, port);

    const json = await doctor(["--data-dir", agentDir, "--json"]);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      checks: { id: string; ok: unknown; detail: string; detailBg: string }[];
    };
    const byId = (id: string) => report.checks.find((c) => c.id === id)!;
    const ts = byId("token-service");
    equal(ts.ok, true, ts.detail);
    ok(ts.detail.startsWith(`${demo.tokenServiceUrl}/.well-known/jwks.json: `), ts.detail);
    ok(ts.detail.endsWith("(the URL this data folder's running agent was started with)"));
    equal(byId("clock").ok, true, byId("clock").detail);
    const p = byId("port");
    // The demo's agent runs on a random port (--port 0), outside the range pages probe.
    ok(p.detail.startsWith(`This data folder's agent (pid `), p.detail);
    ok(p.detail.includes(`listens on ${port}, outside 17470–17479`), p.detail);
    equal(p.ok, "warn");
    ok(report.checks.every((c) => c.ok !== false), JSON.stringify(report.checks, null, 1));
    equal(json.code, 0);

    const bg = await doctor(["--data-dir", agentDir, "--lang", "bg"]);
    ok(bg.stdout.includes("[ OK ] Услуга за токени и JWKS"), bg.stdout);
    ok(bg.stdout.includes(`Агентът на тази папка с данни (процес `), bg.stdout);

    // --token-service given for this run is checked as it is.
    const flag = await doctor(["--data-dir", agentDir, "--token-service", "http://127.0.0.1:1"]);
    equal(flag.code, 1);
    ok(flag.stdout.includes("[FAIL] Token service and JWKS"), flag.stdout);
  } finally {
    await demo.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("[e2e] agent: agent.running.json names its port and token service, is 0600, and goes when it stops", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-doctor-" });
  const agent = await startAgent(dir, "http://127.0.0.1:1");
  try {
    const rec = await readRunningRecord(dir);
    equal(rec?.port, Number(new URL(agent.url).port));
    equal(rec?.tokenServiceUrl, "http://127.0.0.1:1");
    equal(rec?.pid, agent.child.pid);
    if (Deno.build.os !== "windows") {
      equal(((await Deno.stat(join(dir, RUNNING_FILE))).mode ?? 0) & 0o777, 0o600);
    }
  } finally {
    await agent.stop();
  }
  try {
    equal(await readRunningRecord(dir), null, "removed at a graceful stop");
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
