/**
 * `svc-filing.exe`, the Windows entry point of the package (scripts/package/windows/svc_filing.c;
 * docs/install.md § Windows: the installed program): built with mingw-w64 as a GUI-subsystem
 * program (PE subsystem 2, no console window) with the package's icons (scripts/package/icon.ts)
 * and a version resource. The runtime's flags come from scripts/package/launchers.ts, so the
 * `.exe` and `svc-filing.cmd` run the app the same way. Reproducible: no time stamp in the PE
 * header (`--no-insert-timestamp`), the same sources give the same bytes.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ICON_STATES, iconFile, type IconState } from "./icon.ts";
import { runFlags } from "./launchers.ts";
import { runCommand, type Runner } from "./runtime.ts";

/** The C source. */
export const LAUNCHER_SOURCE = fileURLToPath(new URL("./windows/svc_filing.c", import.meta.url));
/** The mingw-w64 tools the `.exe` needs (Debian `gcc-mingw-w64-x86-64`). */
export const MINGW_TOOLS = ["x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-windres"] as const;

/** The file name inside the package. */
export const LAUNCHER_EXE = "svc-filing.exe";

/**
 * Which of the given programs are not on PATH.
 * @param tools program names
 * @returns the missing ones
 */
export function missingTools(tools: readonly string[]): string[] {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
  return tools.filter((t) =>
    !dirs.some((d) => {
      try {
        return Deno.statSync(join(d, t)).isFile;
      } catch {
        return false;
      }
    })
  );
}

/**
 * The four numbers of a Windows version resource from a semantic version.
 * @param version e.g. "0.1.0" or "1.2.3-rc.1"
 * @returns e.g. "0,1,0,0"
 */
export function versionQuad(version: string): string {
  const [a = 0, b = 0, c = 0] = version.split(/[-+]/)[0]!.split(".").map((n) => Number(n) || 0);
  return `${a},${b},${c},0`;
}

/**
 * The resource script: the four tray icons (1 = running, also the program's icon; 2 = filing;
 * 3 = needs attention; 4 = starting) and the version resource.
 * @param version the app version
 * @returns the `.rc` text (icons named `icon-<state>.ico` beside it)
 */
export function resourceScript(version: string): string {
  const q = versionQuad(version);
  const icons = (Object.keys(ICON_STATES) as IconState[])
    .map((s, i) => `${i + 1} ICON "icon-${s}.ico"`);
  return [
    ...icons,
    "1 VERSIONINFO",
    `FILEVERSION ${q}`,
    `PRODUCTVERSION ${q}`,
    "FILEOS 0x40004",
    "FILETYPE 0x1",
    "BEGIN",
    '  BLOCK "StringFileInfo"',
    "  BEGIN",
    '    BLOCK "040904B0"',
    "    BEGIN",
    '      VALUE "CompanyName", "SVC"',
    '      VALUE "FileDescription", "SVC filing agent"',
    `      VALUE "FileVersion", "${version}"`,
    '      VALUE "InternalName", "svc-filing"',
    '      VALUE "OriginalFilename", "svc-filing.exe"',
    '      VALUE "ProductName", "svc-filing"',
    `      VALUE "ProductVersion", "${version}"`,
    "    END",
    "  END",
    '  BLOCK "VarFileInfo"',
    "  BEGIN",
    '    VALUE "Translation", 0x409, 1200',
    "  END",
    "END",
    "",
  ].join("\n");
}

/**
 * Build `svc-filing.exe`.
 * @param version the app version (the tray's menu, the version resource)
 * @param run the command runner
 * @returns the executable's bytes
 * @throws Error with the compiler's message when windres or gcc fails
 */
export async function buildLauncherExe(
  version: string,
  run: Runner = runCommand,
): Promise<Uint8Array> {
  const tmp = await Deno.makeTempDir({ prefix: "svc-launcher-" });
  try {
    for (const s of Object.keys(ICON_STATES) as IconState[]) {
      await Deno.writeFile(join(tmp, `icon-${s}.ico`), iconFile(s));
    }
    await Deno.writeTextFile(join(tmp, "launcher.rc"), resourceScript(version));
    const res = await run(MINGW_TOOLS[1], ["-O", "coff", "-i", "launcher.rc", "-o", "res.o"], tmp);
    if (res.code !== 0) throw new Error(`windres failed: ${res.err.trim()}`);
    const out = join(tmp, "svc-filing.exe");
    const flags = runFlags().join(" ");
    const cc = await run(MINGW_TOOLS[0], [
      "-municode",
      "-mwindows",
      "-O2",
      "-s",
      "-Wall",
      "-Wl,--no-insert-timestamp",
      `-DSVC_RUN_FLAGS=L"${flags}"`,
      `-DSVC_VERSION=L"${version}"`,
      "-o",
      out,
      LAUNCHER_SOURCE,
      join(tmp, "res.o"),
      "-lwinhttp",
      "-lshell32",
    ], tmp);
    if (cc.code !== 0) throw new Error(`mingw gcc failed: ${cc.err.trim()}`);
    return await Deno.readFile(out);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
