/**
 * Bundles the example page's script (`page/app.ts`, which imports the generated client and
 * openapi-fetch) into one browser file with `deno bundle`, once per process.
 * @module
 */

const ROOT = new URL("../../", import.meta.url);
const ENTRY = new URL("./page/app.ts", import.meta.url);

let cached: Promise<string> | null = null;

/**
 * The page script as one browser-ready ES module (bundled on first call, then cached).
 * @returns JavaScript text
 * @throws Error with deno bundle's output when bundling fails
 */
export function pageScript(): Promise<string> {
  return cached ??= (async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "browser",
        "--config",
        new URL("deno.json", ROOT).pathname,
        ENTRY.pathname,
      ],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (!out.success || out.stdout.length === 0) {
      cached = null;
      throw new Error(`deno bundle failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    return new TextDecoder().decode(out.stdout);
  })();
}
