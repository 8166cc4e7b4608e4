/**
 * What every `admin` command shares: opening the token store, `--json` and `--data-dir`, the
 * text for people, and the common options.
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import type { AdminDeps } from "../token/mod.ts";
import type { Cli } from "./context.ts";
import { withTokenStore } from "./command_token_store.ts";
import { collect, dataDirOf, dataDirOption, jsonOption, optsOf, textArg } from "./options.ts";
import {
  failureJson,
  isAppError,
  note,
  printJson,
  renderRecord,
  renderTable,
  say,
} from "./output.ts";

/** The token service's module (loaded by the first admin action). */
export type TokenModule = typeof import("../token/mod.ts");

/** The options of an admin command (each command declares the ones it takes). */
export interface AdminFlags extends Record<string, unknown> {
  json?: boolean;
  integrator?: string;
  mode?: string;
  label?: string;
  eik?: string[];
  any?: boolean;
  graceSeconds?: number;
  name?: string;
  id?: string;
  email?: string;
  locale?: string;
  origin?: string[];
  status?: string;
  company?: string;
  use?: string;
  endsAt?: string;
  openEnded?: boolean;
  note?: string;
  reason?: string;
  month?: string;
  format?: "json" | "csv";
  contract?: string;
  key?: string;
}

/** What an admin action gets. */
export interface AdminCall {
  readonly d: AdminDeps;
  readonly m: TokenModule;
  readonly o: AdminFlags;
  /** The positional arguments (the id). */
  readonly args: readonly string[];
  readonly cmd: Command;
}

/**
 * Make `cmd` an admin action: add `--json` and `--data-dir`, open the store, run, print.
 * @param cli the run's context
 * @param cmd the command (description, arguments and its own options already set)
 * @param run the operation; returns the document (a string, e.g. CSV, is printed as is)
 * @param render the text for people (default: `field: value` lines)
 * @returns cmd
 */
export function adminAction(
  cli: Cli,
  cmd: Command,
  run: (call: AdminCall) => Promise<unknown>,
  render: (result: unknown) => string = (r) => renderRecord(r as Record<string, unknown>),
): Command {
  return cmd.addOption(jsonOption("print the admin API's JSON document"))
    .addOption(dataDirOption())
    .action(async (...params: unknown[]) => {
      const c = params.at(-1) as Command;
      const o = optsOf<AdminFlags>(c);
      const m = await import("../token/mod.ts");
      try {
        const result = await withTokenStore(
          cli,
          dataDirOf(cli, c),
          (store) =>
            run({
              d: { store, clock: cli.clock },
              m,
              o,
              args: params.slice(0, -2) as string[],
              cmd: c,
            }),
        );
        if (typeof result === "string") cli.stdout(result.endsWith("\n") ? result : result + "\n");
        else if (o.json) printJson(cli, result);
        else say(cli, render(result));
      } catch (e) {
        if (!o.json || !isAppError(e)) throw e;
        note(cli, failureJson(e));
        cli.exitCode = 1;
      }
    });
}

/**
 * Text for a `{items}` list: a table of `columns`, or `empty` when there is none.
 * @param columns the fields shown
 * @param empty the line for an empty list
 * @returns the renderer
 */
export const listOf = (columns: readonly string[], empty: string) => (r: unknown): string => {
  const items = (r as { items: Record<string, unknown>[] }).items;
  return items.length ? renderTable(items, columns) : empty;
};

/** `--month YYYY-MM`. */
export const monthOption = (what: string): Option =>
  new Option("--month <yyyy-mm>", what).argParser((v: string) => {
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(v)) throw new InvalidArgumentError("Not a YYYY-MM month.");
    return v;
  });

/** `--integrator ID`. */
export const integratorOption = (what = "only this integrator's"): Option =>
  new Option("--integrator <id>", what).argParser(textArg);

/** `--eik EIK`, repeatable. */
export const eikOption = (what: string): Option =>
  new Option("--eik <eik>", what).argParser(collect);

/** `--format json|csv`. */
export const formatOption = (): Option =>
  new Option("--format <format>", "json (same as --json) or csv").choices(["json", "csv"]);
