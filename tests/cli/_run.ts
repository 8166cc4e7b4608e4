/**
 * Test helpers for the CLI: {@link runInProcess} runs one command line through `runCli()`
 * (src/cli/program.ts) with captured output, and {@link runMain} spawns
 * `deno run -A main.ts …` as a subprocess.
 */
import type { Clock } from "../../src/clock.ts";
import { systemClock } from "../../src/clock.ts";
import type { CliContext } from "../../src/cli/context.ts";
import { runCli } from "../../src/cli/program.ts";
import type { TokenStore } from "../../src/token/mod.ts";

/** What a command printed and how it ended. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON. */
  // deno-lint-ignore no-explicit-any
  json(): any;
}

/** Options of an in-process run. */
export interface InProcessOptions {
  readonly env?: Record<string, string | undefined>;
  readonly clock?: Clock;
  /** What `--pin-stdin` reads. */
  readonly stdin?: string;
  /** An open token store for `keys create` / `admin` (not closed by the command). */
  readonly tokenStore?: TokenStore;
}

const result = (code: number, stdout: string, stderr: string): CliResult => ({
  code,
  stdout,
  stderr,
  json: () => JSON.parse(stdout),
});

/**
 * Run one command line in this process.
 * @param argv the arguments after `main.ts`
 * @param o environment (default: none), clock, stdin, token store
 * @returns exit code and output
 */
export async function runInProcess(
  argv: readonly string[],
  o: InProcessOptions = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const ctx: CliContext = {
    env: o.env ?? {},
    os: Deno.build.os,
    clock: o.clock ?? systemClock,
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readLine: () => Promise.resolve(o.stdin ?? ""),
    execPath: Deno.execPath(),
    mainModule: new URL("../../main.ts", import.meta.url).href,
    ...(o.tokenStore ? { tokenStore: o.tokenStore } : {}),
  };
  const { code } = await runCli(argv, ctx);
  return result(code, stdout, stderr);
}

/** main.ts of this repository. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/**
 * Run `deno run -A main.ts …` to its end.
 * @param argv the arguments after `main.ts`
 * @param env variables added to a minimal environment (HOME, PATH, DENO_DIR kept)
 * @returns exit code and output
 */
export async function runMain(
  argv: readonly string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const keep = ["HOME", "PATH", "DENO_DIR", "TMPDIR", "SYSTEMROOT", "LOCALAPPDATA"];
  const base = Object.fromEntries(
    keep.flatMap((k) => (Deno.env.get(k) !== undefined ? [[k, Deno.env.get(k)!]] : [])),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...argv],
    env: { ...base, NO_COLOR: "1", SVC_LOG_LEVEL: "error", SVC_OPEN_BROWSER: "never", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return result(out.code, dec.decode(out.stdout), dec.decode(out.stderr));
}
