/**
 * Windows Installer as an update sees it (docs/install.md § Updates, "Installed with the MSI"):
 * running `msiexec` hidden with a verbose log, and reading back what it did — the "Apps" entry
 * the MSI writes (`HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\svc-filing`: its
 * `DisplayVersion` and the `UninstallString` naming the ProductCode) and the MSI an install came
 * from (Windows Installer's per-user source list). The registry is read with `reg query` and its
 * printed values; an exit code alone is never taken as a result.
 * @module
 */
import type { CommandRunner } from "../../command_runner.ts";

/** The "Apps" entry the MSI writes (scripts/package/msi.ts, UNINSTALL_KEY). */
export const APPS_KEY = "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\svc-filing";

/** The Windows programs an MSI update runs (in `%SystemRoot%\System32`, not found on PATH). */
export interface MsiTools {
  readonly run: CommandRunner;
  /** reg.exe */
  readonly reg: string;
  /** msiexec.exe */
  readonly msiexec: string;
}

/**
 * The system's own `reg.exe` and `msiexec.exe`.
 * @param env the environment (SystemRoot)
 * @param run the command runner
 * @returns the tools
 */
export function msiTools(env: Record<string, string | undefined>, run: CommandRunner): MsiTools {
  const sys = `${env.SystemRoot ?? env.SYSTEMROOT ?? "C:\\Windows"}\\System32`;
  return { run, reg: `${sys}\\reg.exe`, msiexec: `${sys}\\msiexec.exe` };
}

/**
 * A value of a registry key as `reg query KEY /v NAME` prints it.
 * @param t the tools
 * @param key e.g. {@link APPS_KEY}
 * @param name the value's name
 * @returns its data (REG_SZ / REG_EXPAND_SZ), or null when the key or value is absent
 */
export async function regValue(t: MsiTools, key: string, name: string): Promise<string | null> {
  const r = await t.run({ cmd: t.reg, args: ["query", key, "/v", name] }).catch(() => null);
  if (!r) return null;
  return parseRegValue(r.stdout, name);
}

/**
 * The data of one value in `reg query` output.
 * @param out what `reg query` printed
 * @param name the value's name
 * @returns the data, or null when not listed
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const out = "\r\nHKEY_CURRENT_USER\\X\r\n    DisplayVersion    REG_SZ    0.1.1\r\n";
 * equal(parseRegValue(out, "DisplayVersion"), "0.1.1");
 * equal(parseRegValue(out, "Publisher"), null);
 * ```
 */
export function parseRegValue(out: string, name: string): string | null {
  for (const line of out.split(/\r?\n/)) {
    const m = /^\s+(.+?)\s+(REG_SZ|REG_EXPAND_SZ)\s+(.*)$/.exec(line);
    // non-null: groups 1 and 3 of the pattern are not optional, so a match has them
    if (m && m[1]!.toLowerCase() === name.toLowerCase()) return m[3]!.trimEnd();
  }
  return null;
}

/**
 * The installed svc-filing as "Apps" shows it.
 * @param t the tools
 * @returns its version and ProductCode (`{GUID}`), or null when no entry is there
 */
export async function appsEntry(
  t: MsiTools,
): Promise<{ version: string; productCode: string | null } | null> {
  const version = await regValue(t, APPS_KEY, "DisplayVersion");
  if (version === null) return null;
  const uninstall = await regValue(t, APPS_KEY, "UninstallString") ?? "";
  const productCode = /\/X\s*(\{[0-9A-Fa-f-]{36}\})/i.exec(uninstall)?.[1] ?? null;
  return { version, productCode };
}

/**
 * A ProductCode as Windows Installer's registry keys spell it ("packed": each group's hex
 * digits reversed, the last two groups by byte).
 * @param guid `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`
 * @returns 32 hex digits
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(packedGuid("{12345678-90AB-CDEF-1234-567890ABCDEF}"), "87654321BA09FEDC2143658709BADCFE");
 * ```
 */
export function packedGuid(guid: string): string {
  const h = guid.replace(/[{}-]/g, "").toUpperCase();
  const rev = (s: string) => [...s].reverse().join("");
  // non-null: a product code GUID has 32 hex digits, so its last 16 make pairs
  const bytes = h.slice(16).match(/../g)!.map(rev).join("");
  return rev(h.slice(0, 8)) + rev(h.slice(8, 12)) + rev(h.slice(12, 16)) + bytes;
}

/**
 * Where the MSI of an installed product was installed from, by Windows Installer's per-user
 * source list (`HKCU\Software\Microsoft\Installer\Products\<packed>\SourceList`: its
 * `LastUsedSource` folder and `PackageName`).
 * @param t the tools
 * @param productCode the installed ProductCode
 * @returns the MSI's path (it may have been moved or deleted since), or null
 */
export async function installSource(t: MsiTools, productCode: string): Promise<string | null> {
  const key = `HKCU\\Software\\Microsoft\\Installer\\Products\\${
    packedGuid(productCode)
  }\\SourceList`;
  const name = await regValue(t, key, "PackageName");
  const last = await regValue(t, key, "LastUsedSource");
  // LastUsedSource is "<type>;<index>;<folder>" (type n: a folder on disk or the network).
  const folder = last?.split(";").slice(2).join(";") ?? "";
  if (!name || !folder) return null;
  return `${folder.replace(/\\$/, "")}\\${name}`;
}

/**
 * Run `msiexec` hidden (`/qn`) with a verbose log. Its exit code is only logged: callers read
 * back what it did ({@link appsEntry}, the program folder's VERSION).
 * @param t the tools
 * @param args e.g. `["/i", "C:\\…\\svc-filing-0.1.1-win-x64.msi"]`
 * @param log the verbose log's path
 * @returns msiexec's exit code (0, 3010 "restart needed", 1603 …)
 */
export async function msiexec(t: MsiTools, args: readonly string[], log: string): Promise<number> {
  const r = await t.run({ cmd: t.msiexec, args: [...args, "/qn", "/l*v", log] }).catch((e) => ({
    code: -1,
    stdout: "",
    stderr: String(e),
  }));
  return r.code;
}
