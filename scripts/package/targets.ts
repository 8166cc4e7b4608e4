/**
 * The portable packages: one per target, each the official Deno runtime for that target (from
 * the npm registry, version pinned to the one building), the app as one bundle with its assets,
 * and launchers. Shapes only; scripts/package.ts builds them.
 * @module
 */

/** One release target of the portable package. */
export interface PackageTarget {
  /** Short name used in archive names: win-x64, macos-arm64, macos-x64, linux-x64. */
  readonly name: string;
  /** Rust target triple (as `deno compile --target` names it). */
  readonly triple: string;
  /** The npm package holding the full Deno runtime for the target. */
  readonly npm: string;
  /** The runtime's file name inside that package and inside ours (`runtime/…`). */
  readonly binary: string;
  /** Archive format: zip for Windows and macOS, tar.gz for Linux. */
  readonly archive: "zip" | "tar.gz";
  /** Launchers written into the package root. */
  readonly launchers: readonly ("sh" | "command" | "cmd")[];
}

/** The four targets of the design card. */
export const PACKAGE_TARGETS: readonly PackageTarget[] = [
  {
    name: "win-x64",
    triple: "x86_64-pc-windows-msvc",
    npm: "@deno/win32-x64",
    binary: "deno.exe",
    archive: "zip",
    launchers: ["cmd"],
  },
  {
    name: "macos-arm64",
    triple: "aarch64-apple-darwin",
    npm: "@deno/darwin-arm64",
    binary: "deno",
    archive: "zip",
    launchers: ["command", "sh"],
  },
  {
    name: "macos-x64",
    triple: "x86_64-apple-darwin",
    npm: "@deno/darwin-x64",
    binary: "deno",
    archive: "zip",
    launchers: ["command", "sh"],
  },
  {
    name: "linux-x64",
    triple: "x86_64-unknown-linux-gnu",
    npm: "@deno/linux-x64-glibc",
    binary: "deno",
    archive: "tar.gz",
    launchers: ["sh"],
  },
];

/** Largest archive allowed (docs/install.md: each under 60 MB), bytes. */
export const MAX_ARCHIVE_BYTES = 60 * 1024 * 1024;

/**
 * The archive's file name.
 * @param version the app version
 * @param t the target
 * @returns e.g. `svc-filing-0.1.0-linux-x64.tar.gz`
 */
export function archiveName(version: string, t: PackageTarget): string {
  return `svc-filing-${version}-${t.name}.${t.archive}`;
}
