/**
 * The launchers of the portable package: `svc-filing` (POSIX sh: Linux, and macOS from a
 * terminal), `svc-filing.command` (macOS, double-clicked in the Finder) and `svc-filing.cmd`
 * (Windows). Each takes the same commands as `main.ts` and starts the agent when given none (a
 * double-click), runs the bundled runtime with the permissions the agent needs (not `-A`),
 * with nothing fetched at run time (`--no-remote --no-npm`, no config, no lock file), and keeps
 * Deno's cache inside the user's data folder (`<data>/runtime-cache`). The data folder is the
 * agent's (SVC_DATA_DIR, else the OS default of src/defaults.ts); a folder that cannot be
 * created is one sentence and exit 1.
 * @module
 */
import { AGENT_V8_FLAGS } from "../../src/defaults.ts";

/** Runtime permissions: files, loopback and portal network, environment, the OS tools the
 * agent runs (browser, pickers, autostart, key stores), PKCS#11 through FFI, OS facts. */
export const PACKAGE_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-ffi",
  "--allow-sys",
] as const;

/** The `deno run` flags every launcher passes before the app. */
export function runFlags(): string[] {
  return [
    "run",
    ...PACKAGE_PERMISSIONS,
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--no-remote",
    "--no-npm",
    // request.signal aborts only when the client goes away (the confirmation cancels a dialog
    // whose callers left); without it Deno warns about its legacy behaviour.
    "--unstable-no-legacy-abort",
    `--v8-flags=${AGENT_V8_FLAGS}`,
  ];
}

const sh = (dataDefault: string) =>
  `#!/bin/sh
# svc-filing — the local filing agent (portable package). Same commands as main.ts;
# without a command it starts the agent. Data: $SVC_DATA_DIR, else ${dataDefault}.
set -u
DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
DATA="\${SVC_DATA_DIR:-${dataDefault}}"
if ! mkdir -p "$DATA/runtime-cache" 2>/dev/null; then
  echo "svc-filing: cannot create the data folder $DATA; set SVC_DATA_DIR to a folder you can write." >&2
  exit 1
fi
export DENO_DIR="$DATA/runtime-cache" DENO_NO_UPDATE_CHECK=1 DENO_NO_PROMPT=1
[ "$#" -eq 0 ] && set -- agent
exec "$DIR/runtime/deno" ${runFlags().join(" ")} "$DIR/app/svc-filing.js" "$@"
`;

/**
 * The POSIX launcher.
 * @param os "linux" or "darwin" (the default data folder differs)
 * @returns the script (LF line ends; mode 0755 in the archive)
 */
export function shLauncher(os: "linux" | "darwin"): string {
  return sh(
    os === "darwin"
      ? "$HOME/Library/Application Support/svc-filing"
      : "\${XDG_DATA_HOME:-$HOME/.local/share}/svc-filing",
  );
}

/**
 * The macOS Finder launcher: runs `svc-filing` beside it (a double-click starts the agent).
 * @returns the script (mode 0755)
 */
export function commandLauncher(): string {
  return `#!/bin/sh
# Double-click in the Finder: starts the local filing agent (see README.txt).
exec "$(dirname -- "$0")/svc-filing" "$@"
`;
}

/**
 * The Windows launcher (double-click or `svc-filing.cmd <command>`).
 * @returns the batch file (CRLF line ends)
 */
export function cmdLauncher(): string {
  return [
    "@echo off",
    "rem svc-filing - the local filing agent (portable package). Same commands as main.ts;",
    "rem without a command it starts the agent. Data: %SVC_DATA_DIR%, else %LOCALAPPDATA%\\svc-filing.",
    "setlocal",
    'set "DIR=%~dp0"',
    'if not defined SVC_DATA_DIR set "SVC_DATA_DIR=%LOCALAPPDATA%\\svc-filing"',
    'if not exist "%SVC_DATA_DIR%\\runtime-cache" mkdir "%SVC_DATA_DIR%\\runtime-cache" 2>nul',
    'if not exist "%SVC_DATA_DIR%\\runtime-cache" (',
    "  echo svc-filing: cannot create the data folder %SVC_DATA_DIR%; set SVC_DATA_DIR to a folder you can write. 1>&2",
    "  exit /b 1",
    ")",
    'set "DENO_DIR=%SVC_DATA_DIR%\\runtime-cache"',
    "set DENO_NO_UPDATE_CHECK=1",
    "set DENO_NO_PROMPT=1",
    'if "%~1"=="" (',
    `  "%DIR%runtime\\deno.exe" ${runFlags().join(" ")} "%DIR%app\\svc-filing.js" agent`,
    ") else (",
    `  "%DIR%runtime\\deno.exe" ${runFlags().join(" ")} "%DIR%app\\svc-filing.js" %*`,
    ")",
    "exit /b %ERRORLEVEL%",
    "",
  ].join("\r\n");
}

/**
 * README.txt of the package: what to run and where the data lives.
 * @param version the app version
 * @param target the target's short name
 * @returns the text
 */
export function packageReadme(version: string, target: string): string {
  const win = target.startsWith("win");
  const mac = target.startsWith("macos");
  const start = win
    ? "Double-click svc-filing.cmd (or run `svc-filing.cmd agent` in a terminal)."
    : mac
    ? "Double-click svc-filing.command (or run `./svc-filing agent` in Terminal)."
    : "Run `./svc-filing` (or `./svc-filing agent`).";
  const data = win
    ? "%LOCALAPPDATA%\\svc-filing"
    : mac
    ? "~/Library/Application Support/svc-filing"
    : "~/.local/share/svc-filing";
  return [
    `svc-filing ${version} (${target}) — the local filing agent`,
    "",
    `Start: ${start}`,
    "Console: the same again while the agent runs opens its console in your browser (senders,",
    "filings, diagnostics, log); `svc-filing agent open` does it from a terminal or a shortcut.",
    "Commands: the same as main.ts — `svc-filing --help` lists them (agent, demo, senders,",
    "journal, agent doctor, …).",
    `Data: ${data} (or SVC_DATA_DIR). Deno's cache stays in its runtime-cache folder.`,
    "Contents: runtime/ (the official Deno runtime), app/ (the agent as one file, with the",
    "API docs' assets). Nothing is downloaded when it runs.",
    "",
  ].join(win ? "\r\n" : "\n");
}
