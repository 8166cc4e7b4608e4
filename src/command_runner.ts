/**
 * The injectable command runner the OS key stores (Windows certificate store, macOS Keychain)
 * use to call the OS's own tools, so that command construction and output parsing are
 * unit-tested with recorded outputs on any OS.
 * @module
 */

/** One command to run. Arguments are passed as a list (no shell), never interpolated. */
export interface CommandRequest {
  readonly cmd: string;
  readonly args: readonly string[];
  /** Bytes written to the command's standard input (then closed). */
  readonly stdin?: Uint8Array | undefined;
}

/** What a command returned (stdout/stderr decoded as UTF-8). */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command. Implementations reject only when the program cannot be started. */
export type CommandRunner = (req: CommandRequest) => Promise<CommandResult>;

/**
 * The real runner over `Deno.Command` (needs `--allow-run` for the command).
 *
 * @param req command, arguments and optional stdin
 * @returns exit code and decoded output
 * @throws Deno.errors.NotFound when the program does not exist
 */
export const denoCommandRunner: CommandRunner = async (req) => {
  const child = new Deno.Command(req.cmd, {
    args: [...req.args],
    stdin: req.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (req.stdin) {
    const w = child.stdin.getWriter();
    await w.write(req.stdin);
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
};
