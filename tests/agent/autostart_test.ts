import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import {
  agentCommand,
  AUTOSTART_LABEL,
  type AutostartOptions,
  autostartStatus,
  desktopEntry,
  desktopExecArg,
  installAutostart,
  uninstallAutostart,
  windowsArg,
} from "../../src/agent/host/autostart.ts";
import type { CommandRequest, CommandResult } from "../../src/command_runner.ts";
import { AGENT_V8_FLAGS } from "../../src/defaults.ts";

/** A runner that records calls and answers from a script keyed by "cmd arg0". */
function recorder(answers: Record<string, (CommandResult | Error)[]> = {}) {
  const calls: CommandRequest[] = [];
  const run = (req: CommandRequest): Promise<CommandResult> => {
    calls.push(req);
    const next = answers[`${req.cmd} ${req.args[0]}`]?.shift();
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve(next ?? { code: 0, stdout: "", stderr: "" });
  };
  return { calls, run, line: () => calls.map((c) => [c.cmd, ...c.args].join(" ")) };
}

Deno.test("agentCommand() runs a compiled binary directly and source through deno run -A", () => {
  deepStrictEqual(agentCommand("/opt/svc/svc-filing", "file:///tmp/deno-compile/main.ts"), [
    "/opt/svc/svc-filing",
    "agent",
  ]);
  deepStrictEqual(
    agentCommand("/usr/bin/deno", "file:///home/a/svc%20filing/main.ts", ["--port", "17471"]),
    [
      "/usr/bin/deno",
      "run",
      "-A",
      `--v8-flags=${AGENT_V8_FLAGS}`,
      "/home/a/svc filing/main.ts",
      "agent",
      "--port",
      "17471",
    ],
  );
  deepStrictEqual(agentCommand("C:\\deno\\deno.exe", "file:///C:/svc/main.ts"), [
    "C:\\deno\\deno.exe",
    "run",
    "-A",
    `--v8-flags=${AGENT_V8_FLAGS}`,
    "C:\\svc\\main.ts",
    "agent",
  ]);
});

Deno.test("desktopExecArg() quotes per the Desktop Entry spec; windowsArg() per CommandLineToArgvW", () => {
  equal(desktopExecArg("/usr/bin/svc"), "/usr/bin/svc");
  equal(desktopExecArg("/home/a b/svc"), '"/home/a b/svc"');
  equal(desktopExecArg("/x/$HOME"), '"/x/\\\\$HOME"');
  equal(desktopExecArg("a\\b c"), '"a\\\\\\\\b c"');
  equal(desktopExecArg("100%"), "100%%");
  equal(windowsArg("C:\\svc\\svc.exe"), "C:\\svc\\svc.exe");
  equal(windowsArg("C:\\Program Files\\svc\\svc.exe"), '"C:\\Program Files\\svc\\svc.exe"');
  equal(windowsArg('say "hi"'), '"say \\"hi\\""');
  equal(windowsArg("C:\\dir with space\\"), '"C:\\dir with space\\\\"');
});

Deno.test("[linux] installAutostart() writes ~/.config/autostart/svc-filing-agent.desktop; uninstall removes it", async () => {
  const homeDir = await Deno.makeTempDir();
  const r = recorder();
  const o: AutostartOptions = {
    os: "linux",
    env: { HOME: homeDir },
    command: ["/opt/svc filing/svc-filing", "agent"],
    run: r.run,
  };
  try {
    equal((await autostartStatus(o)).installed, false);
    const s = await installAutostart(o);
    const path = join(homeDir, ".config", "autostart", "svc-filing-agent.desktop");
    deepStrictEqual(s, {
      installed: true,
      method: "xdg-autostart",
      location: path,
      registered: '"/opt/svc filing/svc-filing" agent',
      detail: "starts at login",
    });
    const text = await Deno.readTextFile(path);
    equal(text, desktopEntry(o.command));
    ok(text.startsWith("[Desktop Entry]\nType=Application\n"));
    ok(text.includes('\nExec="/opt/svc filing/svc-filing" agent\n'));
    ok(text.includes("\nTerminal=false\n"));
    if (Deno.build.os !== "windows") equal((await Deno.stat(path)).mode! & 0o777, 0o644);
    await installAutostart(o); // idempotent
    equal((await uninstallAutostart(o)).installed, false);
    await Deno.stat(path).then(() => ok(false, "still there"), () => {});
    equal((await uninstallAutostart(o)).installed, false, "uninstall twice is fine");
    equal(r.calls.length, 0, "Linux needs no commands");
  } finally {
    await Deno.remove(homeDir, { recursive: true });
  }
});

Deno.test("[linux] installAutostart() honours XDG_CONFIG_HOME", async () => {
  const homeDir = await Deno.makeTempDir();
  const xdg = join(homeDir, "cfg");
  try {
    const o: AutostartOptions = {
      os: "linux",
      env: { HOME: homeDir, XDG_CONFIG_HOME: xdg },
      command: ["/usr/bin/svc-filing", "agent"],
      run: recorder().run,
    };
    equal((await installAutostart(o)).location, join(xdg, "autostart", "svc-filing-agent.desktop"));
  } finally {
    await Deno.remove(homeDir, { recursive: true });
  }
});

Deno.test("[macOS] installAutostart() writes the LaunchAgent plist and bootstraps gui/<uid>", async () => {
  const homeDir = await Deno.makeTempDir();
  const r = recorder({ "launchctl print": [{ code: 113, stdout: "", stderr: "not found" }] });
  const o: AutostartOptions = {
    os: "darwin",
    env: { HOME: homeDir },
    command: ["/Applications/SVC Filing/svc-filing", "agent"],
    run: r.run,
    uid: 501,
  };
  try {
    const s = await installAutostart(o);
    const path = join(homeDir, "Library", "LaunchAgents", `${AUTOSTART_LABEL}.plist`);
    deepStrictEqual(r.line(), [
      `launchctl print gui/501/${AUTOSTART_LABEL}`,
      `launchctl bootstrap gui/501 ${path}`,
      `launchctl print gui/501/${AUTOSTART_LABEL}`,
    ]);
    deepStrictEqual(s, {
      installed: true,
      method: "launchagent",
      location: path,
      registered: "/Applications/SVC Filing/svc-filing agent",
      detail: "loaded in launchd",
    });
    const log = join(homeDir, "Library", "Logs", "svc-filing", "agent.log");
    equal(
      await Deno.readTextFile(path),
      `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>bg.svc.filing-agent</string>
  <key>ProgramArguments</key>
  <array>
    <string>/Applications/SVC Filing/svc-filing</string>
    <string>agent</string>
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <false/>
  <key>ProcessType</key>
  <string>Interactive</string>
  <key>StandardOutPath</key>
  <string>${log}</string>
  <key>StandardErrorPath</key>
  <string>${log}</string>
</dict>
</plist>
`,
    );
    // Installing again while loaded leaves the running agent alone.
    r.calls.length = 0;
    const again = await installAutostart(o);
    deepStrictEqual(r.line(), [`launchctl print gui/501/${AUTOSTART_LABEL}`]);
    equal(again.detail, "loaded in launchd; changes apply at next login");
    r.calls.length = 0;
    const off = await uninstallAutostart(o);
    deepStrictEqual(r.line(), [`launchctl bootout gui/501 ${path}`]);
    equal(off.installed, false);
  } finally {
    await Deno.remove(homeDir, { recursive: true });
  }
});

Deno.test("[macOS] installAutostart() reports a failed bootstrap", async () => {
  const homeDir = await Deno.makeTempDir();
  const r = recorder({
    "launchctl print": [{ code: 113, stdout: "", stderr: "" }],
    "launchctl bootstrap": [{
      code: 5,
      stdout: "",
      stderr: "Bootstrap failed: 5: Input/output error",
    }],
  });
  try {
    await rejects(
      installAutostart({
        os: "darwin",
        env: { HOME: homeDir },
        command: ["/x", "agent"],
        run: r.run,
        uid: 502,
      }),
      /launchctl bootstrap gui\/502 failed \(5\): Bootstrap failed: 5: Input\/output error/,
    );
  } finally {
    await Deno.remove(homeDir, { recursive: true });
  }
});

const RUN = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run";

Deno.test("[windows] installAutostart() sets the HKCU Run value with reg add; status reads it back", async () => {
  const appData = await Deno.makeTempDir();
  const exe = "C:\\Users\\Иван\\AppData\\Local\\Programs\\SVC Filing\\svc-filing.exe";
  const r = recorder({
    "reg query": [{
      code: 0,
      stdout: `\r\n${RUN}\r\n    SvcFilingAgent    REG_SZ    "${exe}" agent\r\n\r\n`,
      stderr: "",
    }],
  });
  const o: AutostartOptions = {
    os: "windows",
    env: { APPDATA: appData, USERPROFILE: "C:\\Users\\Иван" },
    command: [exe, "agent"],
    run: r.run,
  };
  try {
    const s = await installAutostart(o);
    deepStrictEqual(r.calls[0], {
      cmd: "reg",
      args: ["add", RUN, "/v", "SvcFilingAgent", "/t", "REG_SZ", "/d", `"${exe}" agent`, "/f"],
    });
    deepStrictEqual(s, {
      installed: true,
      method: "registry-run",
      location: `${RUN}\\SvcFilingAgent`,
      registered: `"${exe}" agent`,
      detail: "starts at login",
    });
    r.calls.length = 0;
    const off = await uninstallAutostart(o);
    deepStrictEqual(r.line().slice(0, 1), [`reg delete ${RUN} /v SvcFilingAgent /f`]);
    equal(off.installed, false);
  } finally {
    await Deno.remove(appData, { recursive: true });
  }
});

Deno.test("[windows] installAutostart() falls back to a .cmd in the Startup folder when reg fails", async () => {
  const appData = await Deno.makeTempDir();
  const r = recorder({
    "reg add": [{ code: 1, stdout: "", stderr: "ERROR: Access is denied." }],
    "reg query": [{ code: 1, stdout: "", stderr: "" }, { code: 1, stdout: "", stderr: "" }],
  });
  const o: AutostartOptions = {
    os: "windows",
    env: { APPDATA: appData },
    command: ["C:\\Program Files\\SVC\\svc-filing.exe", "agent"],
    run: r.run,
  };
  try {
    const s = await installAutostart(o);
    equal(s.method, "startup-folder");
    equal(s.installed, true);
    equal(s.registered, '"C:\\Program Files\\SVC\\svc-filing.exe" agent');
    ok(s.detail.startsWith("reg add failed (ERROR: Access is denied.)"));
    equal(
      await Deno.readTextFile(s.location),
      '@echo off\r\nstart "" "C:\\Program Files\\SVC\\svc-filing.exe" agent\r\n',
    );
    equal(
      s.location,
      join(
        appData,
        "Microsoft",
        "Windows",
        "Start Menu",
        "Programs",
        "Startup",
        "svc-filing-agent.cmd",
      ),
    );
    equal((await uninstallAutostart(o)).installed, false);
    await Deno.stat(s.location).then(() => ok(false, ".cmd left"), () => {});
  } finally {
    await Deno.remove(appData, { recursive: true });
  }
});

Deno.test("`deno task agent` starts the agent with the same V8 flags as autostart", async () => {
  const cfg = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  equal(cfg.tasks.agent.command, `deno run -A --v8-flags=${AGENT_V8_FLAGS} main.ts agent`);
});
