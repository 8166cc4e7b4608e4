/**
 * The `svc-agent://start` URL scheme: an integrator's page whose `GET /health` gets no answer
 * opens `svc-agent://start`, the browser asks the person whether to open the agent, and the
 * OS starts it (a running agent just stays running). Registered per user, without admin rights:
 *
 * - **Linux**: a `.desktop` file with `MimeType=x-scheme-handler/svc-agent;` in
 *   `$XDG_DATA_HOME/applications` (default `~/.local/share/applications`), made the default
 *   handler with `xdg-mime default … x-scheme-handler/svc-agent`;
 * - **Windows**: `HKCU\Software\Classes\svc-agent` with `URL Protocol` and
 *   `shell\open\command` (`reg add`; the same entries as a `.reg` file for an installer);
 * - **macOS**: `CFBundleURLTypes` in the `Info.plist` of the package's `.app` wrapper
 *   (LaunchServices registers it when the app is first opened).
 *
 * The OS, environment, command and runner are injected; the Linux path was run for real here,
 * the Windows and macOS files are generated and checked (docs/install.md § Starting from a page).
 * @module
 */
import { dirname, join } from "node:path";
import type { CommandRunner } from "../../command_runner.ts";
import { START_URL, URL_SCHEME } from "../start/mod.ts";
import { desktopExecArg, windowsArg } from "./autostart.ts";
import { plistDocument, xmlText as xml } from "./plist.ts";
import { UserError } from "../../user_error.ts";

const DESKTOP_NAME = "svc-agent-url.desktop";
const CLASSES_KEY = `HKCU\\Software\\Classes\\${URL_SCHEME}`;

/** Inputs of the registration functions. */
export interface UrlSchemeOptions {
  readonly os: "linux" | "darwin" | "windows";
  /** HOME, XDG_DATA_HOME. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The command that starts the agent; the URL is appended as its last argument. */
  readonly command: readonly string[];
  readonly run: CommandRunner;
}

/** Where and how the scheme is registered. */
export interface UrlSchemeStatus {
  readonly installed: boolean;
  readonly method: "xdg-mime" | "registry" | "app-bundle";
  readonly location: string;
  readonly detail: string;
}

/**
 * The Linux handler entry.
 * @param command the argument vector (the URL is passed as `%u`)
 * @returns the .desktop text
 */
export function schemeDesktopEntry(command: readonly string[]): string {
  return `[Desktop Entry]
Type=Application
Name=SVC filing agent
Comment=Starts the local filing agent when a page opens ${START_URL}
Exec=${command.map(desktopExecArg).join(" ")} %u
MimeType=x-scheme-handler/${URL_SCHEME};
Terminal=false
NoDisplay=true
`;
}

/**
 * The Windows registry entries as a `.reg` file (Registry Editor 5.00, UTF-16 is not needed
 * for ASCII paths; written CRLF).
 * @param command the argument vector (`"%1"` receives the URL)
 * @returns the .reg text
 */
export function schemeRegFile(command: readonly string[]): string {
  const reg = (s: string) => s.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
  const line = `${command.map(windowsArg).join(" ")} "%1"`;
  return [
    "Windows Registry Editor Version 5.00",
    "",
    `[HKEY_CURRENT_USER\\Software\\Classes\\${URL_SCHEME}]`,
    `@="URL:${URL_SCHEME} Protocol"`,
    `"URL Protocol"=""`,
    "",
    `[HKEY_CURRENT_USER\\Software\\Classes\\${URL_SCHEME}\\shell\\open\\command]`,
    `@="${reg(line)}"`,
    "",
  ].join("\r\n");
}

/**
 * The `Info.plist` of the macOS `.app` wrapper.
 * @param version the app version (CFBundleShortVersionString)
 * @returns the property list (XML, Apple's DOCTYPE)
 */
export function appInfoPlist(version: string): string {
  return plistDocument(`  <key>CFBundleIdentifier</key>
  <string>bg.svc.filing-agent</string>
  <key>CFBundleName</key>
  <string>SVC Filing Agent</string>
  <key>CFBundleExecutable</key>
  <string>svc-filing-agent</string>
  <key>CFBundlePackageType</key>
  <string>APPL</string>
  <key>CFBundleShortVersionString</key>
  <string>${xml(version)}</string>
  <key>CFBundleVersion</key>
  <string>${xml(version)}</string>
  <key>LSMinimumSystemVersion</key>
  <string>11.0</string>
  <key>LSBackgroundOnly</key>
  <true/>
  <key>CFBundleURLTypes</key>
  <array>
    <dict>
      <key>CFBundleURLName</key>
      <string>bg.svc.filing-agent.start</string>
      <key>CFBundleURLSchemes</key>
      <array>
        <string>${URL_SCHEME}</string>
      </array>
    </dict>
  </array>`);
}

/**
 * The `.app` wrapper's executable: starts the agent through the package's launcher (macOS
 * hands the URL over as an Apple event; opening the app is the start).
 * @returns the shell script (mode 0755)
 */
export function appExecutable(): string {
  return `#!/bin/sh
# SVC Filing Agent.app: started by the Finder or by a ${START_URL} link.
exec "$(dirname -- "$0")/../../../svc-filing" agent
`;
}

const desktopPath = (o: UrlSchemeOptions) => {
  const data = o.env.XDG_DATA_HOME ?? (o.env.HOME ? join(o.env.HOME, ".local", "share") : null);
  if (!data) throw new UserError("Cannot register the svc-agent: link handler: HOME is not set");
  return join(data, "applications", DESKTOP_NAME);
};

/**
 * Register the scheme for this user (replacing an earlier registration).
 * @param o OS, environment, command and runner
 * @returns the status
 * @throws Error when the file cannot be written or `xdg-mime` / `reg` fails
 */
export async function installUrlScheme(o: UrlSchemeOptions): Promise<UrlSchemeStatus> {
  if (o.os === "linux") {
    const path = desktopPath(o);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, schemeDesktopEntry(o.command), { mode: 0o644 });
    const r = await o.run({
      cmd: "xdg-mime",
      args: ["default", DESKTOP_NAME, `x-scheme-handler/${URL_SCHEME}`],
    });
    if (r.code !== 0) throw new UserError(`xdg-mime failed: ${r.stderr.trim() || r.code}`);
    return {
      installed: true,
      method: "xdg-mime",
      location: path,
      detail: `default handler of x-scheme-handler/${URL_SCHEME}`,
    };
  }
  if (o.os === "windows") {
    const line = `${o.command.map(windowsArg).join(" ")} "%1"`;
    for (
      const args of [
        ["add", CLASSES_KEY, "/ve", "/d", `URL:${URL_SCHEME} Protocol`, "/f"],
        ["add", CLASSES_KEY, "/v", "URL Protocol", "/d", "", "/f"],
        ["add", `${CLASSES_KEY}\\shell\\open\\command`, "/ve", "/d", line, "/f"],
      ]
    ) {
      const r = await o.run({ cmd: "reg", args });
      if (r.code !== 0) throw new UserError(`reg add failed: ${r.stderr.trim() || r.code}`);
    }
    return { installed: true, method: "registry", location: CLASSES_KEY, detail: line };
  }
  return {
    installed: true,
    method: "app-bundle",
    location: "SVC Filing Agent.app/Contents/Info.plist",
    detail: "macOS registers the scheme when the app in the package is first opened",
  };
}

/**
 * Remove the registration.
 * @param o OS, environment, runner
 * @returns the status (installed false)
 * @throws Error when `reg delete` fails for another reason than a missing key
 */
export async function uninstallUrlScheme(o: UrlSchemeOptions): Promise<UrlSchemeStatus> {
  if (o.os === "linux") {
    const path = desktopPath(o);
    await Deno.remove(path).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    return { installed: false, method: "xdg-mime", location: path, detail: "handler removed" };
  }
  if (o.os === "windows") {
    const r = await o.run({ cmd: "reg", args: ["delete", CLASSES_KEY, "/f"] });
    const missing = /unable to find|не може да намери/i.test(r.stderr);
    if (r.code !== 0 && !missing) throw new UserError(`reg delete failed: ${r.stderr.trim()}`);
    return { installed: false, method: "registry", location: CLASSES_KEY, detail: "removed" };
  }
  return {
    installed: false,
    method: "app-bundle",
    location: "SVC Filing Agent.app",
    detail: "delete the package folder (the app inside it) to unregister",
  };
}
