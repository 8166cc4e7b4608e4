/**
 * Downloading and unpacking an update, over real HTTP on loopback and real files: downloadPackage()
 * keeps only bytes that match the signed size and SHA-256 (a shorter, longer, stalled or failed
 * download leaves nothing behind), follows redirects only to https (or loopback http);
 * extractPackage() unpacks the project's own zip and tar.gz archives, gives a zip's executables
 * their mode, and refuses unsafe names or a package without its launcher; one update at a time.
 */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  acquireUpdateLock,
  downloadPackage,
  extractPackage,
  type UpdatePackage,
} from "../../src/agent/update/mod.ts";
import { tarGzArchive, zipArchive } from "../../scripts/package/archive.ts";

const BYTES = new Uint8Array(300_000).map((_, i) => (i * 7) & 255);
const SHA = createHash("sha256").update(BYTES).digest("hex");

/** A loopback server; `routes` answer by path. */
function serve(routes: Record<string, (req: Request) => Response | Promise<Response>>) {
  const s = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const r = routes[new URL(req.url).pathname];
    return r ? r(req) : new Response("no", { status: 404 });
  });
  return { url: `http://127.0.0.1:${s.addr.port}`, stop: () => s.shutdown() };
}

const pkgAt = (url: string, o: Partial<UpdatePackage> = {}): UpdatePackage => ({
  target: "linux-x64",
  triple: "x86_64-unknown-linux-gnu",
  url,
  size: BYTES.length,
  sha256: SHA,
  ...o,
});

async function inTemp(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-update-unit-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const listing = async (dir: string) => {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
};

Deno.test("downloadPackage() keeps the verified bytes and refuses any other download", async () => {
  const stall = new ReadableStream({ start: (c) => c.enqueue(BYTES.subarray(0, 1000)) });
  const s = serve({
    "/ok.tar.gz": () => new Response(BYTES),
    "/short.tar.gz": () => new Response(BYTES.subarray(0, 1000)),
    "/long.tar.gz": () => new Response(new Uint8Array(BYTES.length + 1)),
    "/chunked-long.tar.gz": () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(BYTES);
            c.enqueue(new Uint8Array(10));
            c.close();
          },
        }),
      ),
    "/stall.tar.gz": () => new Response(stall),
    "/moved.tar.gz": () => Response.redirect("http://127.0.0.1:1/x", 302),
    "/moved-ok.tar.gz": (req) => Response.redirect(new URL("/ok.tar.gz", req.url), 302),
    "/moved-away.tar.gz": () => Response.redirect("http://example.com/a.tar.gz", 302),
  });
  try {
    await inTemp(async (dir) => {
      const dest = join(dir, "a.tar.gz");
      await downloadPackage(pkgAt(`${s.url}/ok.tar.gz`), dest);
      assert.deepEqual(await Deno.readFile(dest), BYTES);
      await Deno.remove(dest);
      await downloadPackage(pkgAt(`${s.url}/moved-ok.tar.gz`), dest);
      await Deno.remove(dest);
      const cases: [string, Partial<UpdatePackage>, string][] = [
        ["/short.tar.gz", {}, "UPDATE_SIZE_MISMATCH"],
        ["/long.tar.gz", {}, "UPDATE_SIZE_MISMATCH"],
        ["/chunked-long.tar.gz", {}, "UPDATE_SIZE_MISMATCH"],
        ["/ok.tar.gz", { sha256: "0".repeat(64) }, "UPDATE_HASH_MISMATCH"],
        ["/missing.tar.gz", {}, "UPDATE_DOWNLOAD_FAILED"],
        ["/stall.tar.gz", {}, "UPDATE_DOWNLOAD_FAILED"],
        ["/moved.tar.gz", {}, "UPDATE_DOWNLOAD_FAILED"],
        ["/moved-away.tar.gz", {}, "UPDATE_MANIFEST_INVALID"],
      ];
      for (const [path, o, code] of cases) {
        await assert.rejects(
          downloadPackage(pkgAt(`${s.url}${path}`, o), dest, { idleTimeoutMs: 300 }),
          { code },
          path,
        );
        assert.deepEqual(await listing(dir), [], `${path} left a file`);
      }
    });
  } finally {
    await stall.cancel().catch(() => {});
    await s.stop();
  }
});

const enc = (s: string) => new TextEncoder().encode(s);
const layout = (launcher = true) => [
  ...(launcher
    ? [{ path: "svc-filing/svc-filing", bytes: enc("#!/bin/sh\n"), executable: true }]
    : []),
  { path: "svc-filing/runtime/deno", bytes: enc("ELF"), executable: true },
  { path: "svc-filing/app/svc-filing.js", bytes: enc("console.log(1)") },
  {
    path: "svc-filing/SVC Filing Agent.app/Contents/MacOS/svc-filing-agent",
    bytes: enc("x"),
    executable: true,
  },
];
const mtime = new Date(Date.UTC(1980, 0, 2));

Deno.test("extractPackage() unpacks the build's zip with the executables' modes", async () => {
  await inTemp(async (dir) => {
    const zip = join(dir, "p.zip");
    await Deno.writeFile(zip, zipArchive(layout(), mtime));
    const root = await extractPackage(zip, join(dir, "out"), { os: "linux" });
    assert.equal(root, join(dir, "out", "svc-filing"));
    const mode = async (p: string) => (await Deno.stat(join(root, p))).mode! & 0o777;
    assert.equal(await mode("svc-filing"), 0o755);
    assert.equal(await mode("runtime/deno"), 0o755);
    assert.equal(await mode("SVC Filing Agent.app/Contents/MacOS/svc-filing-agent"), 0o755);
    assert.equal(await mode("app/svc-filing.js") & 0o111, 0);
  });
});

Deno.test("extractPackage() refuses a package without its launcher, unsafe names, or garbage", async () => {
  await inTemp(async (dir) => {
    const tgz = join(dir, "p.tar.gz");
    await tarGzArchive(layout(false), mtime, tgz);
    await assert.rejects(extractPackage(tgz, join(dir, "a"), { os: "linux" }), {
      code: "UPDATE_PACKAGE_INVALID",
      message: /has no svc-filing$/,
    });
    const zip = join(dir, "evil.zip");
    await Deno.writeFile(
      zip,
      zipArchive([...layout(), { path: "svc-filing/../../evil", bytes: enc("x") }], mtime),
    );
    await assert.rejects(extractPackage(zip, join(dir, "b"), { os: "linux" }), /unsafe name/);
    assert.equal(await Deno.stat(join(dir, "evil")).then(() => true, () => false), false);
    const junk = join(dir, "junk.tar.gz");
    await Deno.writeTextFile(junk, "not gzip");
    await assert.rejects(extractPackage(junk, join(dir, "c"), { os: "linux" }), {
      code: "UPDATE_PACKAGE_INVALID",
    });
    await tarGzArchive(layout(), mtime, tgz);
    const root = await extractPackage(tgz, join(dir, "d"), { os: "linux" });
    assert.equal((await Deno.stat(join(root, "svc-filing"))).mode! & 0o777, 0o755);
  });
});

Deno.test("acquireUpdateLock() lets one update run at a time and takes over a dead one's lock", async () => {
  await inTemp(async (dir) => {
    const alive = new Set([1111]);
    const deps = (pid: number) => ({
      pid,
      isAlive: (p: number) => Promise.resolve(alive.has(p)),
      now: Date.now,
    });
    const first = await acquireUpdateLock("linux", dir, deps(1111));
    await assert.rejects(acquireUpdateLock("linux", dir, deps(2222)), {
      code: "UPDATE_IN_PROGRESS",
    });
    await first.handOver(3333); // the swap, not running: its lock is stale
    const second = await acquireUpdateLock("linux", dir, deps(2222));
    await first.release(); // no longer the holder: kept
    assert.ok(await Deno.stat(join(dir, "update.lock")));
    await second.release();
    assert.deepEqual(await listing(dir), []);
  });
});
