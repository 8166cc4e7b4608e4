/**
 * Command-line parsing of the admin CLI (`cli.ts`): the options of every group, the positional
 * id, and the usage error (exit code 2).
 * @module
 */
import { parseArgs } from "node:util";

/** Thrown for a wrong command line (exit code 2). */
export class UsageError extends Error {}

const OPTIONS = {
  integrator: { type: "string" },
  mode: { type: "string" },
  label: { type: "string" },
  eik: { type: "string", multiple: true },
  any: { type: "boolean" },
  "grace-seconds": { type: "string" },
  name: { type: "string" },
  id: { type: "string" },
  email: { type: "string" },
  locale: { type: "string" },
  origin: { type: "string", multiple: true },
  status: { type: "string" },
  company: { type: "string" },
  use: { type: "string" },
  "ends-at": { type: "string" },
  "open-ended": { type: "boolean" },
  note: { type: "string" },
  reason: { type: "string" },
  month: { type: "string" },
  format: { type: "string" },
  contract: { type: "string" },
  key: { type: "string" },
  "data-dir": { type: "string" },
} as const;

/**
 * Parse the arguments after the group name.
 * @param args e.g. `["revoke", "key_…"]` or `["create", "--mode", "live"]`
 * @returns options and positionals
 * @throws TypeError (code ERR_PARSE_ARGS_*) for an unknown option
 */
export function parseCliArgs(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

/** Parsed options of one CLI call. */
export type CliValues = ReturnType<typeof parseCliArgs>["values"];

/**
 * The positional id argument.
 * @param pos positionals after the command
 * @param what name for the message
 * @returns the id
 * @throws UsageError when missing
 */
export function needId(pos: string[], what: string): string {
  if (!pos[0]) throw new UsageError(`Missing the ${what} id`);
  return pos[0];
}
