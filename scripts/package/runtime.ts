/**
 * The official Deno runtime of a target, from the npm registry (`@deno/<platform>`, the version
 * that builds), through npm itself (`npm pack`, the ordinary client and its configured registry)
 * with the tarball's SHA-512 checked against the registry's `dist.integrity`. Cached in
 * `<cacheDir>/<package>-<version>.tgz`; a cached file is checked again before use.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { PackageTarget } from "./targets.ts";

/** How to run a command (injected in tests). */
export type Runner = (
  cmd: string,
  args: readonly string[],
  cwd?: string,
) => Promise<{ code: number; out: string; err: string }>;

/** The real runner. */
export const runCommand: Runner = async (cmd, args, cwd) => {
  const o = await new Deno.Command(cmd, {
    args: [...args],
    ...(cwd === undefined ? {} : { cwd }),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
};

/**
 * The `sha512-<base64>` integrity of bytes (npm's format).
 * @param bytes the tarball
 * @returns the integrity string
 */
export function integrityOf(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/**
 * Fetch (or reuse) a target's runtime tarball and return the runtime binary's bytes.
 * @param t the target
 * @param version the Deno version (e.g. "2.9.6")
 * @param cacheDir where tarballs are kept
 * @param run the command runner (npm, tar)
 * @returns the binary and the tarball's verified integrity
 * @throws Error naming the package when npm fails, the integrity differs, or the binary is absent
 */
export async function fetchRuntime(
  t: PackageTarget,
  version: string,
  cacheDir: string,
  run: Runner = runCommand,
): Promise<{ binary: Uint8Array; integrity: string }> {
  const spec = `${t.npm}@${version}`;
  const view = await run("npm", ["view", spec, "dist.integrity", "--json"]);
  if (view.code !== 0) throw new Error(`npm view ${spec} failed: ${view.err.trim()}`);
  const expected = JSON.parse(view.out.trim());
  if (typeof expected !== "string" || !expected.startsWith("sha512-")) {
    throw new Error(`npm view ${spec}: no sha512 integrity in the registry's metadata`);
  }
  await Deno.mkdir(cacheDir, { recursive: true });
  const tgz = join(cacheDir, `${t.npm.replace("@", "").replace("/", "-")}-${version}.tgz`);
  let bytes = await Deno.readFile(tgz).catch(() => null);
  if (!bytes || integrityOf(bytes) !== expected) {
    const p = await run("npm", ["pack", spec, "--pack-destination", cacheDir, "--silent"]);
    if (p.code !== 0) throw new Error(`npm pack ${spec} failed: ${p.err.trim()}`);
    bytes = await Deno.readFile(tgz);
  }
  const got = integrityOf(bytes);
  if (got !== expected) {
    throw new Error(`${spec}: the tarball's integrity ${got} differs from the registry's`);
  }
  const tmp = await Deno.makeTempDir({ prefix: "svc-runtime-" });
  try {
    const x = await run("tar", ["-xzf", tgz, "-C", tmp, `package/${t.binary}`]);
    if (x.code !== 0) throw new Error(`${spec}: no package/${t.binary} in the tarball`);
    return { binary: await Deno.readFile(join(tmp, "package", t.binary)), integrity: got };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
