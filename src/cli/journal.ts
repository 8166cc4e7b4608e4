/**
 * `journal list|export`: the submission journal in `<dataDir>/journal.sqlite` (README § The
 * submission journal). Reading never creates the journal: a data directory without one lists
 * nothing.
 * @module
 */
import { Command, Option } from "commander";
import type { FilingRecord } from "../agent/filing/mod.ts";
import { joinPath } from "../defaults.ts";
import type { Cli } from "./context.ts";
import { countArg, dataDirOf, dataDirOption, jsonOption, textArg } from "./options.ts";
import { printJson, say } from "./output.ts";

interface JournalFlags {
  limit: number;
  format?: "csv" | "json";
  out?: string;
  json?: boolean;
}

/** The newest `limit` filings, or [] when the data directory has no journal yet. */
async function readRows(cli: Cli, cmd: Command, limit: number): Promise<FilingRecord[]> {
  const dataDir = dataDirOf(cli, cmd);
  const path = joinPath(cli.os, dataDir, "journal.sqlite");
  try {
    await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      // Missing journal file in an existing directory: nothing filed yet.
      const dir = await Deno.stat(dataDir).catch(() => null);
      if (dir === null || dir.isDirectory) return [];
    }
    throw new Error(`Cannot read the journal in ${dataDir}: ${(e as Error).message}`);
  }
  const { Journal } = await import("../agent/filing/mod.ts");
  let journal;
  try {
    journal = new Journal(path);
  } catch (e) {
    throw new Error(`Cannot open the journal ${path}: ${(e as Error).message}`);
  }
  try {
    return journal.list(limit);
  } finally {
    journal.close();
  }
}

async function list(cli: Cli, cmd: Command): Promise<void> {
  const o = cmd.opts<JournalFlags>();
  const rows = await readRows(cli, cmd, o.limit);
  if (o.json || o.format === "json") {
    printJson(cli, rows);
    return;
  }
  if (o.format === "csv") {
    const { exportJournal } = await import("../agent/filing/mod.ts");
    cli.stdout(await exportJournal(rows, "csv"));
    return;
  }
  for (const r of rows) {
    say(
      cli,
      [
        r.createdAt,
        r.typeId,
        r.eik,
        r.period ?? "-",
        r.state,
        r.documentId ?? "-",
        r.errorCode ?? "",
      ]
        .join("  "),
    );
  }
  if (rows.length === 0) say(cli, "The journal is empty.");
}

async function exportRows(cli: Cli, cmd: Command): Promise<void> {
  const o = cmd.opts<JournalFlags>();
  const rows = await readRows(cli, cmd, o.limit);
  const { exportJournal } = await import("../agent/filing/mod.ts");
  const text = await exportJournal(rows, o.format === "csv" ? "csv" : "json");
  if (o.out) await Deno.writeTextFile(o.out, text);
  else cli.stdout(text);
}

const limitOption = () =>
  new Option("--limit <n>", "at most this many filings, newest first").argParser(countArg)
    .default(1000);

/**
 * The `journal` command group.
 * @param cli the run's context
 * @returns the command
 */
export function journalCommand(cli: Cli): Command {
  const journal = new Command("journal").summary("list or export the submission journal")
    .description(
      "The agent's submission journal: every filing with its state and the authority's answer " +
        "(never PINs, keys or file contents).",
    );
  journal.command("list")
    .description("one line per filing: created, typeId, EIK, period, state, documentId, error")
    .addOption(limitOption())
    .addOption(
      new Option("--format <format>", "json (same as --json) or csv instead of text")
        .choices(["json", "csv"]),
    )
    .addOption(jsonOption("print the filings as a JSON array"))
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => list(cli, cmd));
  journal.command("export")
    .description("the filings as JSON (default) or CSV, to standard output or a file")
    .addOption(
      new Option("--format <format>", "json or csv").choices(["json", "csv"]).default("json"),
    )
    .addOption(new Option("--out <file>", "write to this file").argParser(textArg))
    .addOption(limitOption())
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => exportRows(cli, cmd));
  return journal;
}
