/**
 * Native file and folder dialogs (docs/local-input.md § Native pickers: pick-file / pick-folder,
 * 600-second time-out): zenity, then kdialog on Linux; `osascript` on macOS; PowerShell
 * (WinForms dialogs) on Windows. One dialog at a time (PICKER_BUSY), a cancel is a normal
 * result `{ path: null, cancelled: true }`, the time-out kills the dialog (PICKER_TIMEOUT), no
 * dialog program at all → PICKER_UNAVAILABLE. A dialog that cannot open (no display: zenity then
 * exits with its cancel code and says "cannot open display") is PICKER_UNAVAILABLE too, never a
 * cancel, so that the page can say what to do instead.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import type { Pickers, PickResult } from "./pickers.ts";

/** Picker time-out, ms (docs/local-input.md § Native pickers). */
export const PICKER_TIMEOUT_MS = 600_000;

/** One way to show a dialog: program, arguments, and how its exit code reads. */
export interface PickerCommand {
  readonly cmd: string;
  readonly args: string[];
  /** Exit codes that mean "cancelled". */
  readonly cancelCodes: number[];
}

const TITLE = { file: "Изберете файл / Choose a file", folder: "Изберете папка / Choose a folder" };

/**
 * The dialog commands to try, in order, on an OS.
 * @param os Deno.build.os
 * @param kind file or folder
 * @returns candidate commands (the first whose program exists is used)
 */
export function pickerCommands(os: string, kind: "file" | "folder"): PickerCommand[] {
  if (os === "darwin") {
    const what = kind === "file" ? "choose file" : "choose folder";
    return [{
      cmd: "osascript",
      args: ["-e", `POSIX path of (${what} with prompt "${TITLE[kind]}")`],
      cancelCodes: [1],
    }];
  }
  if (os === "windows") {
    const script = kind === "file"
      ? "Add-Type -AssemblyName System.Windows.Forms; $d = New-Object System.Windows.Forms.OpenFileDialog; " +
        `$d.Title = '${TITLE.file}'; if ($d.ShowDialog() -eq 'OK') { [Console]::OutputEncoding = [Text.Encoding]::UTF8; $d.FileName } else { exit 1 }`
      : "Add-Type -AssemblyName System.Windows.Forms; $d = New-Object System.Windows.Forms.FolderBrowserDialog; " +
        `$d.Description = '${TITLE.folder}'; if ($d.ShowDialog() -eq 'OK') { [Console]::OutputEncoding = [Text.Encoding]::UTF8; $d.SelectedPath } else { exit 1 }`;
    return [{
      cmd: "powershell.exe",
      args: ["-NoProfile", "-STA", "-Command", script],
      cancelCodes: [1],
    }];
  }
  return [
    {
      cmd: "zenity",
      args: [
        "--file-selection",
        `--title=${TITLE[kind]}`,
        ...(kind === "folder" ? ["--directory"] : []),
      ],
      cancelCodes: [1],
    },
    {
      cmd: "kdialog",
      args: kind === "file"
        ? ["--title", TITLE.file, "--getopenfilename", "."]
        : ["--title", TITLE.folder, "--getexistingdirectory", "."],
      cancelCodes: [1],
    },
  ];
}

/** What a dialog program says on stderr when it cannot open a window (zenity, kdialog). */
const NO_DISPLAY = /cannot open display|could not connect to display|cannot connect to X server/i;

/** Options of {@link createNativePickers}. */
export interface NativePickerOptions {
  readonly os?: string;
  /** Environment for the dialog process (e.g. DISPLAY); default: inherit. When given, a Linux
   * environment without DISPLAY or WAYLAND_DISPLAY fails at once (PICKER_UNAVAILABLE). */
  readonly env?: Record<string, string>;
  readonly timeoutMs?: number;
}

/**
 * Create the native pickers.
 * @param opts OS, environment, time-out
 * @returns Pickers
 */
export function createNativePickers(opts: NativePickerOptions = {}): Pickers {
  let busy = false;
  const os = opts.os ?? Deno.build.os;
  const timeoutMs = opts.timeoutMs ?? PICKER_TIMEOUT_MS;
  return {
    async pick(kind): Promise<PickResult> {
      const env = opts.env;
      if (os === "linux" && env && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
        throw new AppError("PICKER_UNAVAILABLE", "No display: a dialog cannot open here", {
          reason: "no_display",
        });
      }
      if (busy) throw new AppError("PICKER_BUSY", "A file or folder dialog is already open");
      busy = true;
      try {
        for (const c of pickerCommands(os, kind)) {
          let child: Deno.ChildProcess;
          try {
            child = new Deno.Command(c.cmd, {
              args: c.args,
              stdin: "null",
              stdout: "piped",
              stderr: "piped",
              ...(opts.env ? { env: opts.env } : {}),
            }).spawn();
          } catch (e) {
            if (e instanceof Deno.errors.NotFound) continue;
            throw new AppError("PICKER_UNAVAILABLE", `Cannot start ${c.cmd}`, undefined, e);
          }
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            try {
              child.kill("SIGKILL");
            } catch { /* gone */ }
          }, timeoutMs);
          const out = await child.output().finally(() => clearTimeout(timer));
          if (timedOut) {
            throw new AppError(
              "PICKER_TIMEOUT",
              `The dialog was not answered within ${timeoutMs / 1000} s`,
            );
          }
          const path = new TextDecoder().decode(out.stdout).replace(/[\r\n]+$/, "");
          if (out.code !== 0 && NO_DISPLAY.test(new TextDecoder().decode(out.stderr))) {
            throw new AppError("PICKER_UNAVAILABLE", `${c.cmd} cannot open a window here`, {
              reason: "no_display",
            });
          }
          if (out.code === 0 && path) return { path, cancelled: false };
          if (c.cancelCodes.includes(out.code) || (out.code === 0 && !path)) {
            return { path: null, cancelled: true };
          }
          throw new AppError(
            "PICKER_UNAVAILABLE",
            `${c.cmd} failed (exit code ${out.code}); is a display available?`,
          );
        }
        throw new AppError(
          "PICKER_UNAVAILABLE",
          os === "linux"
            ? "No dialog program: install zenity or kdialog"
            : "No dialog program is available",
        );
      } finally {
        busy = false;
      }
    },
  };
}
