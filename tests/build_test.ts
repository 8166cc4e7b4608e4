/**
 * The build (scripts/build.ts): the bundle check runs on every run (offline too); the real
 * compile test probes the denort runtime and is ignored, with a printed SKIP line, when it is
 * unreachable; a DENORT_BIN stand-in (the deno CLI under another name) proves offline that
 * `deno compile` accepts the build's --include/--exclude arguments and that the --version
 * check catches a binary that is not ours.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  binaryName,
  bundleProblems,
  compileArgs,
  PERMISSIONS,
  probeDenort,
  type ProbeDeps,
  runBuild,
  runtimeReads,
  sha256sums,
  TARGETS,
  unusedNpmPackages,
} from "../scripts/build.ts";
import { VERSION } from "../src/version.ts";
import { nth } from "./_helpers/nth.ts";

const HOST = Deno.build.target;
const offline: Partial<ProbeDeps> = {
  env: {},
  denoDir: null,
  fetch: () => Promise.reject(new TypeError("fetch failed")),
};

Deno.test("binaryName() / compileArgs(): names per target, permissions, includes, excludes", () => {
  deepStrictEqual(TARGETS.map(binaryName), [
    "svc-filing-x86_64-pc-windows-msvc.exe",
    "svc-filing-x86_64-apple-darwin",
    "svc-filing-aarch64-apple-darwin",
    "svc-filing-x86_64-unknown-linux-gnu",
  ]);
  deepStrictEqual(compileArgs("aarch64-apple-darwin", "/d/x", ["a.css"], ["node_modules/p"]), [
    "compile",
    "--target",
    "aarch64-apple-darwin",
    "--output",
    "/d/x",
    ...PERMISSIONS,
    "--include",
    "a.css",
    "--exclude",
    "node_modules/p",
    "main.ts",
  ]);
});

Deno.test("probeDenort(): DENORT_BIN, cached zip, HEAD; reasons name every source; never hangs", async () => {
  const base: ProbeDeps = {
    env: {},
    denoVersion: "2.9.6",
    denoDir: "/cache/deno",
    hostTarget: "x86_64-unknown-linux-gnu",
    denoExec: "/usr/bin/deno",
    fetch: () => Promise.resolve(new Response(null, { status: 404 })),
    exists: (p) =>
      Promise.resolve(
        p.startsWith("/opt/denort") || p === "/usr/bin/deno" ||
          p.endsWith("aarch64-apple-darwin.zip"),
      ),
    timeoutMs: 200,
  };
  const linux = "x86_64-unknown-linux-gnu";
  deepStrictEqual(await probeDenort(linux, { ...base, env: { DENORT_BIN: "/opt/denort" } }), {
    ok: true,
    via: "DENORT_BIN=/opt/denort",
  });
  const cli = await probeDenort(linux, { ...base, env: { DENORT_BIN: "/usr/bin/deno" } });
  ok(!cli.ok && cli.reason.includes("is the deno CLI, not denort"));
  const other = await probeDenort("x86_64-apple-darwin", {
    ...base,
    env: { DENORT_BIN: "/opt/denort" },
  });
  ok(!other.ok && other.reason.includes("DENORT_BIN serves x86_64-unknown-linux-gnu only"));
  deepStrictEqual(await probeDenort("aarch64-apple-darwin", base), {
    ok: true,
    via: join("/cache/deno", "dl", "release", "v2.9.6", "denort-aarch64-apple-darwin.zip"),
  });
  const notFound = await probeDenort(linux, base);
  ok(!notFound.ok);
  match(notFound.reason, /^denort-x86_64-unknown-linux-gnu\.zip for deno 2\.9\.6: not cached at /);
  ok(
    notFound.reason.includes(
      "HEAD https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip → HTTP 404",
    ),
  );
  deepStrictEqual(
    await probeDenort(linux, { ...base, fetch: () => Promise.resolve(new Response(null)) }),
    { ok: true, via: "https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip" },
  );
  const hanging: typeof fetch = (_u, init) =>
    new Promise((_, reject) =>
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
    );
  const t0 = performance.now();
  const slow = await probeDenort(linux, { ...base, fetch: hanging });
  ok(performance.now() - t0 < 2000, "the timeout bounds the probe");
  ok(!slow.ok && slow.reason.includes("not reachable (TimeoutError"), JSON.stringify(slow));
});

Deno.test("bundleProblems() accepts node: built-ins only", () => {
  const ok1 = 'import { join } from "node:path";\nvar r = __require("node:buffer");\n';
  deepStrictEqual(bundleProblems(ok1), []);
  deepStrictEqual(
    bundleProblems(
      'import x from "npm:zod@4";\nexport { y } from "https://deno.land/x/y.ts";\n' +
        'const m = await import("jsr:@std/path");\nconst t = `from "${ref}"`;\n',
    ),
    ["npm:zod@4", "https://deno.land/x/y.ts", "jsr:@std/path"],
  );
});

Deno.test("runtimeReads() lists the Swagger UI assets docs_page.ts serves and the passkey bundle's package; unusedNpmPackages() follows the graph", async () => {
  const hasDocs = await Deno.stat(new URL("../src/agent/http/docs_page.ts", import.meta.url)).then(
    () => true,
    () => false,
  );
  const reads = await runtimeReads();
  if (hasDocs) {
    // The token service's pages import @simplewebauthn/browser's bundle as text
    // (src/token/web/assets/mod.ts): its package is kept in the binaries.
    deepStrictEqual(reads.packages, ["@simplewebauthn/browser", "swagger-ui-dist"]);
    deepStrictEqual(reads.includes.map((p) => p.split(/[\\/]/).pop()).sort(), [
      "favicon-16x16.png",
      "favicon-32x32.png",
      "swagger-ui-bundle.js",
      "swagger-ui.css",
    ]);
    ok(reads.excludes.some((p) => p.endsWith("swagger-ui-bundle.js.map")));
    ok(!reads.excludes.some((p) => /package\.json$|LICENSE$|swagger-ui\.css$/.test(p)));
  }
  const info = {
    modules: [{ npmPackage: "hono@4.13.19" }, {}, { npmPackage: "@hono/zod-openapi@1.6.3_x" }],
    npmPackages: {
      "hono@4.13.19": { localPath: "/r/node_modules/.deno/hono@4.13.19/node_modules/hono" },
      "@hono/zod-openapi@1.6.3_x": {
        dependencies: ["zod@4.6.7"],
        localPath: "/r/node_modules/.deno/@hono+zod-openapi@1.6.3/node_modules/@hono/zod-openapi",
      },
      "zod@4.6.7": { localPath: "/r/node_modules/.deno/zod@4.6.7/node_modules/zod" },
    },
  };
  deepStrictEqual(
    unusedNpmPackages(info, [
      ".deno.lock",
      "node_modules",
      "hono@4.13.19",
      "@hono+zod-openapi@1.6.3",
      "zod@4.6.7",
      "@redocly+config@0.22.0",
      "playwright-core@1.65.1",
      "swagger-ui-dist@5.35.0",
    ], ["swagger-ui-dist"]),
    [
      "node_modules/.deno/@redocly+config@0.22.0/node_modules/@redocly/config",
      "node_modules/.deno/playwright-core@1.65.1/node_modules/playwright-core",
    ],
  );
});

Deno.test("[build] deno bundle: self-contained graph, bundle --version prints VERSION, SHA256SUMS; offline SKIP policy", async () => {
  const out = await Deno.makeTempDir({ prefix: "svc-build-" });
  try {
    const lines: string[] = [];
    const r = await runBuild({
      outDir: out,
      probe: offline,
      allowSkip: true,
      log: (l) => lines.push(l),
    });
    deepStrictEqual(r.failed, []);
    equal(r.exitCode, 0, lines.join("\n"));
    ok(lines.includes(`svc-filing ${VERSION} (src/version.ts)`));
    ok(lines.some((l) => l.startsWith("ok   bundle ") && l.includes(`--version ${VERSION}`)));
    const skips = lines.filter((l) => l.startsWith("SKIP deno compile: "));
    equal(skips.length, 4, lines.join("\n"));
    for (const t of TARGETS) ok(skips.some((l) => l.includes(`denort-${t}.zip for deno `)));
    const bundle = await Deno.readFile(join(out, "svc-filing.bundle.js"));
    const hex = createHash("sha256").update(bundle).digest("hex");
    equal(await Deno.readTextFile(join(out, "SHA256SUMS")), `${hex}  svc-filing.bundle.js\n`);
    equal(await sha256sums([join(out, "svc-filing.bundle.js")]), `${hex}  svc-filing.bundle.js\n`);
    // Without --allow-skip an offline build fails (release builds must not lack binaries).
    const errors: string[] = [];
    const strict = await runBuild({
      outDir: out,
      targets: [HOST],
      probe: offline,
      log: () => {},
      error: (l) => errors.push(l),
    });
    equal(strict.exitCode, 1);
    match(errors.join("\n"), /deno compile skipped for 1 target\(s\).*--allow-skip/);
    deepStrictEqual(strict.skipped.map((s) => s.target), [HOST]);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("[build] scripts/build.ts rejects an unknown --target", async () => {
  const o = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../scripts/build.ts", import.meta.url).pathname,
      "--target",
      "sparc",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(o.code, 2);
  match(
    new TextDecoder().decode(o.stderr),
    /Unknown --target sparc; one of x86_64-pc-windows-msvc/,
  );
});

// The real compile: probe first; register ignored with the reason when denort is unreachable.
const probe = await probeDenort(HOST, {
  env: Deno.env.toObject(),
  denoVersion: Deno.version.deno,
  denoDir: JSON.parse(
    new TextDecoder().decode(
      (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
        .output())
        .stdout,
    ),
  ).denoDir ?? null,
  hostTarget: HOST,
  denoExec: Deno.execPath(),
  fetch,
  exists: (p) => Deno.stat(p).then(() => true, () => false),
  timeoutMs: 3000,
});
if (!probe.ok) console.error(`SKIP deno compile: ${probe.reason}`);

Deno.test({
  name: `[build] deno compile --target ${HOST}: the binary runs and prints VERSION`,
  ignore: !probe.ok,
  async fn() {
    const out = await Deno.makeTempDir({ prefix: "svc-compile-" });
    try {
      const lines: string[] = [];
      const r = await runBuild({ outDir: out, targets: [HOST], log: (l) => lines.push(l) });
      deepStrictEqual(r.failed, []);
      equal(r.exitCode, 0);
      ok(lines.includes(`ok   ${binaryName(HOST)} (--version ${VERSION})`), lines.join("\n"));
      ok((await Deno.readTextFile(join(out, "SHA256SUMS"))).includes(`  ${binaryName(HOST)}\n`));
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "[build] deno compile accepts the build's arguments (DENORT_BIN stand-in); --version check catches a foreign runtime",
  ignore: Deno.build.os === "windows",
  async fn() {
    const out = await Deno.makeTempDir({ prefix: "svc-standin-" });
    try {
      const standin = join(out, "denort");
      await Deno.symlink(Deno.execPath(), standin);
      const lines: string[] = [];
      const r = await runBuild({
        outDir: join(out, "dist"),
        targets: [HOST],
        env: { DENORT_BIN: standin },
        probe: { env: { DENORT_BIN: standin } },
        log: (l) => lines.push(l),
        error: (l) => lines.push(l),
      });
      deepStrictEqual(r.built, [join(out, "dist", binaryName(HOST))], lines.join("\n"));
      ok(lines.some((l) => l.startsWith(`FAIL ${binaryName(HOST)} --version printed "deno `)));
      equal(r.failed.length, 1, r.failed.join("\n"));
      match(
        nth(r.failed),
        new RegExp(`--version printed "deno ${Deno.version.deno}.*", want ${VERSION}`),
      );
      equal(r.exitCode, 1);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});
