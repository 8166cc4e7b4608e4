/**
 * Start the agent at login, per user, without admin rights: a macOS LaunchAgent (loaded with
 * `launchctl bootstrap gui/<uid>`), a Windows `HKCU\…\Run` value (`reg add`; a `.cmd` in the
 * Startup folder when `reg` fails), or an XDG autostart `.desktop` file on Linux. The OS, the
 * environment (HOME, APPDATA, XDG_CONFIG_HOME), the command and the command runner are injected;
 * only the Linux branch was run for real here (docs/running.md § Start at login).
 * @module
 */
import { dirname, join } from "node:path";
import type { CommandRunner } from "../../command_runner.ts";
import { AGENT_V8_FLAGS } from "../../defaults.ts";
import { plistDocument, xmlText as xml } from "./plist.ts";
import { UserError } from "../../user_error.ts";

/** LaunchAgent label, Run value name and .desktop base name. */
export const AUTOSTART_LABEL = "bg.svc.filing-agent";
const RUN_KEY = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run";
const RUN_VALUE = "SvcFilingAgent";
const DESKTOP_NAME = "svc-filing-agent.desktop";
const LOADED = "loaded in launchd";

/** Inputs of the autostart functions. */
export interface AutostartOptions {
  readonly os: "linux" | "darwin" | "windows";
  /** HOME (macOS/Linux), XDG_CONFIG_HOME, APPDATA (Windows). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The full command to start, e.g. from {@link agentCommand}. */
  readonly command: readonly string[];
  /** Runs launchctl / reg (argument lists, no shell). */
  readonly run: CommandRunner;
  /** The user id for `gui/<uid>` (macOS; default Deno.uid()). */
  readonly uid?: number;
}

/** Where and how autostart is (or would be) registered. */
export interface AutostartStatus {
  readonly installed: boolean;
  readonly method: "launchagent" | "registry-run" | "startup-folder" | "xdg-autostart";
  /** The plist, .desktop or .cmd file, or the registry key\value. */
  readonly location: string;
  /** The registered command line as found (undefined when not installed). */
  readonly registered?: string | undefined;
  /** Human explanation (e.g. "loaded in launchd", "reg add failed: …"). */
  readonly detail: string;
}

/**
 * The command that starts the agent: `[exe, "agent"]` for a compiled binary, or
 * `[deno, "run", "-A", "--v8-flags=<AGENT_V8_FLAGS>", <main.ts>, "agent"]` from source.
 * @param execPath Deno.execPath()
 * @param mainModule Deno.mainModule (a file: URL)
 * @param extra arguments after `agent` (e.g. `--token-service URL`)
 * @returns the argument vector
 * @throws never
 */
export function agentCommand(
  execPath: string,
  mainModule: string,
  extra: readonly string[] = [],
): string[] {
  const exe = (execPath.split(/[\\/]/).pop() ?? "").toLowerCase();
  if (exe !== "deno" && exe !== "deno.exe") return [execPath, "agent", ...extra];
  const main = mainModule.startsWith("file:") ? fromFileUrl(mainModule) : mainModule;
  return [execPath, "run", "-A", `--v8-flags=${AGENT_V8_FLAGS}`, main, "agent", ...extra];
}

function fromFileUrl(u: string): string {
  const p = decodeURIComponent(new URL(u).pathname);
  return /^\/[A-Za-z]:\//.test(p) ? p.slice(1).replaceAll("/", "\\") : p;
}

const guiDomain = (o: AutostartOptions) => `gui/${o.uid ?? Deno.uid() ?? 501}`;

const home = (o: AutostartOptions) => {
  const h = o.env.HOME ?? o.env.USERPROFILE;
  if (!h) throw new UserError("Cannot register autostart: HOME is not set");
  return h;
};

/** Path of the LaunchAgent plist. */
const plistPath = (o: AutostartOptions) =>
  join(home(o), "Library", "LaunchAgents", `${AUTOSTART_LABEL}.plist`);
/** Path of the XDG autostart entry. */
const desktopPath = (o: AutostartOptions) =>
  join(o.env.XDG_CONFIG_HOME || join(home(o), ".config"), "autostart", DESKTOP_NAME);
/** Path of the Windows Startup-folder fallback. */
const startupCmdPath = (o: AutostartOptions) => {
  if (!o.env.APPDATA) throw new UserError("Cannot register autostart: APPDATA is not set");
  return join(
    o.env.APPDATA,
    "Microsoft",
    "Windows",
    "Start Menu",
    "Programs",
    "Startup",
    "svc-filing-agent.cmd",
  );
};

/**
 * The LaunchAgent plist: RunAtLoad, no KeepAlive (a second start exits when one runs), logs in
 * ~/Library/Logs/svc-filing.
 * @param command the argument vector
 * @param homeDir the user's home directory
 * @returns plist XML
 * @throws never
 */
export function launchAgentPlist(command: readonly string[], homeDir: string): string {
  const log = join(homeDir, "Library", "Logs", "svc-filing", "agent.log");
  return plistDocument(`  <key>Label</key>
  <string>${AUTOSTART_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${command.map((a) => `    <string>${xml(a)}</string>`).join("\n")}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <false/>
  <key>ProcessType</key>
  <string>Interactive</string>
  <key>StandardOutPath</key>
  <string>${xml(log)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(log)}</string>`);
}

/**
 * Quotes one argument for a `.desktop` Exec key (Desktop Entry spec § The Exec key: reserved
 * characters need double quotes; `"`, `` ` ``, `$`, `\` are backslash-escaped inside, then the
 * string-value rule doubles every backslash; `%` is written `%%`).
 * @param arg one argument
 * @returns the quoted argument
 * @throws never
 */
export function desktopExecArg(arg: string): string {
  const pct = arg.replaceAll("%", "%%");
  if (!/[\s"'\\><~|&;$*?#()`]/.test(pct) && pct !== "") return pct;
  return `"${pct.replace(/["`$\\]/g, (c) => `\\${c}`).replaceAll("\\", "\\\\")}"`;
}

/**
 * The XDG autostart entry.
 * @param command the argument vector
 * @returns the .desktop file text
 * @throws never
 */
export function desktopEntry(command: readonly string[]): string {
  return `[Desktop Entry]
Type=Application
Name=SVC filing agent
Comment=Local agent for NRA filings (starts at login)
Exec=${command.map(desktopExecArg).join(" ")}
Terminal=false
NoDisplay=true
X-GNOME-Autostart-enabled=true
`;
}

/**
 * Quotes one Windows command-line argument when needed (CommandLineToArgvW rules).
 * @param arg one argument
 * @returns the argument, quoted and escaped when it has spaces or quotes
 * @throws never
 */
export function windowsArg(arg: string): string {
  if (arg !== "" && !/[\s"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, "$1$1")}"`;
}

async function writeFile(path: string, text: string, mode?: number): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text, mode === undefined ? {} : { mode });
}

async function removeIfPresent(path: string): Promise<boolean> {
  try {
    await Deno.remove(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

const readIfPresent = (path: string) => Deno.readTextFile(path).catch(() => undefined);

/**
 * Registers the agent to start at login (replacing an earlier registration).
 * @param o OS, environment, command and runner
 * @returns the resulting status
 * @throws Error when the registration cannot be written or launchctl/reg and the fallback fail
 */
export async function installAutostart(o: AutostartOptions): Promise<AutostartStatus> {
  if (o.os === "linux") {
    await writeFile(desktopPath(o), desktopEntry(o.command), 0o644);
    return autostartStatus(o);
  }
  if (o.os === "darwin") {
    const path = plistPath(o);
    await Deno.mkdir(join(home(o), "Library", "Logs", "svc-filing"), { recursive: true });
    await writeFile(path, launchAgentPlist(o.command, home(o)), 0o644);
    const before = await autostartStatus(o);
    // Already loaded: leave the running agent alone; the new plist applies at the next login
    // (bootout would stop it, bootstrap of a loaded label fails with "5: Input/output error").
    if (before.detail === LOADED) {
      return { ...before, detail: `${LOADED}; changes apply at next login` };
    }
    const r = await o.run({ cmd: "launchctl", args: ["bootstrap", guiDomain(o), path] });
    if (r.code !== 0) {
      throw new UserError(
        `launchctl bootstrap ${guiDomain(o)} failed (${r.code}): ${r.stderr.trim()}`,
      );
    }
    return autostartStatus(o);
  }
  const line = o.command.map(windowsArg).join(" ");
  const r = await o.run({
    cmd: "reg",
    args: ["add", RUN_KEY, "/v", RUN_VALUE, "/t", "REG_SZ", "/d", line, "/f"],
  }).catch((e) => ({ code: -1, stdout: "", stderr: String(e) }));
  if (r.code === 0) {
    await removeIfPresent(startupCmdPath(o)).catch(() => false);
    return autostartStatus(o);
  }
  await writeFile(startupCmdPath(o), `@echo off\r\nstart "" ${line.replaceAll("%", "%%")}\r\n`);
  const s = await autostartStatus(o);
  return { ...s, detail: `reg add failed (${r.stderr.trim() || r.code}); ${s.detail}` };
}

/**
 * Removes the login registration (and, on macOS, unloads the LaunchAgent, which stops an agent
 * that launchd started). Missing registrations are not an error.
 * @param o OS, environment and runner (`command` is not used)
 * @returns the resulting status (installed: false)
 * @throws Error when a file cannot be removed
 */
export async function uninstallAutostart(o: AutostartOptions): Promise<AutostartStatus> {
  if (o.os === "linux") {
    await removeIfPresent(desktopPath(o));
  } else if (o.os === "darwin") {
    const path = plistPath(o);
    await o.run({ cmd: "launchctl", args: ["bootout", guiDomain(o), path] });
    await removeIfPresent(path);
  } else {
    await o.run({ cmd: "reg", args: ["delete", RUN_KEY, "/v", RUN_VALUE, "/f"] })
      .catch(() => undefined);
    await removeIfPresent(startupCmdPath(o));
  }
  return autostartStatus(o);
}

/**
 * Reports whether autostart is registered.
 * @param o OS, environment and runner
 * @returns the status with the registered command line
 * @throws never for a missing registration; Error when HOME/APPDATA is unset
 */
export async function autostartStatus(o: AutostartOptions): Promise<AutostartStatus> {
  if (o.os === "linux") {
    const location = desktopPath(o);
    const text = await readIfPresent(location);
    const registered = text?.match(/^Exec=(.*)$/m)?.[1];
    return text === undefined
      ? { installed: false, method: "xdg-autostart", location, detail: "no autostart entry" }
      : {
        installed: true,
        method: "xdg-autostart",
        location,
        registered,
        detail: "starts at login",
      };
  }
  if (o.os === "darwin") {
    const location = plistPath(o);
    const text = await readIfPresent(location);
    if (text === undefined) {
      return { installed: false, method: "launchagent", location, detail: "no LaunchAgent" };
    }
    const args = [...text.matchAll(/^ {4}<string>(.*)<\/string>$/gm)].map((m) => m[1]);
    const r = await o.run({
      cmd: "launchctl",
      args: ["print", `${guiDomain(o)}/${AUTOSTART_LABEL}`],
    }).catch(() => ({ code: -1 }));
    const detail = r.code === 0 ? LOADED : "plist present, not loaded";
    return { installed: true, method: "launchagent", location, registered: args.join(" "), detail };
  }
  const q = await o.run({ cmd: "reg", args: ["query", RUN_KEY, "/v", RUN_VALUE] })
    .catch(() => ({ code: -1, stdout: "" }));
  const value = q.code === 0 ? q.stdout.match(/REG_SZ\s+(.*\S)\s*$/m)?.[1] : undefined;
  if (value !== undefined) {
    return {
      installed: true,
      method: "registry-run",
      location: `${RUN_KEY}\\${RUN_VALUE}`,
      registered: value,
      detail: "starts at login",
    };
  }
  const cmdPath = startupCmdPath(o);
  const text = await readIfPresent(cmdPath);
  return text === undefined
    ? {
      installed: false,
      method: "registry-run",
      location: `${RUN_KEY}\\${RUN_VALUE}`,
      detail: "no Run value",
    }
    : {
      installed: true,
      method: "startup-folder",
      location: cmdPath,
      registered: text.match(/^start "" (.*)$/m)?.[1]?.trim(),
      detail: "starts at login (Startup folder)",
    };
}
