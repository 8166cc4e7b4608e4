/**
 * Signed updates of the win-x64 package under Wine, as tests/e2e/update_test.ts does for
 * linux-x64: two real win-x64 packages (the current version, and a newer one whose agent exits at
 * start when SVC_TEST_FAIL_START=1) built from one bundle with a test key, a real token service
 * (from source) publishing the signed manifest, a local update server, and the old package
 * unpacked in `C:\Programs\…` with its agent started from `svc-filing.cmd`. `agent update` run
 * from the installed launcher refuses a bad signature (the agent keeps running), installs the
 * newer package and restarts the agent on its port while a file of the running version is held
 * open by another program (tests/windows/hold_file.c), and rolls back a version that does not
 * start. On Windows the command ends before the swap; the outcome is read from last.json.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { makeUpdateKeyPair } from "../../scripts/update_keys.ts";
import { startTokenService } from "../_helpers/e2e.ts";
import {
  buildUpdatePair,
  startUpdateServer,
  type UpdateFixture,
  waitAgent,
  writeManifest,
} from "../_helpers/update_packages.ts";
import { skipWithoutWine, waitFor, type WineMachine, wineMachine } from "../_helpers/wine.ts";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));

const ignore = skipWithoutWine("Windows update under Wine");

async function unzip(zip: string, into: string) {
  await Deno.mkdir(into, { recursive: true });
  const o = await new Deno.Command("unzip", { args: ["-q", zip, "-d", into] }).output();
  if (!o.success) throw new Error(`unzip: ${new TextDecoder().decode(o.stderr)}`);
}

Deno.test({
  name: "[wine] agent update of the win-x64 package: a bad signature, an update, a rollback",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const mm: WineMachine = await wineMachine();
    const dir = await Deno.makeTempDir({ prefix: "svc-wine-update-" });
    const fx: UpdateFixture = await buildUpdatePair(
      dir,
      await Deno.readTextFile(mm.build.bundle),
      "win-x64",
    );
    const manifest = join(dir, "manifest.jws");
    const server = startUpdateServer({ old: fx.old.path, newer: fx.newer.path });
    const ts = await startTokenService(join(dir, "ts"), { SVC_UPDATE_MANIFEST: manifest });
    const full = `${server.url}/full/newer/`;
    /** One installed old package with its agent running. */
    const site = async (name: string) => {
      await unzip(fx.old.path, join(mm.prefix, "drive_c", name));
      const launcher = `C:\\${name}\\svc-filing\\svc-filing.cmd`;
      const winData = `C:\\${name}-data`;
      const env = {
        SVC_DATA_DIR: winData,
        SVC_AGENT_PORT: "0",
        SVC_TOKEN_SERVICE_URL: ts.url,
        SVC_OPEN_BROWSER: "never",
      };
      const p = mm.start(["cmd", "/c", launcher, "agent"], env);
      await p.child.stdin.close();
      const data = mm.unixPath(winData);
      const agent = await waitAgent(data, fx.old.version, 60_000);
      const update = async (extra: Record<string, string> = {}) => {
        const r = await mm.wine(["cmd", "/c", launcher, "agent", "update", "--json"], {
          env: { ...env, ...extra },
        });
        const last = r.code === 0 ? r.stdout : r.stderr.trim().split(/\r?\n/).at(-1) ?? "";
        let json = null;
        try {
          json = JSON.parse(last);
        } catch { /* reported below */ }
        return { ...r, json, text: `${r.stdout}\n${r.stderr}` };
      };
      /** On Windows `agent update` ends before the swap; the swap writes last.json. */
      const outcome = async (since: number) => {
        const file = join(data, "updates", "last.json");
        for (let i = 0; i < 600; i++) {
          const j = await Deno.readTextFile(file).then((t) => JSON.parse(t), () => null);
          if (j && Date.parse(j.at) >= since) return j;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`no outcome in ${file}`);
      };
      const install = join(mm.prefix, "drive_c", name, "svc-filing");
      return { name, data, agent, update, outcome, install };
    };
    try {
      const a = await site("Programs");
      await t.step("a bad signature is refused; the agent keeps running", async () => {
        await writeManifest(manifest, fx, fx.newer, full, {
          forgedWith: await makeUpdateKeyPair(),
        });
        const r = await a.update();
        assert.equal(r.code, 1, r.text);
        assert.equal(r.json?.errorCode, "UPDATE_SIGNATURE_INVALID", r.text);
        const now = await waitAgent(a.data, fx.old.version, 5_000);
        assert.equal(now.pid, a.agent.pid);
      });
      await t.step(
        "the newer package is installed and the agent restarts on its port",
        async () => {
          await writeManifest(manifest, fx, fx.newer, full);
          // A file of the running version held open by another Windows program (no
          // FILE_SHARE_DELETE), as an editor showing README.txt would, during the whole swap.
          const hold = join(mm.prefix, "drive_c", "hold_file.exe");
          const cc = await new Deno.Command("x86_64-w64-mingw32-gcc", {
            args: ["-municode", "-O2", "-s", "-o", hold, join(HERE, "hold_file.c")],
          }).output();
          assert.ok(cc.success, new TextDecoder().decode(cc.stderr));
          const holder = mm.start(["C:\\hold_file.exe", "C:\\Programs\\svc-filing\\README.txt"]);
          await waitFor("the file held", async () => (await holder.stdout()).includes("held"));
          const since = Date.now() - 1000;
          const r = await a.update();
          assert.equal(r.code, 0, r.text);
          // On Windows the command ends before the swap and names where its outcome will be.
          assert.equal(r.json.updated, null, r.text);
          assert.match(r.json.outcome, /^C:\\Programs-data\\updates\\last\.json$/);
          const last = await a.outcome(since);
          assert.equal(last.outcome, "updated", JSON.stringify(last));
          assert.equal(last.to, fx.newer.version);
          const now = await waitAgent(a.data, fx.newer.version, 30_000);
          assert.equal(now.port, a.agent.port);
          assert.notEqual(now.pid, a.agent.pid);
          const app = await Deno.readTextFile(join(a.install, "app", "svc-filing.js"));
          assert.ok(app.includes(`VERSION = "${fx.newer.version}";`));
          // The previous version cannot be removed while its file is held (Wine answers a
          // sharing violation as Windows does): the update stands, the swap says so in its log,
          // and the folder stays until the next update removes it.
          assert.ok(await Deno.stat(join(`${a.install}.previous`, "README.txt")).then(() => true));
          const log = await Deno.readTextFile(join(a.data, "updates", "update.log"));
          assert.match(log, /cannot remove the previous package/);
          await holder.child.stdin.close();
          assert.equal((await holder.child.status).code, 0);
        },
      );
      await t.step("a newer version that does not start is rolled back", async () => {
        const c = await site("Rollback");
        await writeManifest(manifest, fx, fx.newer, full);
        const since = Date.now() - 1000;
        const r = await c.update({ SVC_TEST_FAIL_START: "1" });
        assert.equal(r.code, 0, r.text);
        const last = await c.outcome(since);
        assert.equal(last.outcome, "rolled_back", JSON.stringify(last));
        assert.match(last.reason, /exited with code 3/);
        const now = await waitAgent(c.data, fx.old.version, 30_000);
        assert.equal(now.port, c.agent.port);
        const app = await Deno.readTextFile(join(c.install, "app", "svc-filing.js"));
        assert.ok(app.includes(`VERSION = "${fx.old.version}";`));
      });
    } finally {
      for (const pid of await mm.denoPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await ts.stop();
      await server.stop();
      await mm.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
