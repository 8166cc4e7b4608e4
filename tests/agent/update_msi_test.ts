/**
 * The MSI upgrade's decisions (docs/install.md § Installed with the MSI), with `msiexec` and
 * `reg` replaced by a recorded Windows Installer (the command runner the OS tools go through):
 * msiexec's exit code is never taken as the result — an upgrade that says 0 but leaves the old
 * VERSION, or that installs the files but leaves "Apps" at the old version, is rolled back by
 * reinstalling the previous MSI, and the rollback is itself read back. The real msiexec and
 * registry run in tests/windows/msi_update_test.ts under Wine.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import type { CommandRequest } from "../../src/command_runner.ts";
import {
  APPS_KEY,
  type MsiPlan,
  type MsiTools,
  runMsiUpgrade,
} from "../../src/agent/update/mod.ts";

const CODE_NEW = "{11111111-2222-3333-4444-555555555555}";

/** A recorded Windows Installer: what each msiexec call does to the folder and "Apps". */
function installer(install: string, act: (msi: string) => { files?: string; apps?: string }) {
  const state = { apps: "0.1.0", code: "{00000000-0000-0000-0000-000000000000}" };
  const calls: string[] = [];
  const tools: MsiTools = {
    reg: "reg.exe",
    msiexec: "msiexec.exe",
    run: async (r: CommandRequest) => {
      if (r.cmd === "reg.exe") {
        assert.equal(r.args[1], APPS_KEY);
        const name = r.args[3];
        const data = name === "DisplayVersion" ? state.apps : `MsiExec.exe /X${state.code}`;
        return {
          code: 0,
          stdout: `\r\n${APPS_KEY}\r\n    ${name}    REG_SZ    ${data}\r\n`,
          stderr: "",
        };
      }
      calls.push(`${r.args[0]} ${r.args[1]!.split("/").at(-1)}`);
      if (r.args[0] === "/i") {
        const did = act(r.args[1]!);
        if (did.files) await Deno.writeTextFile(join(install, "VERSION"), did.files + "\n");
        if (did.apps) {
          state.apps = did.apps;
          state.code = did.apps === "0.1.1" ? CODE_NEW : state.code;
        }
      }
      // Exit 0 whatever happened: the upgrade must read back what it did.
      return { code: 0, stdout: "", stderr: "" };
    },
  };
  return { tools, calls, state };
}

async function run(
  act: (msi: string) => { files?: string; apps?: string },
): Promise<{ outcome: Awaited<ReturnType<typeof runMsiUpgrade>>; calls: string[]; log: string[] }> {
  const dir = await Deno.makeTempDir({ prefix: "svc-msi-upgrade-" });
  try {
    const install = join(dir, "Programs", "svc-filing");
    await Deno.mkdir(install, { recursive: true });
    await Deno.mkdir(join(dir, "data", "updates"), { recursive: true });
    await Deno.writeTextFile(join(install, "VERSION"), "0.1.0\n");
    const plan: MsiPlan = {
      id: "u1",
      os: "linux",
      install,
      dataDir: join(dir, "data"),
      from: "0.1.0",
      to: "0.1.1",
      msi: join(dir, "new.msi"),
      previousMsi: join(dir, "old.msi"),
      agent: null,
      waitPids: [],
    };
    const { tools, calls } = installer(install, act);
    const log: string[] = [];
    const outcome = await runMsiUpgrade(plan, {
      tools,
      log: (level, msg) => void log.push(`${level} ${msg}`),
      startAgent: () => {
        throw new Error("no agent is started when the read-back fails");
      },
      signal: () => {},
      isAlive: () => Promise.resolve(false),
      fetch,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
    });
    const last = JSON.parse(await Deno.readTextFile(join(dir, "data", "updates", "last.json")));
    assert.deepEqual(last, outcome);
    return { outcome, calls, log };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("runMsiUpgrade(): msiexec says 0 but nothing changed → the previous MSI again, rolled_back", async () => {
  const { outcome, calls } = await run((msi) =>
    msi.endsWith("old.msi") ? { files: "0.1.0", apps: "0.1.0" } : {}
  );
  assert.equal(outcome.outcome, "rolled_back");
  assert.match(outcome.reason!, /VERSION says 0\.1\.0, not 0\.1\.1/);
  // "Apps" still shows the previous version: nothing to remove before reinstalling it.
  assert.deepEqual(calls, ["/i new.msi", "/i old.msi"]);
});

Deno.test("runMsiUpgrade(): files installed but Apps not → the previous MSI reinstalled", async () => {
  const { outcome, calls } = await run((msi) =>
    msi.endsWith("old.msi") ? { files: "0.1.0", apps: "0.1.0" } : { files: "0.1.1" }
  );
  assert.equal(outcome.outcome, "rolled_back");
  assert.match(outcome.reason!, /"Apps" shows version 0\.1\.0, not 0\.1\.1/);
  assert.deepEqual(calls, ["/i new.msi", "/i old.msi"]);
});

Deno.test("runMsiUpgrade(): a rollback that does not take is reported as failed", async () => {
  const { outcome, calls } = await run((msi) => msi.endsWith("new.msi") ? { files: "0.1.1" } : {});
  assert.equal(outcome.outcome, "failed");
  assert.match(
    outcome.reason!,
    /"Apps" shows version 0\.1\.0, not 0\.1\.1; and the previous version: the program folder's VERSION says 0\.1\.1, not 0\.1\.0/,
  );
  assert.deepEqual(calls, ["/i new.msi", "/i old.msi"]);
});
