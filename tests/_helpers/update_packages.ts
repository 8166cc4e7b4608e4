/**
 * Test helpers for signed updates (docs/install.md § Updates): real linux-x64 packages built by the
 * project's build (`deno bundle`, then scripts/package.ts) from variants of one bundle — the
 * current version and a newer one (whose agent exits at start when SVC_TEST_FAIL_START=1) — each
 * with a test key pair's public key in place of the built-in list; a local update server for the
 * archives (whole, or cut off half way); signed manifests; a packaged agent started from its
 * launcher. Linux only (tar, sh).
 */
import inc from "semver/functions/inc.js";
import { join } from "node:path";
import { runBuild } from "../../scripts/build.ts";
import { buildPackages, type PackageInfo } from "../../scripts/package.ts";
import { PACKAGE_TARGETS } from "../../scripts/package/targets.ts";
import { makeUpdateKeyPair, type UpdateKeyPair } from "../../scripts/update_keys.ts";
import { signManifest, updatePayload } from "../../scripts/sign_manifest.ts";
import { processAlive } from "../../src/agent/start/mod.ts";
import { probeHealth, readAgentLock } from "../../src/agent/update/mod.ts";
import { VERSION } from "../../src/version.ts";

/** A built package. */
export interface BuiltPackage extends PackageInfo {
  /** The archive's path. */
  readonly path: string;
  /** The version its bundle says. */
  readonly version: string;
}

/** The packages of one test file. */
export interface UpdateFixture {
  readonly dir: string;
  /** The pair whose public key the packages trust. */
  readonly keys: UpdateKeyPair;
  readonly old: BuiltPackage;
  /** A newer version; its agent exits with code 3 at start when SVC_TEST_FAIL_START=1. */
  readonly newer: BuiltPackage;
}

/** The newer bundle's test hook: with SVC_TEST_FAIL_START=1 its agent exits at start (its other
 * commands, the swap among them, work), as a release that cannot start on this machine would. */
const FAIL_START_PRELUDE = `if (
  Deno.args[0] === "agent" && Deno.args[1] !== "update-swap" &&
  Deno.env.get("SVC_TEST_FAIL_START") === "1"
) {
  console.error("SVC_TEST_FAIL_START: this agent exits at start");
  Deno.exit(3);
}
`;

/**
 * A variant of the bundle: another version and the test key as the only trusted one.
 * @param bundle the bundle's text
 * @param version the version it says
 * @param keys the pair it trusts
 * @param prelude code run before anything else
 * @returns the text
 */
export function bundleVariant(
  bundle: string,
  version: string,
  keys: UpdateKeyPair,
  prelude = "",
): string {
  const versioned = bundle.replace(`VERSION = "${VERSION}";`, `VERSION = "${version}";`);
  const keyed = versioned.replace(
    /UPDATE_PUBLIC_KEYS = \[[^\]]*\];/,
    `UPDATE_PUBLIC_KEYS = [${JSON.stringify(keys.publicKey)}];`,
  );
  if (versioned === bundle && version !== VERSION) throw new Error("no VERSION in the bundle");
  if (keyed === versioned) throw new Error("no UPDATE_PUBLIC_KEYS in the bundle");
  return prelude + keyed;
}

/**
 * Build the two packages in a temporary folder.
 * @returns the fixture (remove `dir` when done)
 */
export async function buildUpdateFixture(): Promise<UpdateFixture> {
  const dir = await Deno.makeTempDir({ prefix: "svc-update-test-" });
  const build = await runBuild({ outDir: dir, bundleOnly: true, log: () => {} });
  if (build.exitCode !== 0) throw new Error(`bundle failed: ${build.failed.join("; ")}`);
  return await buildUpdatePair(dir, await Deno.readTextFile(build.bundle), "linux-x64");
}

/**
 * The two packages of an update test for one target, from one bundle: the running version
 * (`old`) and the next patch version (`newer`, which fails its start check when run).
 * @param dir a temporary folder (each package in its own sub-folder)
 * @param bundle the bundle's text (`deno task build --bundle-only`)
 * @param target a package target's name (scripts/package/targets.ts), e.g. "win-x64"
 * @returns the fixture, with a fresh update key pair
 */
export async function buildUpdatePair(
  dir: string,
  bundle: string,
  target: string,
): Promise<UpdateFixture> {
  const keys = await makeUpdateKeyPair();
  const targets = PACKAGE_TARGETS.filter((t) => t.name === target);
  const make = async (name: string, version: string, prelude = ""): Promise<BuiltPackage> => {
    const out = join(dir, name);
    await Deno.mkdir(out);
    const file = join(out, "svc-filing.bundle.js");
    await Deno.writeTextFile(file, bundleVariant(bundle, version, keys, prelude));
    const [info] = await buildPackages({
      bundle: file,
      outDir: out,
      targets,
      log: () => {},
      version,
    });
    return { ...info!, path: join(out, info!.file), version };
  };
  const [o, n] = await Promise.all([
    make("old", VERSION),
    make("newer", inc(VERSION, "patch")!, FAIL_START_PRELUDE),
  ]);
  return { dir, keys, old: o, newer: n };
}

/** Options of {@link writeManifest}. */
export interface ManifestOptions {
  readonly version?: string;
  /** Another sha256 than the archive's. */
  readonly sha256?: string;
  /** Sign with another key under the trusted key's kid (a bad signature). */
  readonly forgedWith?: UpdateKeyPair;
}

/**
 * Sign a manifest for one archive and write it where the token service reads it.
 * @param path SVC_UPDATE_MANIFEST
 * @param fx the fixture (its key signs)
 * @param pkg the archive
 * @param baseUrl where the update server serves it (`…/full/<name>/` or `…/cut/<name>/`)
 * @param o version, wrong hash, forged signature
 * @returns when written
 */
export async function writeManifest(
  path: string,
  fx: UpdateFixture,
  pkg: BuiltPackage,
  baseUrl: string,
  o: ManifestOptions = {},
): Promise<void> {
  const payload = updatePayload(
    {
      name: "svc-filing",
      version: o.version ?? pkg.version,
      packages: [{ ...pkg, sha256: o.sha256 ?? pkg.sha256 }],
    },
    baseUrl,
    new Date(),
  );
  const signer = o.forgedWith ?? fx.keys;
  const kid = fx.keys.publicKey.kid;
  const jws = await signManifest(payload, { ...signer.privateJwk, kid }, [
    { ...signer.publicKey, kid },
  ]);
  await Deno.writeTextFile(path, jws + "\n");
}

/**
 * A local update server, plain HTTP/1.1 over TCP so that it can misbehave: `/full/<name>/<file>`
 * serves the archive called `name` (a `<file>` ending in `.msi`: the one called `<name>.msi`, when
 * given); `/cut/<name>/…` announces all of its bytes, sends half and
 * closes the connection (a truncated download).
 * @param files archive paths by name (old, newer)
 * @returns its base URL and a stop function
 */
export function startUpdateServer(files: Record<string, string>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const enc = new TextEncoder();
  const write = async (conn: Deno.Conn, bytes: Uint8Array) => {
    for (let n = 0; n < bytes.length;) n += await conn.write(bytes.subarray(n));
  };
  const answer = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(8192);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) return;
      head += new TextDecoder().decode(buf.subarray(0, n));
    }
    const [, mode, name, file] = (head.split(" ")[1] ?? "").split("/");
    // A `.msi` is served from the entry `<name>.msi` when there is one (the win-x64 installer).
    const path = (file?.endsWith(".msi") ? files[`${name}.msi`] : undefined) ?? files[name ?? ""];
    if (!path) {
      return await write(
        conn,
        enc.encode("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
      );
    }
    const bytes = await Deno.readFile(path);
    await write(
      conn,
      enc.encode(`HTTP/1.1 200 OK\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`),
    );
    await write(conn, mode === "full" ? bytes : bytes.subarray(0, bytes.length >> 1));
  };
  const serving = (async () => {
    for await (const conn of listener) {
      answer(conn).catch(() => {}).finally(() => {
        try {
          conn.close();
        } catch { /* closed */ }
      });
    }
  })().catch(() => {});
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      listener.close();
      await serving;
    },
  };
}

/**
 * Unpack an archive into a folder.
 * @param archive the .tar.gz
 * @param into the folder (created)
 * @returns the package's root
 */
export async function installPackage(archive: string, into: string): Promise<string> {
  await Deno.mkdir(into, { recursive: true });
  const r = await new Deno.Command("tar", { args: ["-xzf", archive, "-C", into] }).output();
  if (!r.success) throw new Error(`tar: ${new TextDecoder().decode(r.stderr)}`);
  return join(into, "svc-filing");
}

/**
 * Wait until the agent of a data folder answers /health with status ok.
 * @param dataDir its data folder
 * @param version the version expected (any when absent)
 * @param timeoutMs how long at most
 * @returns its pid, port and version
 */
export async function waitAgent(dataDir: string, version?: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const lock = await readAgentLock("linux", dataDir);
    if (lock && lock.port > 0 && (!version || lock.version === version)) {
      const h = await probeHealth(lock.port, fetch);
      if (h?.status === "ok") return { ...lock, version: h.version };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no agent ${version ?? ""} answers for ${dataDir}`);
}

/**
 * Start a package's agent from its launcher (output appended to `log`).
 * @param launcher the package's `svc-filing`
 * @param env the environment (SVC_DATA_DIR, SVC_TOKEN_SERVICE_URL, …)
 * @param log the output's file
 * @returns the child
 */
export function spawnLauncher(
  launcher: string,
  args: string[],
  env: Record<string, string>,
  log: string,
): Deno.ChildProcess {
  return new Deno.Command("/bin/sh", {
    args: ["-c", 'log=$1; shift; exec "$@" >>"$log" 2>&1', "sh", log, launcher, ...args],
    env,
    clearEnv: true,
    stdin: "null",
  }).spawn();
}

/**
 * Stop the agent of a data folder (by its lock's pid).
 * @param dataDir its data folder
 * @returns when it is gone
 */
export async function stopAgentOf(dataDir: string): Promise<void> {
  const lock = await readAgentLock("linux", dataDir);
  if (!lock) return;
  try {
    Deno.kill(lock.pid, "SIGTERM");
  } catch { /* gone */ }
  for (let i = 0; i < 100 && await processAlive(lock.pid); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
}
