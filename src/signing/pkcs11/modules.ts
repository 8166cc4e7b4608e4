/**
 * Where the PKCS#11 modules of Bulgarian QES middleware usually live, per OS, and a discovery
 * function that keeps the ones present on this machine.
 *
 * PROVENANCE: only the entries marked `verified: true` were seen on a machine by this project
 * (Debian 12/13 x86_64: SoftHSM2 and OpenSC from apt). Every other path comes from public
 * knowledge (vendors' install guides, forum posts, other open-source signers' module lists) and
 * is UNVERIFIED: vendors move files between middleware versions, and 32-bit installs on Windows
 * put DLLs in SysWOW64 (useless to a 64-bit agent; such a DLL is reported as
 * PKCS11_MODULE_WRONG_ARCH).
 * @module
 */

/** An OS as `Deno.build.os` names it (only the three the agent ships for). */
export type ModuleOs = "windows" | "darwin" | "linux";

/** One candidate module path. */
export interface ModuleCandidate {
  /** Provider or product family, e.g. "B-Trust (BORICA)". */
  readonly provider: string;
  /** Middleware that installs the module. */
  readonly middleware: string;
  readonly os: ModuleOs;
  readonly path: string;
  /** true only when seen on a real machine by this project. */
  readonly verified: boolean;
}

type Row = [provider: string, middleware: string, os: ModuleOs, path: string, verified?: boolean];

const W = "C:\\Windows\\System32\\";

/**
 * One middleware's modules, one path per OS it is known on, as rows in the order windows, linux,
 * darwin (all unverified: public knowledge).
 */
const perOs = (
  provider: string,
  middleware: string,
  paths: Readonly<Partial<Record<ModuleOs, string>>>,
): Row[] =>
  (["windows", "linux", "darwin"] as const).flatMap((os) => {
    const path = paths[os];
    return path === undefined ? [] : [[provider, middleware, os, path] satisfies Row];
  });

/** The candidate list, most specific providers first; generic middleware last. */
const ROWS: readonly Row[] = [
  // --- B-Trust (BORICA): cards have shipped with Gemalto/Thales IDPrime and Atos CardOS middleware.
  // Unverified (public knowledge).
  ...perOs("B-Trust (BORICA)", "Thales/Gemalto IDPrime (SafeNet Minidriver)", {
    windows: `${W}IDPrimePKCS11.dll`,
  }),
  ...perOs("B-Trust (BORICA)", "Thales/Gemalto IDPrime", {
    linux: "/usr/lib/libIDPrimePKCS11.so",
    darwin: "/usr/local/lib/libIDPrimePKCS11.dylib",
  }),
  ...perOs("B-Trust (BORICA)", "Atos CardOS API", {
    windows: `${W}siecap11.dll`,
    linux: "/usr/lib/libsiecap11.so",
    darwin: "/Library/Frameworks/CardOS API.framework/libsiecap11.dylib",
  }),
  // --- StampIT (Information Services): IDProtect (Athena/ASE) and Charismathics middleware.
  // Unverified (public knowledge).
  ...perOs("StampIT (Information Services)", "IDProtect Client (Athena ASE)", {
    windows: `${W}asepkcs.dll`,
    linux: "/usr/lib/libASEP11.so",
    darwin: "/usr/local/lib/libASEP11.dylib",
  }),
  ...perOs("StampIT (Information Services)", "Charismathics Smart Security Interface", {
    windows: `${W}cmP11.dll`,
    linux: "/usr/lib/libcmP11.so",
    darwin: "/usr/local/lib/libcmP11.dylib",
  }),
  // --- InfoNotary: tokens are commonly driven by Bit4id or SafeNet middleware. Unverified.
  ...perOs("InfoNotary", "Bit4id Universal Middleware", {
    windows: `${W}bit4xpki.dll`,
    linux: "/usr/lib/bit4id/libbit4xpki.so",
    darwin: "/Library/bit4id/pkcs11/libbit4xpki.dylib",
  }),
  // --- Evrotrust: mostly remote (mobile) signing; tokens use Bit4id/SafeNet middleware. Unverified.
  ...perOs("Evrotrust", "Bit4id Universal Middleware", {
    windows: `${W}bit4ipki.dll`,
    linux: "/usr/lib/libbit4ipki.so",
    darwin: "/usr/local/lib/libbit4ipki.dylib",
  }),
  // --- SEP Bulgaria and others on Gemalto/SafeNet eToken (SafeNet Authentication Client). Unverified.
  ...perOs("SEP Bulgaria / SafeNet eToken", "SafeNet Authentication Client", {
    windows: `${W}eTPKCS11.dll`,
    linux: "/usr/lib/libeTPkcs11.so",
    darwin: "/usr/local/lib/libeTPkcs11.dylib",
  }),
  // --- Generic: OpenSC. The Debian path is verified; the others are public knowledge.
  ["OpenSC", "OpenSC", "linux", "/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so", true],
  ["OpenSC", "OpenSC", "linux", "/usr/lib/aarch64-linux-gnu/opensc-pkcs11.so"],
  ["OpenSC", "OpenSC", "linux", "/usr/lib64/opensc-pkcs11.so"],
  [
    "OpenSC",
    "OpenSC",
    "windows",
    "C:\\Program Files\\OpenSC Project\\OpenSC\\pkcs11\\opensc-pkcs11.dll",
  ],
  ["OpenSC", "OpenSC", "darwin", "/Library/OpenSC/lib/opensc-pkcs11.so"],
  ["OpenSC", "OpenSC (Homebrew)", "darwin", "/opt/homebrew/lib/opensc-pkcs11.so"],
  // --- SoftHSM2 (tests, demos). The Debian path is verified; the others are public knowledge.
  ["SoftHSM2", "SoftHSM2", "linux", "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so", true],
  ["SoftHSM2", "SoftHSM2", "linux", "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so"],
  ["SoftHSM2", "SoftHSM2", "linux", "/usr/lib/softhsm/libsofthsm2.so"],
  ["SoftHSM2", "SoftHSM2 (Homebrew)", "darwin", "/opt/homebrew/lib/softhsm/libsofthsm2.so"],
  ["SoftHSM2", "SoftHSM2 (Homebrew, Intel)", "darwin", "/usr/local/lib/softhsm/libsofthsm2.so"],
  ["SoftHSM2", "SoftHSM2 for Windows", "windows", "C:\\SoftHSM2\\lib\\softhsm2-x64.dll"],
];

/** Every known candidate (all OSes). */
export const PKCS11_MODULE_CANDIDATES: readonly ModuleCandidate[] = ROWS.map((
  [provider, middleware, os, path, verified],
) => ({ provider, middleware, os, path, verified: verified === true }));

/** Injected file-existence check (default: `Deno.stat`). */
export type PathExists = (path: string) => Promise<boolean>;

/**
 * Default {@link PathExists} over `Deno.stat` (false on any error).
 *
 * @param path file path
 * @returns whether a file is there
 * @throws never
 */
export async function fileExists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Candidates for an OS whose file exists, in list order (duplicates by path removed).
 *
 * @param os the OS (default: this one)
 * @param exists injected existence check
 * @returns the modules present on this machine
 * @throws never
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * const found = await discoverPkcs11Modules("linux", async (p) => p.includes("softhsm"));
 * ok(found.length > 0 && found.every((m) => JSON.stringify(m).includes("softhsm")));
 * ```
 */
export async function discoverPkcs11Modules(
  os: ModuleOs = Deno.build.os as ModuleOs,
  exists: PathExists = fileExists,
): Promise<ModuleCandidate[]> {
  const seen = new Set<string>();
  const out: ModuleCandidate[] = [];
  for (const c of PKCS11_MODULE_CANDIDATES) {
    if (c.os !== os || seen.has(c.path)) continue;
    seen.add(c.path);
    if (await exists(c.path)) out.push(c);
  }
  return out;
}
