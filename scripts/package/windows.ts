/**
 * The Windows steps of the package build (docs/install.md § Windows: the installed program):
 * `svc-filing.exe` (scripts/package/launcher_exe.ts), the MSI (scripts/package/msi.ts), and their
 * Authenticode signatures (scripts/package/codesign.ts). A step whose tool is missing is skipped
 * with one `SKIP` line naming the tool and the Debian package; without signing settings one
 * `unsigned` line says so.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { VERSION } from "../../src/version.ts";
import type { ArchiveEntry } from "./archive.ts";
import { codesignConfig, signFile } from "./codesign.ts";
import { buildLauncherExe, LAUNCHER_EXE, MINGW_TOOLS, missingTools } from "./launcher_exe.ts";
import { buildMsi } from "./msi.ts";
import { PACKAGE_TARGETS } from "./targets.ts";

/** The tools of the MSI (Debian `wixl` and `msitools`). */
export const MSI_TOOLS = ["wixl", "msibuild", "msiinfo"] as const;

/**
 * The MSI's file name.
 * @param version the app version
 * @returns `svc-filing-<version>-win-x64.msi`
 */
export function msiName(version: string): string {
  const t = PACKAGE_TARGETS.find((p) => p.name === "win-x64")!;
  return `svc-filing-${version}-${t.name}.msi`;
}

/** What the Windows steps give the package build. */
export interface WindowsExtras {
  /** `svc-filing.exe` (signed when configured), or undefined when it was skipped. */
  readonly launcherExe?: Uint8Array;
  /**
   * Build (and sign) the MSI from the package's entries into the output folder.
   * @returns its file name, size and SHA-256, or null when skipped
   */
  msi(
    version: string,
    entries: readonly ArchiveEntry[],
  ): Promise<{ file: string; size: number; sha256: string } | null>;
}

/**
 * Build `svc-filing.exe` and prepare the MSI step.
 * @param o the output folder, the environment (signing settings), the log, the app version
 * @returns the launcher's bytes and the MSI step
 * @throws Error when a tool that is present fails, or signing is configured and fails
 */
export async function windowsExtras(o: {
  outDir: string;
  env: Readonly<Record<string, string | undefined>>;
  log: (line: string) => void;
  /** The app version (default src/version.ts): the tray's menu, the version resource. */
  version?: string;
}): Promise<WindowsExtras> {
  const sign = codesignConfig(o.env);
  const missingMingw = missingTools(MINGW_TOOLS);
  if (missingMingw.length) {
    o.log(
      `SKIP ${LAUNCHER_EXE} and the MSI: missing ${missingMingw.join(", ")} ` +
        "(Debian gcc-mingw-w64-x86-64; bash scripts/ci_packages.sh)",
    );
    return { msi: () => Promise.resolve(null) };
  }
  if (!sign) {
    o.log(
      `unsigned: ${LAUNCHER_EXE} and the MSI (set SVC_CODESIGN_PFX and SVC_CODESIGN_PASSWORD to sign)`,
    );
  }
  let exe = await buildLauncherExe(o.version ?? VERSION);
  if (sign) {
    const tmp = join(o.outDir, `.${LAUNCHER_EXE}.tmp`);
    await Deno.writeFile(tmp, exe);
    const signer = await signFile(tmp, sign, "svc-filing");
    exe = await Deno.readFile(tmp);
    await Deno.remove(tmp);
    o.log(`ok   ${LAUNCHER_EXE} signed and verified (${signer})`);
  }
  return {
    launcherExe: exe,
    async msi(version, entries) {
      const missing = missingTools(MSI_TOOLS);
      if (missing.length) {
        o.log(`SKIP the MSI: missing ${missing.join(", ")} (Debian wixl, msitools)`);
        return null;
      }
      const file = msiName(version);
      const out = join(o.outDir, file);
      await buildMsi(version, entries, out);
      if (sign) {
        const signer = await signFile(out, sign, "svc-filing");
        o.log(`ok   ${file} signed and verified (${signer})`);
      }
      const bytes = await Deno.readFile(out);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      o.log(`ok   ${file} (${(bytes.length / 1048576).toFixed(1)} MB, per-user installer)`);
      return { file, size: bytes.length, sha256 };
    },
  };
}
