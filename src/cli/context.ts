/**
 * What every command of the CLI gets: the environment and the side effects main.ts wires in
 * ({@link CliContext}), plus the outcome of one run ({@link Cli}). Tests pass their own context
 * to `runCli()` (src/cli/program.ts) and read what was written.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { TokenStore } from "../token/mod.ts";
import type { Phase1 } from "./agent_early.ts";

/** The outside world of the CLI. */
export interface CliContext {
  /** The environment variables (main.ts reads them once). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Deno.build.os. */
  readonly os: typeof Deno.build.os;
  readonly clock: Clock;
  /** Writes text to standard output as is. */
  readonly stdout: (text: string) => void;
  /** Writes text to standard error as is. */
  readonly stderr: (text: string) => void;
  /** Reads one line from standard input (`--pin-stdin`). */
  readonly readLine: () => Promise<string>;
  /** Deno.execPath(): how `agent install-autostart` starts this program again. */
  readonly execPath: string;
  /** Deno.mainModule (a file: URL), for the same. */
  readonly mainModule: string;
  /** What phase 1 of `agent` left running (src/cli/agent_early.ts), or null. */
  readonly phase1?: Phase1 | null;
  /**
   * An open token store for `keys create` and `admin` (tests, both backends); commands then
   * neither open nor close one. Absent: they open the one of `SVC_DATABASE_URL` or the data
   * directory and close it.
   */
  readonly tokenStore?: TokenStore;
}

/** One run of the CLI: the context plus what the command decided about the process. */
export interface Cli extends CliContext {
  /** The exit code once the command has returned (0 unless the command sets it). */
  exitCode: number;
  /** Set by commands that leave a server running: the process must not exit. */
  serving: boolean;
}

/** How a run ended. */
export interface CliOutcome {
  /** 0 ok, 1 the command failed, 2 a wrong command line. */
  readonly code: number;
  /** A server is running: keep the process alive (main.ts does not exit). */
  readonly serving: boolean;
}
