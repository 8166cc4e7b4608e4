/**
 * Builds the npm package `@svc-filing/agent-client` (clients/ts/package.json) into
 * `clients/ts/dist/`, and copies the repository's LICENSE beside package.json (git-ignored there):
 *
 * - `client.js`, `errors.js`, `batch_watch.js` + their `.d.ts`, `agent.d.ts`: the ESM build and its
 *   declarations, emitted by the TypeScript compiler (npm `typescript`, the version in deno.lock,
 *   run offline by Deno) from `clients/ts/*.ts`; relative `.ts` imports become `.js`.
 *   `openapi-fetch` stays an import (the package's one dependency): bundlers, Node ≥ 18 and Deno
 *   resolve it.
 * - `browser.js`: the same client (from the sources) with openapi-fetch inlined by
 *   `deno bundle --platform browser`, for a page that loads it as a module without a bundler
 *   (the `./browser` export).
 *
 * Then `cd clients/ts && npm pack` (or `npm publish`). With `--package-dir DIR` the package folder
 * (clients/ts as checked in) is first copied to DIR and built there, leaving clients/ts alone
 * (tests/e2e/client_package_test.ts does this).
 *
 * Usage:
 *   deno task build:client                       (= deno run -A scripts/build_client.ts)
 *   deno run -A scripts/build_client.ts --package-dir DIR
 * @module
 */
import { parseArgs } from "node:util";
import ts from "typescript";

/** The package's folder. */
export const CLIENT_DIR = new URL("../clients/ts/", import.meta.url);
const ROOT = new URL("..", import.meta.url);

/** The sources compiled (each with its imports); agent.d.ts is copied as it is. */
const ENTRIES = ["client.ts"];

/**
 * Build the package.
 * @param packageDir the package folder (default clients/ts); another folder gets a copy of
 *   clients/ts (without dist/) first
 * @returns the files of `dist/`, sorted
 * @throws Error with the compiler's diagnostics or deno bundle's output
 */
export async function buildClient(packageDir: string = CLIENT_DIR.pathname): Promise<string[]> {
  const pkg = packageDir.replace(/\/?$/, "/");
  if (pkg !== CLIENT_DIR.pathname) {
    await Deno.mkdir(pkg, { recursive: true });
    for await (const e of Deno.readDir(CLIENT_DIR)) {
      if (e.isFile && e.name !== "LICENSE") {
        await Deno.copyFile(new URL(e.name, CLIENT_DIR), pkg + e.name);
      }
    }
  }
  const license = new URL("LICENSE", ROOT);
  if (await Deno.stat(license).then(() => true, () => false)) {
    await Deno.copyFile(license, pkg + "LICENSE");
  }
  const outDir = pkg + "dist";
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  await Deno.mkdir(outDir, { recursive: true });

  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    strict: true,
    declaration: true,
    allowImportingTsExtensions: true,
    rewriteRelativeImportExtensions: true,
    skipLibCheck: true,
    newLine: ts.NewLineKind.LineFeed,
    rootDir: new URL(".", CLIENT_DIR).pathname,
    outDir,
  };
  const files = ENTRIES.map((f) => new URL(f, CLIENT_DIR).pathname);
  const program = ts.createProgram(files, options);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0 || emitted.emitSkipped) {
    throw new Error(ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => new URL(".", ROOT).pathname,
      getNewLine: () => "\n",
    }));
  }
  await Deno.copyFile(new URL("agent.d.ts", CLIENT_DIR), `${outDir}/agent.d.ts`);
  // Declarations keep the sources' `.ts` specifiers: point them at the emitted files (and
  // `./agent.d.ts` at `./agent.js`, which TypeScript of any version resolves to it).
  for await (const e of Deno.readDir(outDir)) {
    if (!e.name.endsWith(".d.ts") || e.name === "agent.d.ts") continue;
    const path = `${outDir}/${e.name}`;
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace(/(from\s+["']\.\/[\w-]+)(?:\.d)?\.ts(["'])/g, "$1.js$2"),
    );
  }

  const bundle = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "--config",
      new URL("deno.json", ROOT).pathname,
      "--output",
      `${outDir}/browser.js`,
      // From the sources (deno bundle strips the types): resolves openapi-fetch through the
      // repository's deno.json wherever the package folder is.
      new URL("client.ts", CLIENT_DIR).pathname,
    ],
    cwd: new URL(".", ROOT).pathname,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!bundle.success) {
    throw new Error(`deno bundle failed: ${new TextDecoder().decode(bundle.stderr)}`);
  }
  await Deno.writeTextFile(`${outDir}/browser.d.ts`, `export * from "./client.js";\n`);

  const out: string[] = [];
  for await (const e of Deno.readDir(outDir)) out.push(e.name);
  return out.sort();
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { "package-dir": { type: "string" } },
    strict: true,
  });
  const dir = values["package-dir"];
  const files = await buildClient(dir);
  console.log(`built ${dir ?? "clients/ts"}/dist: ${files.join(", ")}`);
}
