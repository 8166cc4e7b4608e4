/**
 * The portable package's first start (docs/install.md), with the real linux-x64 package: the
 * launcher without a command starts the agent, which says where its data lives, asks whether to
 * start at login (answered on stdin), registers autostart and the svc-agent:// link when the
 * person says yes, names its page, and never asks again for that data folder.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { runBuild } from "../scripts/build.ts";
import { buildPackages } from "../scripts/package.ts";
import { PACKAGE_TARGETS } from "../scripts/package/targets.ts";

const linuxOk = Deno.build.os === "linux" &&
  await new Deno.Command("xdg-mime", { args: ["--version"], stdout: "null" }).output()
    .then((o) => o.success, () => false);
if (!linuxOk && Deno.env.get("CI") === "true") {
  throw new Error("first start test needs Linux + xdg-utils");
}

/**
 * Start the packaged launcher, answer the question (null: stdin closed at once), wait until
 * `until` shows in its output (and `file`, if given, exists: it is written after that line) and
 * 700 ms more, then stop it.
 */
async function start(
  pkg: string,
  env: Record<string, string>,
  answer: string | null,
  until: RegExp,
  file?: string,
): Promise<string> {
  const child = new Deno.Command(join(pkg, "svc-filing"), {
    clearEnv: true,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", SVC_AGENT_PORT: "0", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  if (answer !== null) await w.write(new TextEncoder().encode(answer));
  await w.close();
  let out = "";
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) out += chunk;
  })();
  const exists = () => !file || Deno.stat(file).then(() => true, () => false);
  for (let i = 0; i < 300 && !(until.test(out) && await exists()); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 700));
  child.kill("SIGTERM");
  await child.status;
  await reading;
  return out;
}

Deno.test({
  name: "[package] the first start says where data lives, asks about autostart, never asks again",
  ignore: !linuxOk,
  sanitizeResources: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "svc-first-start-" });
    try {
      const build = await runBuild({ outDir: tmp, bundleOnly: true, log: () => {} });
      const [info] = await buildPackages({
        bundle: build.bundle,
        outDir: tmp,
        targets: PACKAGE_TARGETS.filter((t) => t.name === "linux-x64"),
        log: () => {},
      });
      const untar = await new Deno.Command("tar", {
        args: ["-xzf", join(tmp, info!.file), "-C", tmp],
      }).output();
      assert.ok(untar.success);
      const pkg = join(tmp, "svc-filing");
      const home = join(tmp, "home");
      const env = {
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        XDG_DATA_HOME: join(home, ".local", "share"),
        SVC_OPEN_BROWSER: "never",
      };
      const data = join(home, ".local", "share", "svc-filing");

      // Yes: autostart and the link are registered with the launcher.
      const first = await start(
        pkg,
        env,
        "y\n",
        /The agent's console: /,
        join(data, "first-start.json"),
      );
      assert.match(first, new RegExp(`First start: your data lives in ${data}`));
      assert.match(first, /Start the agent at login .*\[Y\/n\]/);
      // The console, signed in by a one-time link (the person at the machine started it).
      assert.match(
        first,
        /The agent's console: http:\/\/127\.0\.0\.1:\d+\/console\/open\?code=[\w-]{43}/,
      );
      const desktop = await Deno.readTextFile(
        join(home, ".config", "autostart", "svc-filing-agent.desktop"),
      );
      assert.match(desktop, new RegExp(`^Exec=${join(pkg, "svc-filing")} agent$`, "m"));
      const link = await Deno.readTextFile(
        join(home, ".local", "share", "applications", "svc-agent-url.desktop"),
      );
      assert.match(link, /MimeType=x-scheme-handler\/svc-agent;/);
      const record = JSON.parse(await Deno.readTextFile(join(data, "first-start.json")));
      assert.equal(record.autostart, "registered");
      assert.equal((await Deno.stat(join(data, "first-start.json"))).mode! & 0o777, 0o600);

      // A second start of the same data folder asks nothing.
      const second = await start(pkg, env, "n\n", /Agent ready: /);
      assert.match(second, /Agent ready: /);
      assert.equal(second.includes("First start"), false, second);

      // Nobody there (stdin closed at once): declined, nothing registered.
      const other = { ...env, HOME: join(tmp, "home2"), XDG_CONFIG_HOME: join(tmp, "home2", "c") };
      const alone = await start(
        pkg,
        { ...other, XDG_DATA_HOME: join(tmp, "home2", "d") },
        null,
        /The agent's console: /,
      );
      assert.match(
        alone,
        /Not started at login; to do it later: .*svc-filing agent install-autostart/,
      );
      assert.equal(
        await Deno.stat(join(tmp, "home2", "c", "autostart")).then(() => true, () => false),
        false,
      );
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
