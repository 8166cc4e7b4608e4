/**
 * `journal list|export|resolve`: the submission journal in `<dataDir>/journal.sqlite`
 * (docs/journal.md). Reading never creates the journal: a data directory without one lists
 * nothing. `resolve` records a person's verdict on a filing whose outcome is unknown, after
 * checking on the NRA portal (docs/journal.md), with who (the OS user) and when.
 * @module
 */
import { userInfo } from "node:os";
import { Command, Option } from "commander";
import type { FilingRecord, FilingState, Journal } from "../agent/filing/mod.ts";
import { joinPath } from "../defaults.ts";
import { FILING_STATES } from "../filing_states.ts";
import type { Cli } from "./context.ts";
import { countArg, dataDirOf, dataDirOption, jsonOption, textArg } from "./options.ts";
import { printJson, renderTable, say } from "./output.ts";
import { UserError } from "../user_error.ts";

interface JournalFlags {
  limit: number;
  format?: "csv" | "json";
  out?: string;
  json?: boolean;
  state?: FilingState;
}

interface ResolveFlags {
  filed?: boolean;
  notFiled?: boolean;
  documentId?: string;
  incomeNumber?: string;
  json?: boolean;
}

/** The states, for `--state` (the same names as in the database, export and docs). */

/** The columns of `journal list`, in order (its header row). */
const LIST_COLUMNS = [
  "id",
  "createdAt",
  "typeId",
  "eik",
  "period",
  "state",
  "documentId",
  "incomeNumber",
  "errorCode",
] as const;

/** The open journal of the data directory, or null when it has none yet. */
async function openJournal(cli: Cli, cmd: Command): Promise<Journal | null> {
  const dataDir = dataDirOf(cli, cmd);
  const path = joinPath(cli.os, dataDir, "journal.sqlite");
  try {
    await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      // Missing journal file in an existing directory: nothing filed yet.
      const dir = await Deno.stat(dataDir).catch(() => null);
      if (dir === null || dir.isDirectory) return null;
    }
    throw new UserError(`Cannot read the journal in ${dataDir}: ${(e as Error).message}`);
  }
  const { Journal } = await import("../agent/filing/mod.ts");
  try {
    return new Journal(path);
  } catch (e) {
    throw new UserError(`Cannot open the journal ${path}: ${(e as Error).message}`);
  }
}

/** The newest `limit` filings (in one state), or [] when the data directory has no journal. */
async function readRows(
  cli: Cli,
  cmd: Command,
  limit: number,
  state?: FilingState,
): Promise<FilingRecord[]> {
  const journal = await openJournal(cli, cmd);
  if (!journal) return [];
  try {
    return journal.list(limit, state);
  } finally {
    journal.close();
  }
}

async function list(cli: Cli, cmd: Command): Promise<void> {
  const o = cmd.opts<JournalFlags>();
  const rows = await readRows(cli, cmd, o.limit, o.state);
  if (o.json || o.format === "json") {
    printJson(cli, rows);
    return;
  }
  if (o.format === "csv") {
    const { exportJournal } = await import("../agent/filing/mod.ts");
    cli.stdout(await exportJournal(rows, "csv"));
    return;
  }
  if (rows.length === 0) {
    say(cli, o.state ? `No filing is ${o.state}.` : "The journal is empty.");
    return;
  }
  say(cli, renderTable(rows as unknown as Record<string, unknown>[], LIST_COLUMNS));
}

async function exportRows(cli: Cli, cmd: Command): Promise<void> {
  const o = cmd.opts<JournalFlags>();
  const rows = await readRows(cli, cmd, o.limit, o.state);
  const { exportJournal } = await import("../agent/filing/mod.ts");
  const text = await exportJournal(rows, o.format === "csv" ? "csv" : "json");
  if (o.out) await Deno.writeTextFile(o.out, text);
  else cli.stdout(text);
}

/** Who runs the command: the OS user (USER, USERNAME, LOGNAME, else the account's name). */
function osUser(cli: Cli): string {
  const fromEnv = cli.env.USER || cli.env.USERNAME || cli.env.LOGNAME;
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}

async function resolve(cli: Cli, id: string, cmd: Command): Promise<void> {
  const o = cmd.opts<ResolveFlags>();
  if (!o.filed && !o.notFiled) {
    cmd.error("error: journal resolve needs --filed or --not-filed", { exitCode: 2 });
  }
  const journal = await openJournal(cli, cmd);
  if (!journal) throw new UserError(`No filing "${id}": the journal is empty.`);
  try {
    const row = journal.get(id);
    if (!row) throw new UserError(`No filing "${id}" in the journal.`);
    if (row.state !== "unknown") {
      throw new UserError(
        `Filing "${id}" is ${row.state}, not unknown: only a filing whose outcome is unknown ` +
          "can be resolved.",
      );
    }
    const by = osUser(cli);
    const done = journal.resolve(
      id,
      o.filed
        ? { filed: true, documentId: o.documentId ?? null, incomeNumber: o.incomeNumber ?? null }
        : { filed: false },
      by,
      new Date(cli.clock.now()),
    );
    if (!done) throw new UserError(`Filing "${id}" changed meanwhile; run journal list and retry.`);
    if (o.json) printJson(cli, done);
    else {
      say(
        cli,
        `Filing ${id} marked ${done.state === "filed" ? "filed" : "not filed"} by ${by} at ` +
          `${done.resolvedAt}.` +
          (done.state === "filed" ? "" : " The next attempt sends it again."),
      );
    }
  } finally {
    journal.close();
  }
}

const limitOption = () =>
  new Option("--limit <n>", "at most this many filings, newest first").argParser(countArg)
    .default(1000);

const stateOption = () =>
  new Option("--state <state>", "only the filings in this state").choices(FILING_STATES);

/**
 * The `journal` command group.
 * @param cli the run's context
 * @returns the command
 */
export function journalCommand(cli: Cli): Command {
  const journal = new Command("journal").summary(
    "list, export or resolve the submission journal",
  )
    .description(
      "The agent's submission journal: every filing with its state (pending, unknown, filed, " +
        "refused, not_filed) and the authority's answer (never PINs, keys or file contents). " +
        "See docs/journal.md.",
    );
  journal.command("list")
    .description(
      "a table of the filings, newest first: id, created, typeId, EIK, period, state, " +
        "documentId, incomeNumber, errorCode",
    )
    .addOption(limitOption())
    .addOption(stateOption())
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
    .addOption(stateOption())
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => exportRows(cli, cmd));
  journal.command("resolve")
    .description(
      "after checking on the NRA portal, mark a filing whose outcome is unknown as filed or " +
        "not filed (records the OS user and the time; a filing not filed is sent again by " +
        "the next attempt)",
    )
    .argument("<id>", "the filing's id (journal list --state unknown)", textArg)
    .addOption(new Option("--filed", "the NRA portal shows it filed").conflicts("notFiled"))
    .addOption(new Option("--not-filed", "the NRA portal does not show it").conflicts("filed"))
    .addOption(
      new Option("--document-id <n>", "with --filed: the documentId the portal shows")
        .argParser(textArg).conflicts("notFiled"),
    )
    .addOption(
      new Option("--income-number <x>", "with --filed: the income (entry) number it shows")
        .argParser(textArg).conflicts("notFiled"),
    )
    .addOption(jsonOption("print the resolved filing as JSON"))
    .addOption(dataDirOption())
    .action((id: string, _o, cmd: Command) => resolve(cli, id, cmd));
  return journal;
}
