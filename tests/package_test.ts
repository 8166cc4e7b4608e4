/**
 * The portable package, proven offline from an empty machine (docs/install.md): the linux-x64
 * archive is built, unpacked into an empty folder and started from its launcher with an empty
 * HOME, no DENO_DIR, a PATH of a few shell tools only (no deno, no npm, no node), no network
 * (a new network namespace: only loopback), the source tree hidden (a tmpfs mounted over it
 * in a new mount namespace) and the package folder mounted read-only. The demo then issues a token, runs one test-mode operation end to
 * end, serves /health, the API docs' assets and the pages' own style sheets and scripts (embedded
 * in the bundle) at their hashed names, and on its clean shutdown has written the token request
 * to the request log through its writer thread. Needs `unshare` (util-linux), `ip`, `curl` and
 * `tar`; skips with a message when they are missing, fails instead when CI=true.
 */
import * as assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { runBuild } from "../scripts/build.ts";
import { buildPackages } from "../scripts/package.ts";
import { PACKAGE_TARGETS } from "../scripts/package/targets.ts";
import { CONFIRM_ASSETS } from "../src/agent/confirm/mod.ts";
import { blockEntries } from "../src/token/store/request_log_block_body.ts";
import { WEBAUTHN_JS } from "../src/token/web/mod.ts";

const CONFIRM_CSS = CONFIRM_ASSETS.find((a) => a.name === "confirm.css")!;
const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const TOOLS = [
  "sh",
  "curl",
  "grep",
  "sed",
  "sleep",
  "cat",
  "kill",
  "seq",
  "ip",
  "mkdir",
  "dirname",
];

async function which(tool: string): Promise<string | null> {
  for (const dir of ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    const p = join(dir, tool);
    if (await Deno.stat(p).then((s) => s.isFile, () => false)) return p;
  }
  return null;
}

async function canIsolate(): Promise<string | null> {
  if (Deno.build.os !== "linux") return "not Linux";
  for (const t of ["unshare", "tar", ...TOOLS]) if (!await which(t)) return `${t} is missing`;
  const o = await new Deno.Command("unshare", { args: ["-rnm", "true"], stderr: "piped" })
    .output();
  return o.success ? null : `unshare -rnm is refused: ${new TextDecoder().decode(o.stderr)}`;
}

const reason = await canIsolate();
if (reason && Deno.env.get("CI") === "true") throw new Error(`package test cannot run: ${reason}`);
if (reason) console.log(`SKIP package offline test: ${reason}`);

/** The driver run inside the namespaces: start the demo, call it, leave the answers in $HOME. */
const DRIVER = `set -u
ip link set lo up
mount -t tmpfs none "$SOURCE_TREE"
# The package folder read-only, as when unpacked where the user cannot write.
mount --bind "$PKG" "$PKG" && mount -o remount,bind,ro "$PKG"
touch "$PKG/probe" 2>/dev/null && echo "package folder is writable" > "$HOME/ro-failed"
cd "$HOME"
"$PKG/svc-filing" demo --data-dir "$HOME/demo" > "$HOME/demo.log" 2>&1 &
PID=$!
for i in $(seq 1 150); do grep -q '^Test key:' "$HOME/demo.log" && break; sleep 0.2; done
KEY=$(sed -n 's/^Test key: //p' "$HOME/demo.log")
TS=$(sed -n 's/^Token service: \\([^ ]*\\).*/\\1/p' "$HOME/demo.log")
AG=$(sed -n 's/^Agent: //p' "$HOME/demo.log")
TOKEN=$(curl -sf "$TS/api/v1/tokens/issue" -H "Authorization: Bearer $KEY" \\
  -H "Content-Type: application/json" -d '{"typeId":"nap_catalog"}' | sed -E 's/.*"token":"([^"]+)".*/\\1/')
curl -sf "$AG/api/v1/operations/nap_catalog" -H "Authorization: Bearer $TOKEN" \\
  -H "Content-Type: application/json" -d '{"filter":"\\u0414\\u0414\\u0421"}' > "$HOME/operation.json"
curl -sf "$AG/health" > "$HOME/health.json"
curl -sf -o "$HOME/swagger-ui.css" "$AG/docs/swagger-ui.css"
# The pages' own style sheets and scripts, embedded in the bundle, at their hashed names.
curl -s "$AG/confirm/none" > "$HOME/closed.html"
CSS=$(sed -n 's|.*href="\\(/assets/confirm\\.[0-9a-f]*\\.css\\)".*|\\1|p' "$HOME/closed.html")
curl -sf -o "$HOME/confirm.css" "$AG$CSS"
curl -s "$TS/profile" > "$HOME/profile.html"
WA=$(sed -n 's|.*src="\\(/profile/assets/webauthn\\.[0-9a-f]*\\.js\\)".*|\\1|p' "$HOME/profile.html")
curl -sf -o "$HOME/webauthn.js" "$TS$WA"
ls "$SOURCE_TREE" > "$HOME/source-tree.txt"
kill $PID
wait $PID 2>/dev/null
exit 0
`;

Deno.test({
  name: "[package] the linux-x64 archive runs the demo offline from an empty folder",
  ignore: reason !== null,
  sanitizeResources: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "svc-package-test-" });
    try {
      const build = await runBuild({ outDir: tmp, bundleOnly: true, log: () => {} });
      assert.equal(build.exitCode, 0, build.failed.join("; "));
      const linux = PACKAGE_TARGETS.filter((t) => t.name === "linux-x64");
      const [info] = await buildPackages({
        bundle: build.bundle,
        outDir: tmp,
        targets: linux,
        log: () => {},
      });
      assert.ok(info!.size < 60 * 1024 * 1024, `${info!.size} bytes`);
      const bundleText = await Deno.readTextFile(build.bundle);
      assert.equal(bundleText.includes(ROOT), false, "the bundle names the source tree");
      // An empty machine: a folder, an empty HOME, a PATH of a few shell tools.
      const machine = join(tmp, "machine");
      const home = join(machine, "home");
      const bin = join(machine, "bin");
      await Deno.mkdir(home, { recursive: true });
      await Deno.mkdir(bin);
      for (const t of TOOLS) await Deno.symlink((await which(t))!, join(bin, t));
      const untar = await new Deno.Command("tar", {
        args: ["-xzf", join(tmp, info!.file), "-C", machine],
      }).output();
      assert.ok(untar.success);
      await Deno.writeTextFile(join(machine, "driver.sh"), DRIVER);
      const run = await new Deno.Command(await which("unshare") as string, {
        args: ["-rnm", join(bin, "sh"), join(machine, "driver.sh")],
        clearEnv: true,
        env: {
          HOME: home,
          PATH: bin,
          PKG: join(machine, "svc-filing"),
          SOURCE_TREE: ROOT,
          SVC_OPEN_BROWSER: "never",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const log = await Deno.readTextFile(join(home, "demo.log")).catch(() => "(no log)");
      const why = `${new TextDecoder().decode(run.stderr)}\n${log}`;
      assert.ok(run.success, why);
      const op = JSON.parse(await Deno.readTextFile(join(home, "operation.json")));
      assert.equal(op.status, "ok", why);
      assert.ok(op.items.length > 0);
      const health = JSON.parse(await Deno.readTextFile(join(home, "health.json")));
      assert.equal(health.service, "svc-agent");
      assert.equal(health.status, "ok");
      assert.ok((await Deno.stat(join(home, "swagger-ui.css"))).size > 10_000);
      // The confirmation page's style sheet and the passkey bundle, as the pages name them.
      assert.equal(await Deno.readTextFile(join(home, "confirm.css")), CONFIRM_CSS.body, why);
      const webauthn = await Deno.readTextFile(join(home, "webauthn.js"));
      assert.equal(webauthn, WEBAUTHN_JS.body, why);
      // The source tree was hidden while the package ran, and Deno's cache stayed in the data
      // folder (the launcher's DENO_DIR), not in HOME/.cache or the package.
      assert.equal((await Deno.readTextFile(join(home, "source-tree.txt"))).trim(), "");
      // It ran from a read-only package folder.
      assert.equal(await Deno.stat(join(home, "ro-failed")).then(() => true, () => false), false);
      const cache = join(home, ".local", "share", "svc-filing", "runtime-cache");
      assert.ok((await Deno.stat(cache)).isDirectory);
      assert.equal(await Deno.stat(join(home, ".cache")).then(() => true, () => false), false);
      assert.equal(dirname(info!.file), ".");
      // The token request was written to the request log by its writer thread, which the
      // bundle starts from a blob: URL of its module's bundled text
      // (src/token/store/request_log_thread_js.ts), on the clean shutdown.
      assert.equal(log.includes("request log writer thread"), false, log);
      const db = new DatabaseSync(join(home, "demo", "token-service", "token-service.sqlite"));
      try {
        // Stored in blocks, their bodies packed (src/token/store/request_log_block_body.ts) by the
        // thread's module (src/token/store/request_log_thread.ts).
        const rows = db.prepare("SELECT key_id, packed FROM request_log_blocks").all()
          .flatMap((r) => blockEntries("", String(r.key_id), r.packed as Uint8Array));
        assert.deepEqual(rows.map((e) => [e.typeId, e.status]), [["nap_catalog", 200]], why);
      } finally {
        db.close();
      }
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
