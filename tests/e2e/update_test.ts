/**
 * Signed updates with rollback (docs/install.md § Updates), end to end on Linux: real linux-x64
 * packages built by the project's build (the current version, and a newer one whose agent exits at
 * start when SVC_TEST_FAIL_START=1), a real token service publishing the signed manifest
 * (SVC_UPDATE_MANIFEST), a local update server, and the old package installed in a temporary folder
 * with its agent running from the launcher. `agent update` is run from the installed launcher.
 * Refusals (bad signature, wrong hash, downgrade, truncated download, full disk while downloading
 * and while unpacking — a small tmpfs over `<data>/updates` in a mount namespace) leave the agent
 * running and the install as it was; a good update restarts the agent on its port as the new
 * version; a new version that does not start is rolled back. Needs tar, sh and `unshare -rm` (skips
 * without, fails when CI=true).
 */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  buildUpdateFixture,
  installPackage,
  spawnLauncher,
  startUpdateServer,
  stopAgentOf,
  type UpdateFixture,
  waitAgent,
  writeManifest,
} from "../_helpers/update_packages.ts";
import { makeUpdateKeyPair } from "../../scripts/update_keys.ts";
import { type Proc, startTokenService } from "../_helpers/e2e.ts";

async function unsupported(): Promise<string | null> {
  if (Deno.build.os !== "linux") return "not Linux";
  const o = await new Deno.Command("unshare", { args: ["-rm", "true"], stderr: "null" }).output()
    .catch(() => null);
  return o?.success ? null : "unshare -rm is not available";
}
const reason = await unsupported();
if (reason && Deno.env.get("CI") === "true") throw new Error(`update test cannot run: ${reason}`);
if (reason) console.log(`SKIP update e2e test: ${reason}`);

const dec = new TextDecoder();
const sha = async (p: string) => createHash("sha256").update(await Deno.readFile(p)).digest("hex");
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

/** One installed package with its running agent. */
interface Site {
  readonly root: string;
  readonly launcher: string;
  readonly data: string;
  readonly env: Record<string, string>;
  readonly agent: { pid: number; port: number; version: string };
}

/** What `agent update --json` printed. */
interface Ran {
  readonly code: number;
  // deno-lint-ignore no-explicit-any
  readonly json: any;
  readonly text: string;
}

Deno.test({
  name: "[update] agent update of the linux-x64 package: refusals, update, rollback",
  ignore: reason !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const fx: UpdateFixture = await buildUpdateFixture();
    const tmp = fx.dir;
    const manifest = join(tmp, "manifest.jws");
    const server = startUpdateServer({ old: fx.old.path, newer: fx.newer.path });
    let ts: Proc | null = null;
    const sites: Site[] = [];
    try {
      ts = await startTokenService(join(tmp, "ts"), { SVC_UPDATE_MANIFEST: manifest });
      const tsUrl = ts.url;
      const site = async (name: string): Promise<Site> => {
        const root = await installPackage(fx.old.path, join(tmp, name, "opt"));
        const data = join(tmp, name, "data");
        await Deno.mkdir(join(data, "updates"), { recursive: true });
        const env = {
          HOME: join(tmp, name),
          PATH: "/usr/bin:/bin",
          SVC_DATA_DIR: data,
          SVC_AGENT_PORT: "0",
          SVC_TOKEN_SERVICE_URL: tsUrl,
          SVC_OPEN_BROWSER: "never",
          NO_COLOR: "1",
        };
        const launcher = join(root, "svc-filing");
        spawnLauncher(launcher, ["agent"], env, join(tmp, name, "agent.log"));
        const s = { root, launcher, data, env, agent: await waitAgent(data, fx.old.version) };
        sites.push(s);
        return s;
      };
      const run = async (
        s: Site,
        args: string[] = [],
        tmpfs?: string,
        env: Record<string, string> = {},
      ): Promise<Ran> => {
        const cli = [s.launcher, "agent", "update", "--json", ...args];
        const script = 'size=$1; dir=$2; shift 2; mount -t tmpfs -o "size=$size" none "$dir" || ' +
          'exit 90; "$@"; code=$?; ls -A "$dir" > "$dir.list"; exit $code';
        const o = await new Deno.Command(tmpfs ? "unshare" : cli[0]!, {
          args: tmpfs
            ? ["-rm", "/bin/sh", "-c", script, "sh", tmpfs, join(s.data, "updates"), ...cli]
            : cli.slice(1),
          env: { ...s.env, ...env },
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const out = dec.decode(o.stdout);
        const err = dec.decode(o.stderr).trim();
        const last = o.code === 0 ? out : err.split("\n").at(-1) ?? "";
        let json = null;
        try {
          json = JSON.parse(last);
        } catch { /* reported below */ }
        return { code: o.code, json, text: `${out}\n${err}` };
      };
      /** The agent still runs as before, the install is untouched, nothing is left over. */
      const unchanged = async (s: Site, appSha: string) => {
        const now = await waitAgent(s.data, fx.old.version, 5_000);
        assert.equal(now.pid, s.agent.pid);
        assert.equal(now.port, s.agent.port);
        assert.equal(await sha(join(s.root, "app", "svc-filing.js")), appSha);
        assert.equal(await exists(`${s.root}.previous`), false);
        const left = [];
        for await (const e of Deno.readDir(join(s.data, "updates"))) left.push(e.name);
        assert.deepEqual(left.filter((n) => !n.endsWith(".list")), []);
      };
      const full = (name: string) => `${server.url}/full/${name}/`;

      const a = await site("refusals");
      const appSha = await sha(join(a.root, "app", "svc-filing.js"));
      await t.step(
        "GET /api/v1/agent-update: 404 UPDATE_NOT_PUBLISHED without a manifest",
        async () => {
          const res = await fetch(`${tsUrl}/api/v1/agent-update`);
          assert.equal(res.status, 404);
          assert.equal((await res.json()).errorCode, "UPDATE_NOT_PUBLISHED");
          const r = await run(a);
          assert.equal(r.code, 1, r.text);
          assert.equal(r.json?.errorCode, "UPDATE_NOT_PUBLISHED", r.text);
        },
      );
      await t.step("agent update --check reports current, latest and available", async () => {
        await writeManifest(manifest, fx, fx.newer, full("newer"));
        const res = await fetch(`${tsUrl}/api/v1/agent-update`);
        assert.equal(res.headers.get("content-type"), "application/jose");
        assert.match(await res.text(), /^[\w-]+\.[\w-]+\.[\w-]+$/);
        const r = await run(a, ["--check"]);
        assert.equal(r.code, 0, r.text);
        assert.equal(r.json.current, fx.old.version);
        assert.equal(r.json.latest, fx.newer.version);
        assert.equal(r.json.available, true);
        assert.equal(r.json.package.size, fx.newer.size);
        await unchanged(a, appSha);
      });
      const refusals: [string, () => Promise<void>, string, string?][] = [
        ["a bad signature", async () => {
          const forgedWith = await makeUpdateKeyPair();
          await writeManifest(manifest, fx, fx.newer, full("newer"), { forgedWith });
        }, "UPDATE_SIGNATURE_INVALID"],
        ["a wrong sha256", async () => {
          await writeManifest(manifest, fx, fx.newer, full("newer"), { sha256: "0".repeat(64) });
        }, "UPDATE_HASH_MISMATCH"],
        ["a downgrade", async () => {
          await writeManifest(manifest, fx, fx.newer, full("newer"), { version: "0.0.1" });
        }, "UPDATE_DOWNGRADE"],
        ["a truncated download (the server breaks the connection half way)", async () => {
          await writeManifest(manifest, fx, fx.newer, `${server.url}/cut/newer/`);
        }, "UPDATE_SIZE_MISMATCH"],
        [
          "a full disk while downloading (16 MB tmpfs)",
          async () => {
            await writeManifest(manifest, fx, fx.newer, full("newer"));
          },
          "UPDATE_DISK_FULL",
          "16m",
        ],
        [
          "a full disk while unpacking (60 MB tmpfs)",
          async () => {
            await writeManifest(manifest, fx, fx.newer, full("newer"));
          },
          "UPDATE_DISK_FULL",
          "60m",
        ],
      ];
      for (const [what, publish, code, tmpfs] of refusals) {
        await t.step(
          `agent update refuses ${what} (${code}); the agent keeps running`,
          async () => {
            await publish();
            const r = await run(a, [], tmpfs);
            assert.equal(r.code, 1, r.text);
            assert.equal(r.json?.errorCode, code, r.text);
            if (tmpfs) {
              assert.equal(r.json.step, tmpfs === "16m" ? "download" : "unpacking", r.text);
              const list = await Deno.readTextFile(join(a.data, "updates.list"));
              assert.equal(list.trim(), "", "left on the full disk");
            }
            await unchanged(a, appSha);
          },
        );
      }

      await t.step(
        "agent update installs the newer package and restarts the agent on its port",
        async () => {
          const b = await site("update");
          await writeManifest(manifest, fx, fx.newer, full("newer"));
          const r = await run(b);
          assert.equal(r.code, 0, r.text);
          assert.equal(r.json.updated, true);
          assert.equal(r.json.outcome, "updated");
          assert.equal(r.json.agentUrl, `http://127.0.0.1:${b.agent.port}`);
          const now = await waitAgent(b.data, fx.newer.version, 5_000);
          assert.equal(now.port, b.agent.port);
          assert.notEqual(now.pid, b.agent.pid);
          const health = await (await fetch(`${r.json.agentUrl}/health`)).json();
          assert.equal(health.version, fx.newer.version);
          assert.equal(health.status, "ok");
          const last = JSON.parse(await Deno.readTextFile(join(b.data, "updates", "last.json")));
          assert.equal(last.outcome, "updated");
          assert.equal(await exists(`${b.root}.previous`), false);
          const app = await Deno.readTextFile(join(b.root, "app", "svc-filing.js"));
          assert.ok(app.includes(`VERSION = "${fx.newer.version}";`));
        },
      );

      await t.step(
        "a new version that does not start is rolled back: the old one answers again",
        async () => {
          const c = await site("rollback");
          const appSha = await sha(join(c.root, "app", "svc-filing.js"));
          await writeManifest(manifest, fx, fx.newer, full("newer"));
          const r = await run(c, [], undefined, { SVC_TEST_FAIL_START: "1" });
          assert.equal(r.code, 1, r.text);
          assert.equal(r.json?.errorCode, "UPDATE_ROLLED_BACK", r.text);
          assert.match(r.json.reason, /exited with code 3/);
          const now = await waitAgent(c.data, fx.old.version, 5_000);
          assert.equal(now.port, c.agent.port);
          assert.equal(await sha(join(c.root, "app", "svc-filing.js")), appSha);
          const last = JSON.parse(await Deno.readTextFile(join(c.data, "updates", "last.json")));
          assert.equal(last.outcome, "rolled_back");
          assert.equal(last.to, fx.newer.version);
          assert.equal(await exists(`${c.root}.previous`), false);
          assert.equal(await exists(`${c.root}.failed`), false);
        },
      );
    } finally {
      for (const s of sites) await stopAgentOf(s.data);
      await ts?.stop();
      await server.stop();
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
