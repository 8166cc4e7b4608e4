import * as assert from "node:assert/strict";
import { join } from "node:path";
import {
  appInfoPlist,
  installUrlScheme,
  schemeDesktopEntry,
  schemeRegFile,
  uninstallUrlScheme,
} from "../../src/agent/host/mod.ts";
import { isAgentLink, isStartUrl } from "../../src/agent/start/mod.ts";
import { type CommandRequest, denoCommandRunner } from "../../src/command_runner.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const hasXdg = await new Deno.Command("xdg-mime", { args: ["--version"], stdout: "null" })
  .output().then((o) => o.success, () => false);
if (!hasXdg && Deno.env.get("CI") === "true") throw new Error("xdg-utils is missing");

async function sandbox() {
  const dir = await Deno.makeTempDir({ prefix: "svc-url-" });
  const env = {
    HOME: dir,
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    // A desktop session (xdg-open consults scheme handlers only when one is there; no X server
    // is needed for that lookup).
    DISPLAY: ":0",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  };
  return { dir, env };
}

Deno.test("isStartUrl() accepts only svc-agent://start", () => {
  for (const u of ["svc-agent://start", "SVC-AGENT://start/", "svc-agent://start"]) {
    assert.ok(isStartUrl(u), u);
  }
  for (const u of ["svc-agent://start?x=1", "svc-agent://stop", "svc-agent:start", "https://x"]) {
    assert.equal(isStartUrl(u), false, u);
  }
  assert.ok(isAgentLink("svc-agent://anything"));
  assert.equal(isAgentLink("agent"), false);
});

Deno.test({
  name: "[linux] installUrlScheme() makes the agent xdg-open's handler of svc-agent://start",
  ignore: !hasXdg || Deno.build.os !== "linux",
  async fn() {
    const { dir, env } = await sandbox();
    try {
      // The handler records what the OS passed it.
      const script = join(dir, "handler.sh");
      await Deno.writeTextFile(script, `#!/bin/sh\necho "$@" > "${dir}/opened"\n`);
      await Deno.chmod(script, 0o755);
      const run = (req: CommandRequest) =>
        new Deno.Command(req.cmd, {
          args: [...req.args],
          env,
          clearEnv: true,
          stdout: "piped",
          stderr: "piped",
        })
          .output().then((o) => ({
            code: o.code,
            stdout: new TextDecoder().decode(o.stdout),
            stderr: new TextDecoder().decode(o.stderr),
          }));
      const st = await installUrlScheme({ os: "linux", env, command: [script], run });
      assert.equal(st.installed, true);
      assert.match(await Deno.readTextFile(st.location), /MimeType=x-scheme-handler\/svc-agent;/);
      const q = await run({
        cmd: "xdg-mime",
        args: ["query", "default", "x-scheme-handler/svc-agent"],
      });
      assert.equal(q.stdout.trim(), "svc-agent-url.desktop");
      const open = await run({ cmd: "xdg-open", args: ["svc-agent://start"] });
      assert.equal(open.code, 0, open.stderr);
      for (let i = 0; i < 50 && !(await Deno.stat(join(dir, "opened")).catch(() => null)); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal((await Deno.readTextFile(join(dir, "opened"))).trim(), "svc-agent://start");
      const gone = await uninstallUrlScheme({ os: "linux", env, command: [script], run });
      assert.equal(gone.installed, false);
      assert.equal(await Deno.stat(st.location).then(() => true, () => false), false);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "[main.ts] svc-agent://start starts the agent; another link exits 2 with one sentence",
  sanitizeResources: false,
  async fn() {
    const { dir } = await sandbox();
    try {
      const wrong = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", join(ROOT, "main.ts"), "svc-agent://format-disk"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(wrong.code, 2);
      const err = new TextDecoder().decode(wrong.stderr).trim();
      assert.equal(err.split("\n").length, 1, err);
      assert.match(err, /only link it answers is svc-agent:\/\/start/);
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", join(ROOT, "main.ts"), "svc-agent://start"],
        env: { SVC_AGENT_PORT: "0", SVC_DATA_DIR: join(dir, "agent"), SVC_LOG_LEVEL: "warn" },
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!/Agent: http:\/\/127\.0\.0\.1:\d+/.test(out)) {
        const { value, done } = await reader.read();
        if (done) break;
        out += value;
      }
      const url = /Agent: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      assert.ok(url, out);
      const health = await (await fetch(`${url}/health`)).json();
      assert.equal(health.service, "svc-agent");
      child.kill("SIGTERM");
      await reader.cancel();
      await child.status;
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("schemeRegFile() writes HKCU\\Software\\Classes\\svc-agent with URL Protocol", () => {
  const reg = schemeRegFile(["C:\\Program Files\\svc filing\\svc-filing.cmd"]);
  const lines = reg.split("\r\n");
  assert.equal(lines[0], "Windows Registry Editor Version 5.00");
  assert.ok(lines.includes("[HKEY_CURRENT_USER\\Software\\Classes\\svc-agent]"));
  assert.ok(lines.includes('"URL Protocol"=""'));
  assert.ok(
    lines.includes("[HKEY_CURRENT_USER\\Software\\Classes\\svc-agent\\shell\\open\\command]"),
  );
  // The command: the quoted launcher, then "%1"; backslashes and quotes escaped for .reg.
  assert.ok(
    lines.includes('@="\\"C:\\\\Program Files\\\\svc filing\\\\svc-filing.cmd\\" \\"%1\\""'),
    reg,
  );
  // Every section and value line has the .reg shape.
  for (const l of lines.slice(1).filter(Boolean)) {
    assert.match(l, /^(\[HKEY_CURRENT_USER\\[^\]]+\]|(@|"[^"]+")="(?:[^"\\]|\\.)*")$/, l);
  }
});

Deno.test("installUrlScheme() on Windows runs the three reg add commands", async () => {
  const calls: string[][] = [];
  const run = (req: CommandRequest) => {
    calls.push([req.cmd, ...req.args]);
    return Promise.resolve({ code: 0, stdout: "", stderr: "" });
  };
  const st = await installUrlScheme({
    os: "windows",
    env: {},
    command: ["C:\\svc\\svc-filing.cmd"],
    run,
  });
  assert.equal(st.method, "registry");
  assert.deepEqual(calls.map((c) => c.slice(0, 3)), [
    ["reg", "add", "HKCU\\Software\\Classes\\svc-agent"],
    ["reg", "add", "HKCU\\Software\\Classes\\svc-agent"],
    ["reg", "add", "HKCU\\Software\\Classes\\svc-agent\\shell\\open\\command"],
  ]);
  assert.equal(calls[2]!.at(-2), 'C:\\svc\\svc-filing.cmd "%1"');
});

Deno.test("appInfoPlist() is a valid property list declaring the svc-agent URL scheme", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "Info.plist");
    await Deno.writeTextFile(path, appInfoPlist("1.2.3"));
    // Python's plistlib reads Apple's XML property list format strictly.
    const o = await new Deno.Command("python3", {
      args: [
        "-c",
        "import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],'rb'))))",
        path,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(o.success, new TextDecoder().decode(o.stderr));
    const plist = JSON.parse(new TextDecoder().decode(o.stdout));
    assert.deepEqual(plist.CFBundleURLTypes[0].CFBundleURLSchemes, ["svc-agent"]);
    assert.equal(plist.CFBundleExecutable, "svc-filing-agent");
    assert.equal(plist.CFBundleShortVersionString, "1.2.3");
    assert.equal(plist.CFBundlePackageType, "APPL");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("schemeDesktopEntry() passes the link as %u after the quoted command", () => {
  const e = schemeDesktopEntry(["/opt/svc filing/svc-filing"]);
  assert.match(e, /^Exec="\/opt\/svc filing\/svc-filing" %u$/m);
  assert.match(e, /^MimeType=x-scheme-handler\/svc-agent;$/m);
  // denoCommandRunner is what the CLI passes; it exists for every OS.
  assert.equal(typeof denoCommandRunner, "function");
});
