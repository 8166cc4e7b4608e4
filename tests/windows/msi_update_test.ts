/**
 * `agent update` of an install the MSI made, under Wine (docs/install.md § Updates, "Installed
 * with the MSI"): two real MSIs built by the project's build from one bundle with a test update
 * key (this version, and the next, whose agent exits at start when SVC_TEST_FAIL_START=1), a real
 * token service (from source) publishing the signed manifest that names the next version's MSI,
 * a loopback update server. The current version is installed with `msiexec /i … /qn` from
 * `C:\old.msi` and its agent started through `svc-filing.exe`. A next version that does not
 * start is rolled back (the way back found through Windows Installer's source list): the
 * previous version runs again on its port and "Apps" shows it. Then the update succeeds: the
 * next version runs on the port, its VERSION file and "Apps" say so, the data folder stays.
 * Every result is read back (files, `reg query`, `/health`), never an exit code.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { startTokenService } from "../_helpers/e2e.ts";
import {
  buildUpdatePair,
  startUpdateServer,
  type UpdateFixture,
  waitAgent,
  writeManifest,
} from "../_helpers/update_packages.ts";
import { skipWithoutWine, waitFor, type WineMachine, wineMachine } from "../_helpers/wine.ts";
import { hasProgram } from "../_helpers/require_tool.ts";
import { APPS_KEY, parseRegValue } from "../../src/agent/update/mod.ts";

const TOOLS = ["wixl", "msibuild", "msiinfo", "x86_64-w64-mingw32-windres"];
const missing = TOOLS.filter((t) => !hasProgram(t));
const ignore = skipWithoutWine("the MSI update under Wine") ||
  (missing.length > 0 && Deno.env.get("CI") !== "true" &&
    (console.error(`SKIP the MSI update: missing ${missing.join(", ")}`), true));

Deno.test({
  name: "[wine] agent update of an MSI install: msiexec upgrade, read back, rollback",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    if (missing.length) throw new Error(`missing ${missing.join(", ")} (CI=true)`);
    const mm: WineMachine = await wineMachine();
    const dir = await Deno.makeTempDir({ prefix: "svc-wine-msiupd-" });
    let stopServers = async () => {};
    try {
      const fx: UpdateFixture = await buildUpdatePair(
        dir,
        await Deno.readTextFile(mm.build.bundle),
        "win-x64",
      );
      assert.ok(fx.old.msi && fx.newer.msi, "the build wrote no MSI");
      const manifest = join(dir, "manifest.jws");
      const server = startUpdateServer({
        newer: fx.newer.path,
        "newer.msi": join(dir, "newer", fx.newer.msi.file),
      });
      const ts = await startTokenService(join(dir, "ts"), { SVC_UPDATE_MANIFEST: manifest });
      stopServers = async () => {
        await ts.stop();
        await server.stop();
      };
      await writeManifest(manifest, fx, fx.newer, `${server.url}/full/newer/`);
      await Deno.copyFile(join(dir, "old", fx.old.msi.file), join(mm.prefix, "drive_c", "old.msi"));

      const data = join(mm.localAppData, "svc-filing");
      const program = join(mm.localAppData, "Programs", "svc-filing");
      const user = mm.localAppData.split("/").at(-3)!;
      const winProgram = `C:\\users\\${user}\\AppData\\Local\\Programs\\svc-filing`;
      const env = { SVC_TOKEN_SERVICE_URL: ts.url, SVC_OPEN_BROWSER: "never" };
      const apps = async () =>
        parseRegValue(
          (await mm.wine(["reg", "query", APPS_KEY, "/v", "DisplayVersion"])).stdout,
          "DisplayVersion",
        );
      const versionFile = () => Deno.readTextFile(join(program, "VERSION")).then((s) => s.trim());
      const appVersion = async () => {
        const app = await Deno.readTextFile(join(program, "app", "svc-filing.js"));
        return /VERSION = "([^"]+)";/.exec(app)?.[1];
      };
      // The outcome of the update started after `before` was read: told apart by its id, not its
      // time (both steps write last.json in the same data folder, and the second may start within
      // a second of the first's outcome).
      const lastFile = join(data, "updates", "last.json");
      const readLast = () => Deno.readTextFile(lastFile).then((t) => JSON.parse(t), () => null);
      const lastId = async (): Promise<string | null> => (await readLast())?.id ?? null;
      const outcome = async (before: string | null) => {
        let j = null;
        await waitFor("the update's outcome in last.json", async () => {
          j = await readLast();
          return j !== null && j.id !== before;
        }, 240_000).catch(async (e) => {
          const log = await Deno.readTextFile(join(data, "updates", "update.log")).catch(() => "");
          throw new Error(`${e.message}\n${log}`);
        });
        return j! as Record<string, string>;
      };
      // What a failed step shows: the runner's log, the agents' output and the command's.
      const logs = async (cli: string) => {
        const read = (...p: string[]) => Deno.readTextFile(join(data, ...p)).catch(() => "");
        return [
          `--- updates/update.log\n${await read("updates", "update.log")}`,
          `--- agent.log\n${await read("agent.log")}`,
          `--- agent update\n${cli}`,
        ].join("\n");
      };
      const update = async (extra: Record<string, string> = {}) => {
        const r = await mm.wine(
          ["cmd", "/c", `${winProgram}\\svc-filing.cmd`, "agent", "update", "--json"],
          { env: { ...env, ...extra } },
        );
        let json = null;
        try {
          json = JSON.parse(r.stdout);
        } catch { /* shown below */ }
        return { ...r, json, text: `${r.stdout}\n${r.stderr}` };
      };

      await mm.wine(["msiexec", "/i", "C:\\old.msi", "/qn"]);
      assert.equal(await versionFile(), fx.old.version);
      assert.equal(await apps(), fx.old.version);
      const launcher = mm.start([`${winProgram}\\svc-filing.exe`], {
        ...env,
        SVC_AGENT_PORT: "0",
      });
      await launcher.child.stdin.close();
      const first = await waitAgent(data, fx.old.version, 90_000);
      let firstStart = "";
      await waitFor("the first start's record", async () => {
        firstStart = await Deno.readTextFile(join(data, "first-start.json")).catch(() => "");
        return firstStart.length > 0;
      }, 60_000);

      await t.step(
        "a next version that does not start is rolled back to the MSI of A",
        async () => {
          const before = await lastId();
          const r = await update({ SVC_TEST_FAIL_START: "1" });
          assert.equal(r.json?.via, "msi", r.text);
          assert.equal(r.json?.to, fx.newer.version, r.text);
          const last = await outcome(before);
          assert.equal(
            last.outcome,
            "rolled_back",
            `${JSON.stringify(last)}\n${await logs(r.text)}`,
          );
          assert.match(last.reason!, /exited with code 3|did not answer/);
          const now = await waitAgent(data, fx.old.version, 60_000);
          assert.equal(now.port, first.port);
          assert.equal(await versionFile(), fx.old.version);
          assert.equal(await appVersion(), fx.old.version);
          assert.equal(await apps(), fx.old.version);
          // The next update's way back is kept in the data folder.
          const kept = join(data, "updates", "msi", `svc-filing-${fx.old.version}-win-x64.msi`);
          assert.equal((await Deno.stat(kept)).size, fx.old.msi!.size);
          const log = await Deno.readTextFile(join(data, "updates", "update.log"));
          assert.match(log, /rolling back/);
        },
      );

      await t.step({
        name: "the update installs B through msiexec: B runs, Apps shows B",
        fn: async () => {
          const before = await lastId();
          const r = await update();
          assert.equal(r.json?.via, "msi", r.text);
          const last = await outcome(before);
          assert.equal(last.outcome, "updated", `${JSON.stringify(last)}\n${await logs(r.text)}`);
          const now = await waitAgent(data, fx.newer.version, 60_000);
          assert.equal(now.port, first.port);
          assert.equal(last.agentUrl, `http://127.0.0.1:${first.port}`);
          assert.equal(await versionFile(), fx.newer.version);
          assert.equal(await appVersion(), fx.newer.version);
          assert.equal(await apps(), fx.newer.version);
          // The data folder is the agent's, not the installer's: kept.
          assert.ok((await Deno.stat(join(data, "journal.sqlite"))).size > 0);
          assert.equal(await Deno.readTextFile(join(data, "first-start.json")), firstStart);
          // msiexec's verbose log, and B's MSI kept as the next way back (A's dropped).
          const msiLog = await Deno.readFile(
            join(data, "updates", `msiexec-${fx.newer.version}.log`),
          );
          assert.ok(msiLog.length > 0);
          const kept = [...Deno.readDirSync(join(data, "updates", "msi"))].map((e) => e.name);
          assert.deepEqual(kept, [`svc-filing-${fx.newer.version}-win-x64.msi`]);
        },
      });
    } finally {
      for (const pid of await mm.denoPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await stopServers();
      await mm.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
