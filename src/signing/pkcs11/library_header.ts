/**
 * Identifies a shared library's binary format and CPU architecture from its header (ELF,
 * Mach-O incl. universal binaries, PE/COFF), so that a module built for another CPU is
 * reported as PKCS11_MODULE_WRONG_ARCH even where the loader's own message is misleading
 * (glibc reports an aarch64 `.so` on x86_64 as "No such file or directory") or localised
 * (Windows' "%1 is not a valid Win32 application").
 * @module
 */

/** Binary format of a file. */
export type LibraryFormat = "elf" | "macho" | "pe" | "unknown";

/** What the header says. Architectures use `Deno.build.arch` names where one exists. */
export interface LibraryHeader {
  readonly format: LibraryFormat;
  /** CPU architectures the file contains (several for a macOS universal binary). */
  readonly archs: readonly string[];
  /** Word size for ELF (32/64) when known. */
  readonly bits?: 32 | 64;
}

const ELF_MACHINES: Record<number, string> = {
  3: "x86",
  8: "mips",
  20: "ppc",
  21: "ppc64",
  40: "arm",
  62: "x86_64",
  183: "aarch64",
  243: "riscv",
};
const MACHO_CPUS: Record<number, string> = {
  7: "x86",
  0x01000007: "x86_64",
  12: "arm",
  0x0100000c: "aarch64",
  0x0200000c: "arm64_32",
  18: "ppc",
};
const PE_MACHINES: Record<number, string> = {
  0x14c: "x86",
  0x8664: "x86_64",
  0xaa64: "aarch64",
  0x1c4: "arm",
};

/**
 * Parses the first bytes (4 KiB is plenty) of a library file.
 *
 * @param head the file's first bytes
 * @returns format and architectures; `unknown` with no archs for anything else
 * @throws never
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(parseLibraryHeader(new TextEncoder().encode("hello")).format, "unknown");
 * ```
 */
export function parseLibraryHeader(head: Uint8Array): LibraryHeader {
  const dv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const has = (n: number) => head.length >= n;
  if (has(20) && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) {
    const le = head[5] !== 2;
    const machine = dv.getUint16(18, le);
    return {
      format: "elf",
      archs: [ELF_MACHINES[machine] ?? `elf-machine-${machine}`],
      bits: head[4] === 1 ? 32 : 64,
    };
  }
  if (has(8)) {
    const magicLe = dv.getUint32(0, true);
    if (magicLe === 0xfeedface || magicLe === 0xfeedfacf) {
      const cpu = dv.getUint32(4, true);
      return { format: "macho", archs: [MACHO_CPUS[cpu] ?? `macho-cpu-${cpu}`] };
    }
    const magicBe = dv.getUint32(0, false);
    if (magicBe === 0xcafebabe || magicBe === 0xcafebabf) {
      const n = dv.getUint32(4, false);
      const size = magicBe === 0xcafebabe ? 20 : 32;
      const archs: string[] = [];
      for (let i = 0; i < n && n < 32 && has(8 + (i + 1) * size); i++) {
        const cpu = dv.getUint32(8 + i * size, false);
        archs.push(MACHO_CPUS[cpu] ?? `macho-cpu-${cpu}`);
      }
      return { format: "macho", archs };
    }
  }
  if (has(0x40) && head[0] === 0x4d && head[1] === 0x5a) {
    const peOff = dv.getUint32(0x3c, true);
    if (has(peOff + 6) && dv.getUint32(peOff, true) === 0x00004550) {
      const machine = dv.getUint16(peOff + 4, true);
      return { format: "pe", archs: [PE_MACHINES[machine] ?? `pe-machine-${machine}`] };
    }
  }
  return { format: "unknown", archs: [] };
}

/**
 * The binary format the given OS loads.
 *
 * @param os `Deno.build.os`
 * @returns elf, macho or pe
 * @throws never
 */
export function nativeFormat(os: typeof Deno.build.os): LibraryFormat {
  return os === "windows" ? "pe" : os === "darwin" ? "macho" : "elf";
}

/**
 * Reads the first 4 KiB of a file.
 *
 * @param path file path
 * @returns the bytes read
 * @throws Deno.errors.NotFound / PermissionDenied from the file system
 */
export async function readLibraryHead(path: string): Promise<Uint8Array> {
  const f = await Deno.open(path, { read: true });
  try {
    const buf = new Uint8Array(4096);
    let n = 0;
    while (n < buf.length) {
      const r = await f.read(buf.subarray(n));
      if (r === null) break;
      n += r;
    }
    return buf.subarray(0, n);
  } finally {
    f.close();
  }
}
