/**
 * The win-x64 package, run under Wine through its real launcher (`svc-filing.cmd`, through
 * `cmd /c`, as a double-click or a terminal runs it): help, version, an unknown command, the
 * first start with its question answered and with nobody answering, the default data folder
 * (`%LOCALAPPDATA%\svc-filing`) and `SVC_DATA_DIR` with Cyrillic folder names, `/health`, a
 * second start that finds the first, a clean stop (Ctrl+C: Wine turns SIGINT into the console's
 * Ctrl+C event), start at login (the first start's yes, and the console's button in Chromium)
 * and the `svc-agent://` link in the registry (`reg query`), and off again. Setup: tests/_helpers/wine.ts.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { VERSION } from "../../src/version.ts";
import { launchChromium, skipBrowser } from "../_helpers/browser.ts";
import {
  skipWithoutWine,
  waitFor,
  type WineMachine,
  wineMachine,
  type WineProcess,
} from "../_helpers/wine.ts";

const ignore = skipWithoutWine("Windows package under Wine");
let machine: WineMachine | null = null;
const m = async () => machine ??= await wineMachine();

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

/** A started agent and its address. */
interface Started extends WineProcess {
  readonly url: string;
}

async function startAgent(
  mm: WineMachine,
  env: Record<string, string>,
  answer: string | null,
  args: string[] = [],
): Promise<Started> {
  const p = mm.spawn(args, { SVC_OPEN_BROWSER: "never", SVC_AGENT_PORT: "0", ...env });
  const w = p.child.stdin.getWriter();
  if (answer !== null) await w.write(new TextEncoder().encode(answer));
  await w.close();
  await waitFor(
    "the agent's address in its output",
    async () => /^Agent: http/m.test(await p.stdout()),
    60_000,
  ).catch(async (e) => {
    throw new Error(`${e.message}:\n${await p.stdout()}\n${await p.stderr()}`);
  });
  const url = /^Agent: (http\S+)/m.exec(await p.stdout())![1]!;
  return { ...p, url };
}

/** Ctrl+C: SIGINT to the deno.exe process (Wine delivers it as CTRL_C_EVENT). */
async function stop(mm: WineMachine, s: Started): Promise<Deno.CommandStatus> {
  const pids = await mm.denoPids();
  assert.ok(pids.length > 0, "no deno.exe process of this prefix");
  for (const pid of pids) Deno.kill(pid, "SIGINT");
  return await s.child.status;
}

Deno.test({
  name: "[wine] svc-filing.cmd --help, --version and an unknown command",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const help = await mm.cli(["--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /agent/);
    assert.match(help.stdout, /demo/);
    const version = await mm.cli(["--version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), VERSION);
    const bad = await mm.cli(["agnt"]);
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /unknown command 'agnt'/);
    assert.match(bad.stderr, /svc-filing\.cmd --help/);
    // A printed command names the launcher as the person has it.
    const open = await mm.cli(["agent", "open"], { env: { SVC_DATA_DIR: "C:\\no-agent" } });
    assert.equal(open.code, 1, open.stdout + open.stderr);
    assert.match(open.stderr, /start it \(`svc-filing\.cmd agent`.*`svc-filing\.cmd agent open`/);
  },
});

Deno.test({
  name: "[wine] the first start with nobody answering: default data folder, /health, clean stop",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const data = join(mm.localAppData, "svc-filing");
    const s = await startAgent(mm, {}, null);
    await waitFor("the first start's record", () => exists(join(data, "first-start.json")));
    const health = await (await fetch(`${s.url}/health`)).json();
    assert.equal(health.service, "svc-agent");
    assert.equal(health.version, VERSION);
    await waitFor("the console link", async () => /console\/open\?code=/.test(await s.stdout()));
    assert.match(
      await s.stdout(),
      /First start: your data lives in C:\\users\\[^\\]+\\AppData\\Local\\svc-filing/,
    );
    assert.match(
      await s.stdout(),
      /Not started at login; to do it later: C:\\svc-filing\\svc-filing\.cmd/,
    );
    const record = JSON.parse(await Deno.readTextFile(join(data, "first-start.json")));
    assert.equal(record.autostart, "declined");
    assert.ok(await exists(join(data, "agent.lock")));
    assert.ok(await exists(join(data, "journal.sqlite")));
    const status = await stop(mm, s);
    assert.equal(status.code, 0, await s.stderr());
    assert.match(await s.stderr(), /shutting down/);
    // A clean stop releases the instance lock and the running agent's record.
    assert.equal(await exists(join(data, "agent.lock")), false);
    assert.equal(await exists(join(data, "agent.running.json")), false);
  },
});

Deno.test({
  name:
    "[wine] SVC_DATA_DIR in Cyrillic folders: the question answered, a second start finds the first",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const winData = "C:\\Счетоводство\\Агент данни";
    const data = mm.unixPath(winData);
    const s = await startAgent(mm, { SVC_DATA_DIR: winData }, "n\r\n");
    await waitFor("the first start's record", () => exists(join(data, "first-start.json")));
    assert.match(await s.stdout(), /First start: your data lives in C:\\Счетоводство\\Агент данни/);
    const record = JSON.parse(await Deno.readTextFile(join(data, "first-start.json")));
    assert.equal(record.autostart, "declined");
    assert.equal((await (await fetch(`${s.url}/health`)).json()).status, "ok");
    // The second start finds this data folder's agent, says where it runs and exits 0.
    const second = await mm.cli([], {
      env: { SVC_DATA_DIR: winData, SVC_OPEN_BROWSER: "never", SVC_AGENT_PORT: "0" },
    });
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.match(second.stdout, new RegExp(`Agent already running at ${s.url}`));
    assert.equal((await stop(mm, s)).code, 0, await s.stderr());
    assert.equal(await exists(join(data, "agent.lock")), false);
  },
});

Deno.test({
  name:
    "[wine] start at login and the svc-agent:// link name svc-filing.exe: the first start's yes, reg query, and off again",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const winData = "C:\\autostart-data";
    const data = mm.unixPath(winData);
    const RUN = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run";
    const CLASSES = "HKCU\\Software\\Classes\\svc-agent";
    const query = (key: string, ...more: string[]) => mm.wine(["reg", "query", key, ...more]);
    const s = await startAgent(mm, { SVC_DATA_DIR: winData }, "y\r\n");
    await waitFor("the first start's record", () => exists(join(data, "first-start.json")));
    const record = JSON.parse(await Deno.readTextFile(join(data, "first-start.json")));
    assert.equal(record.autostart, "registered", await s.stdout());
    assert.equal((await stop(mm, s)).code, 0);
    // The Run value starts the GUI launcher (svc-filing.exe, no console window) with `agent`.
    const run = await query(RUN, "/v", "SvcFilingAgent");
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /SvcFilingAgent\s+REG_SZ\s+"?C:\\svc-filing\\svc-filing\.exe"? agent/);
    // The link: URL Protocol, and the command that opens svc-agent://… with the launcher.
    const cls = await query(CLASSES, "/v", "URL Protocol");
    assert.equal(cls.code, 0, cls.stdout + cls.stderr);
    const open = await query(`${CLASSES}\\shell\\open\\command`);
    assert.equal(open.code, 0, open.stdout + open.stderr);
    assert.match(open.stdout, /C:\\svc-filing\\svc-filing\.exe.*"%1"/);
    // `agent install-url-scheme` again is harmless; the uninstall commands remove both.
    assert.equal(
      (await mm.cli(["agent", "install-url-scheme"], { env: { SVC_DATA_DIR: winData } })).code,
      0,
    );
    const off1 = await mm.cli(["agent", "uninstall-autostart"], { env: { SVC_DATA_DIR: winData } });
    assert.equal(off1.code, 0, off1.stdout + off1.stderr);
    const off2 = await mm.cli(["agent", "uninstall-url-scheme"], {
      env: { SVC_DATA_DIR: winData },
    });
    assert.equal(off2.code, 0, off2.stdout + off2.stderr);
    assert.notEqual((await query(RUN, "/v", "SvcFilingAgent")).code, 0);
    assert.notEqual((await query(CLASSES)).code, 0);
  },
});

Deno.test({
  name:
    "[wine] the console's Start at login and agent install-url-scheme: reg query shows them, turning them off removes them",
  ignore: ignore || skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mm = await m();
    const winData = "C:\\console-data";
    const env = { SVC_DATA_DIR: winData };
    const RUN = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run";
    const CLASSES = "HKCU\\Software\\Classes\\svc-agent";
    const run = () => mm.wine(["reg", "query", RUN, "/v", "SvcFilingAgent"]);
    const s = await startAgent(mm, env, null);
    await waitFor("the console link", async () => /console\/open\?code=/.test(await s.stdout()));
    const link = /(http:\/\/127\.0\.0\.1:\d+\/console\/open\?code=\S+)/.exec(await s.stdout())![1]!;
    const chromium = await launchChromium();
    try {
      const page = await chromium.context.newPage();
      await page.goto(link);
      await page.waitForSelector("#autostart-toggle");
      assert.match((await page.textContent("#autostart"))!, /изключено|off/);
      await Promise.all([page.waitForNavigation(), page.click("#autostart-toggle")]);
      await page.waitForSelector("#autostart-toggle");
      assert.match((await page.textContent("#autostart"))!, /включено|on/);
      const on = await run();
      assert.equal(on.code, 0, on.stdout + on.stderr);
      assert.match(
        on.stdout,
        /SvcFilingAgent\s+REG_SZ\s+"?C:\\svc-filing\\svc-filing\.exe"? agent/,
      );
      const url = await mm.cli(["agent", "install-url-scheme"], { env });
      assert.equal(url.code, 0, url.stdout + url.stderr);
      const cmd = await mm.wine(["reg", "query", `${CLASSES}\\shell\\open\\command`]);
      assert.equal(cmd.code, 0, cmd.stdout + cmd.stderr);
      assert.match(cmd.stdout, /C:\\svc-filing\\svc-filing\.exe.*"%1"/);
      // Off again: the console's button, and the uninstall command.
      await Promise.all([page.waitForNavigation(), page.click("#autostart-toggle")]);
      await page.waitForSelector("#autostart-toggle");
      assert.match((await page.textContent("#autostart"))!, /изключено|off/);
      assert.notEqual((await run()).code, 0);
      assert.equal((await mm.cli(["agent", "uninstall-url-scheme"], { env })).code, 0);
      assert.notEqual((await mm.wine(["reg", "query", CLASSES])).code, 0);
    } finally {
      await chromium.close();
      await stop(mm, s);
    }
  },
});

Deno.test({
  name: "[wine] close the Wine prefix",
  ignore,
  sanitizeResources: false,
  async fn() {
    await machine?.close();
  },
});
