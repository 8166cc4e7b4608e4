/**
 * The per-user MSI and `svc-filing.exe` under Wine (docs/install.md § Windows: the installed
 * program), every act judged by reading its result back: two real MSIs built by the project's
 * build (scripts/package.ts with wixl) from one bundle — this version and the next —; a silent
 * install (`msiexec /i … /qn`) → the files in `%LOCALAPPDATA%\Programs\svc-filing`, the
 * Start-menu `.lnk`, the "Apps" entry (`reg export` of the HKCU Uninstall key), the Run value and
 * the `svc-agent://` handler naming `svc-filing.exe` (`reg query`); `objdump -p` shows the
 * launcher's subsystem as Windows GUI; the launcher starts the agent hidden, its output in
 * `<data>\agent.log`, and `/health` answers; the tray's state and `agent open --lang`; an upgrade
 * to the next version keeps the data folder's journal and "Apps" shows the new version; `msiexec
 * /x` (the uninstall command "Apps" holds) removes the program, the Start-menu entry, the Run
 * value and the handler and keeps the data.
 */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { buildUpdatePair, type UpdateFixture } from "../_helpers/update_packages.ts";
import { skipWithoutWine, waitFor, type WineMachine, wineMachine } from "../_helpers/wine.ts";
import { hasProgram } from "../_helpers/require_tool.ts";
import { START_MENU_NAME } from "../../scripts/package/msi.ts";
import { MSI_MARKER } from "../../src/agent/update/mod.ts";

const TOOLS = ["wixl", "msibuild", "msiinfo", "objdump", "x86_64-w64-mingw32-windres"];
const missing = TOOLS.filter((t) => !hasProgram(t));
const ignore = skipWithoutWine("the Windows installer under Wine") ||
  (missing.length > 0 && Deno.env.get("CI") !== "true" &&
    (console.error(`SKIP the Windows installer: missing ${missing.join(", ")}`), true));

const RUN = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run";
const CLASSES = "HKCU\\Software\\Classes\\svc-agent";
const UNINSTALL = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\svc-filing";

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);
const sha = async (p: string) => createHash("sha256").update(await Deno.readFile(p)).digest("hex");

/** A registry key as `reg export` writes it (UTF-16), so that Cyrillic values read back whole. */
async function regExport(mm: WineMachine, key: string): Promise<string | null> {
  const file = "C:\\reg-export.reg";
  await Deno.remove(mm.unixPath(file)).catch(() => {});
  await mm.wine(["reg", "export", key, file, "/y"]);
  const bytes = await Deno.readFile(mm.unixPath(file)).catch(() => null);
  return bytes ? new TextDecoder("utf-16le").decode(bytes) : null;
}

/** The value of a name in a `reg export` text. */
const regValue = (text: string | null, name: string) =>
  text === null ? null : new RegExp(`^"${name}"=(.*)$`, "m").exec(text)?.[1]?.trim() ?? null;

Deno.test({
  name: "[wine] the MSI: silent install, svc-filing.exe, upgrade keeping the journal, uninstall",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    if (missing.length) throw new Error(`missing ${missing.join(", ")} (CI=true)`);
    const mm = await wineMachine();
    const dir = await Deno.makeTempDir({ prefix: "svc-wine-msi-" });
    try {
      const fx: UpdateFixture = await buildUpdatePair(
        dir,
        await Deno.readTextFile(mm.build.bundle),
        "win-x64",
      );
      assert.ok(fx.old.msi && fx.newer.msi, "the build wrote no MSI");
      const msiOf = async (p: typeof fx.old, name: string) => {
        await Deno.copyFile(
          join(dir, p === fx.old ? "old" : "newer", p.msi!.file),
          join(
            mm.prefix,
            "drive_c",
            name,
          ),
        );
        return `C:\\${name}`;
      };
      const oldMsi = await msiOf(fx.old, "old.msi");
      const newMsi = await msiOf(fx.newer, "newer.msi");
      const program = join(mm.localAppData, "Programs", "svc-filing");
      const data = join(mm.localAppData, "svc-filing");
      const user = mm.localAppData.split("/").at(-3)!;
      const winProgram = `C:\\users\\${user}\\AppData\\Local\\Programs\\svc-filing`;
      const lnk = join(
        mm.prefix,
        "drive_c",
        "users",
        user,
        "AppData",
        "Roaming",
        "Microsoft",
        "Windows",
        "Start Menu",
        "Programs",
        `${START_MENU_NAME}.lnk`,
      );
      const query = (key: string, ...more: string[]) => mm.wine(["reg", "query", key, ...more]);

      /** Start the installed launcher; wait for its agent's /health. */
      const startInstalled = async (version: string) => {
        const p = mm.start([`${winProgram}\\svc-filing.exe`], {
          SVC_OPEN_BROWSER: "never",
          SVC_AGENT_PORT: "0",
        });
        await p.child.stdin.close();
        let port = 0;
        await waitFor("the agent's /health", async () => {
          const lock = await Deno.readTextFile(join(data, "agent.lock")).catch(() => "");
          port = lock ? JSON.parse(lock).port : 0;
          if (!port) return false;
          const h = await fetch(`http://127.0.0.1:${port}/health`).then(
            (r) => r.json(),
            () => null,
          );
          return h?.version === version;
        }, 90_000).catch(async (e) => {
          const log = await Deno.readTextFile(join(data, "agent.log")).catch(() => "(no log)");
          throw new Error(`${e.message}\n${log}`);
        });
        return { p, port };
      };
      /** Stop the agent (SIGINT to its runtime: a clean stop) and wait for the launcher. */
      const stopInstalled = async (s: { p: { child: Deno.ChildProcess } }) => {
        for (const pid of await mm.denoPids()) Deno.kill(pid, "SIGINT");
        const st = await s.p.child.status;
        await waitFor("the lock released", async () => !(await exists(join(data, "agent.lock"))));
        // The runtime's process gone too: its files are no longer in use (uninstall, upgrade).
        await waitFor("no deno.exe left", async () => (await mm.denoPids()).length === 0);
        return st;
      };

      await t.step("msiexec /i /qn: files, Start menu, Apps, Run value, svc-agent://", async () => {
        await mm.wine(["msiexec", "/i", oldMsi, "/qn"]);
        for (
          const f of [
            "svc-filing.exe",
            "svc-filing.cmd",
            "runtime/deno.exe",
            "VERSION",
            MSI_MARKER,
          ]
        ) {
          assert.ok(await exists(join(program, f)), `${f} not installed`);
        }
        const app = await Deno.readTextFile(join(program, "app", "svc-filing.js"));
        assert.ok(app.includes(`VERSION = "${fx.old.version}";`));
        // The Start-menu entry starts svc-filing.exe.
        const link = await Deno.readFile(lnk);
        const text = new TextDecoder("latin1").decode(link) +
          new TextDecoder("utf-16le").decode(link);
        assert.match(text, /svc-filing\.exe/);
        // "Apps": name, version, publisher, icon, and how to uninstall.
        const apps = await regExport(mm, UNINSTALL);
        assert.equal(regValue(apps, "DisplayName"), `"${START_MENU_NAME}"`, apps ?? "no key");
        assert.equal(regValue(apps, "DisplayVersion"), `"${fx.old.version}"`);
        assert.equal(regValue(apps, "Publisher"), '"SVC"');
        assert.match(regValue(apps, "DisplayIcon")!, /svc-filing\.exe,0"$/);
        assert.match(regValue(apps, "UninstallString")!, /^"MsiExec\.exe \/X\{[0-9A-F-]{36}\}"$/);
        const run = await query(RUN, "/v", "SvcFilingAgent");
        assert.match(
          run.stdout,
          /SvcFilingAgent\s+REG_SZ\s+"C:\\users\\.*\\svc-filing\.exe" agent/,
        );
        const handler = await query(`${CLASSES}\\shell\\open\\command`);
        assert.match(handler.stdout, /"C:\\users\\.*\\svc-filing\.exe" "%1"/);
        assert.match((await query(CLASSES, "/v", "URL Protocol")).stdout, /URL Protocol/);
      });

      await t.step("objdump -p: svc-filing.exe is a Windows GUI program", async () => {
        const o = await new Deno.Command("objdump", {
          args: ["-p", join(program, "svc-filing.exe")],
          stdout: "piped",
        }).output();
        const text = new TextDecoder().decode(o.stdout);
        assert.match(text, /^Subsystem\s+00000002\s+\(Windows GUI\)$/m);
      });

      let journalBefore = "";
      await t.step(
        "svc-filing.exe starts the agent hidden; /health, the tray's state",
        async () => {
          const s = await startInstalled(fx.old.version);
          const logged = () => Deno.readTextFile(join(data, "agent.log"));
          await waitFor(
            "the first start's end in the log",
            async () => /The agent's console: http/.test(await logged()),
          );
          const log = await logged();
          assert.match(log, /svc-filing\.exe: started agent \(pid \d+\)/);
          assert.match(log, /^Agent ready: http:\/\/127\.0\.0\.1:\d+/m);
          // The installer registered the start at login: the first start does not ask.
          const first = JSON.parse(await Deno.readTextFile(join(data, "first-start.json")));
          assert.equal(first.autostart, "registered");
          assert.doesNotMatch(log, /\[Y\/n\]/);
          // The tray's state: with the data folder's console secret only.
          const secret = (await Deno.readTextFile(join(data, "console.secret"))).trim();
          const state = await fetch(`http://127.0.0.1:${s.port}/console/state`, {
            headers: { "x-svc-console-secret": secret },
          });
          assert.deepEqual(await state.json(), { state: "running" });
          const refused = await fetch(`http://127.0.0.1:${s.port}/console/state`);
          assert.equal(refused.status, 403);
          assert.equal((await refused.json()).errorCode, "CONSOLE_LINK_INVALID");
          // The tray's "open the console" in English: `agent open --lang en` through the launcher.
          const open = await mm.wine([
            `${winProgram}\\svc-filing.exe`,
            "agent",
            "open",
            "--lang",
            "en",
          ], {
            env: { SVC_OPEN_BROWSER: "never" },
          });
          assert.equal(open.code, 0, await Deno.readTextFile(join(data, "agent.log")));
          const opened = /The console: (http\S+&lang=en)/.exec(
            await Deno.readTextFile(join(data, "agent.log")),
          );
          assert.ok(opened, "no console link in the log");
          const res = await fetch(opened[1]!, { redirect: "manual" });
          await res.body?.cancel();
          assert.equal(res.status, 303);
          assert.match(res.headers.getSetCookie().join("\n"), /svc_lang=en|lang=en/);
          const st = await stopInstalled(s);
          assert.equal(st.code, 0);
          assert.match(
            await Deno.readTextFile(join(data, "agent.log")),
            /the agent ended \(exit code 0\)/,
          );
          journalBefore = await sha(join(data, "journal.sqlite"));
        },
      );

      await t.step(
        "msiexec /i of the next version upgrades in place and keeps the journal",
        async () => {
          await mm.wine(["msiexec", "/i", newMsi, "/qn"]);
          const app = await Deno.readTextFile(join(program, "app", "svc-filing.js"));
          assert.ok(app.includes(`VERSION = "${fx.newer.version}";`), "not upgraded");
          const apps = await regExport(mm, UNINSTALL);
          assert.equal(regValue(apps, "DisplayVersion"), `"${fx.newer.version}"`);
          assert.equal(await sha(join(data, "journal.sqlite")), journalBefore);
          assert.ok(await exists(join(data, "first-start.json")));
          assert.ok(await exists(lnk));
          const s = await startInstalled(fx.newer.version);
          assert.equal((await stopInstalled(s)).code, 0);
          assert.ok(await exists(join(data, "journal.sqlite")));
        },
      );

      await t.step(
        "msiexec /x removes the program, Start menu, Run value, handler; keeps data",
        async () => {
          const apps = await regExport(mm, UNINSTALL);
          const code = /\/X(\{[0-9A-F-]{36}\})/.exec(regValue(apps, "UninstallString") ?? "")?.[1];
          assert.ok(code, apps ?? "no Apps entry");
          await mm.wine(["msiexec", "/x", code, "/qn"]);
          assert.equal(await exists(join(program, "svc-filing.exe")), false);
          assert.equal(await exists(join(program, "runtime", "deno.exe")), false);
          assert.equal(await exists(program), false, "the program folder stays");
          assert.equal(await exists(lnk), false);
          const run = await regExport(mm, RUN);
          // The value goes (Wine also removes the Run key when nothing else is in it).
          assert.ok(run === null || !run.includes("SvcFilingAgent"), run ?? "");
          assert.equal(await regExport(mm, CLASSES), null);
          assert.equal(await regExport(mm, UNINSTALL), null);
          // The data stays: the journal, the first start's record.
          assert.ok(await exists(join(data, "journal.sqlite")));
          assert.ok(await exists(join(data, "first-start.json")));
        },
      );
    } finally {
      for (const pid of await mm.denoPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await mm.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
