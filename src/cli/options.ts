/**
 * Options and argument parsers shared by the command groups: `--data-dir`, `--json`, ports,
 * whole numbers, repeatable flags, and reading the options of a command together with those
 * given to its parent groups.
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import type { CliContext } from "./context.ts";
import { resolveDataDir } from "./data_dir.ts";

/**
 * Parse a TCP port.
 * @param v the flag's value
 * @returns 0–65535
 * @throws InvalidArgumentError otherwise (exit 2)
 */
export function portArg(v: string): number {
  if (!/^\d{1,5}$/.test(v) || Number(v) > 65535) {
    throw new InvalidArgumentError("Not a port number (0–65535).");
  }
  return Number(v);
}

/**
 * Parse a whole number ≥ 0.
 * @param v the flag's value
 * @returns the number
 * @throws InvalidArgumentError otherwise (exit 2)
 */
export function countArg(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError("Not a whole number.");
  return Number(v);
}

/**
 * Parse a non-empty text (a path, an id).
 * @param v the flag's value
 * @returns v
 * @throws InvalidArgumentError when empty (exit 2)
 */
export function textArg(v: string): string {
  if (v === "") throw new InvalidArgumentError("Must not be empty.");
  return v;
}

/**
 * Collect a repeatable flag (`--eik A --eik B`).
 * @param v this occurrence
 * @param prev the earlier ones
 * @returns all values in order
 */
export function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}

/** `--data-dir DIR`. */
export const dataDirOption = (): Option =>
  new Option("--data-dir <dir>", "data directory (default: SVC_DATA_DIR, else the OS default)")
    .argParser(textArg);

/** `--json`. */
export const jsonOption = (what = "print JSON instead of text"): Option =>
  new Option("--json", what);

/**
 * The options of a command merged with those its parent groups were given
 * (`agent --data-dir X doctor` and `agent doctor --data-dir X` both reach `doctor`); the
 * command's own win.
 * @param cmd the command whose action runs
 * @returns the merged options
 */
export function optsOf<T extends Record<string, unknown>>(cmd: Command): T {
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.unshift(c);
  return Object.assign({}, ...chain.map((c) => c.opts())) as T;
}

/**
 * The data directory of a command: its `--data-dir` (or a parent group's), else SVC_DATA_DIR,
 * else the OS default ({@link resolveDataDir}).
 * @param cli the context (environment, OS)
 * @param cmd the command whose action runs
 * @returns the directory
 */
export function dataDirOf(cli: Pick<CliContext, "env" | "os">, cmd: Command): string {
  return resolveDataDir(optsOf<{ dataDir?: string }>(cmd).dataDir, cli.env, cli.os);
}
