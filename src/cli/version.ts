/**
 * `version` (and the root's `--version`): the program's version (README § Updating).
 * @module
 */
import { Command } from "commander";
import { VERSION } from "../version.ts";
import type { Cli } from "./context.ts";
import { jsonOption } from "./options.ts";
import { printJson, say } from "./output.ts";

/**
 * The `version` command.
 * @param cli the run's context
 * @returns the command
 */
export function versionCommand(cli: Cli): Command {
  return new Command("version")
    .description("print the version (same as --version)")
    .addOption(jsonOption('print {"version": "X.Y.Z", "deno": "…"} as JSON'))
    .action((o: { json?: boolean }) => {
      if (o.json) printJson(cli, { version: VERSION, deno: Deno.version.deno });
      else say(cli, VERSION);
    });
}
