/**
 * The command line of the one program (docs/cli.md): the commander tree of every command group
 * and {@link runCli}, which runs one command line and maps the outcome to the exit code — 0 ok
 * (`--help` too), 1 the command failed (one sentence on stderr), 2 a wrong command line (one
 * line on stderr and a hint to `--help`).
 * @module
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "../version.ts";
import { adminCommand } from "./admin.ts";
import { agentCommand } from "./agent.ts";
import type { Cli, CliContext, CliOutcome } from "./context.ts";
import { demoCommand } from "./demo.ts";
import { journalCommand } from "./journal.ts";
import { keysCommand } from "./keys.ts";
import { openapiCommand } from "./openapi.ts";
import { failureText, note } from "./output.ts";
import { sendersCommand } from "./senders.ts";
import { tokenServiceCommand } from "./token_service.ts";
import { versionCommand } from "./version.ts";
import { programName } from "./program_name.ts";

export { PROGRAM, programName } from "./program_name.ts";

const ENVIRONMENT = `
Environment: SVC_DATA_DIR, SVC_AGENT_PORT, SVC_AGENT_TLS_PORT, SVC_TOKEN_SERVICE_URL,
SVC_TOKEN_PORT, SVC_DATABASE_URL, SVC_MIN_AGENT_VERSION, SVC_LATEST_AGENT_VERSION,
SVC_CONFIRM_TIMEOUT_SECONDS, SVC_OPEN_BROWSER=never, SVC_ADMIN_TOKEN,
SVC_SMTP_HOST/PORT/SECURE/USER/PASS/FROM, SVC_NOTICE_INTERVAL_SECONDS, SVC_USAGE_FLUSH_SECONDS,
SVC_LOG_LEVEL. Exit codes: 0 ok, 1 the command failed, 2 a wrong command line.
See README.md and docs/cli.md.`;

/** The full name of a command, e.g. `main.ts admin keys list`. */
function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** The same behaviour on every command: output, errors, positional options, hint. */
function configure(cmd: Command, cli: Cli): void {
  cmd.exitOverride()
    .configureOutput({
      writeOut: (s) => cli.stdout(s),
      writeErr: (s) => cli.stderr(s),
      // One line: commander puts "(Did you mean …?)" on a line of its own.
      outputError: (s, write) => write(s.trimEnd().split(/\r?\n/).join(" ") + "\n"),
    })
    .showHelpAfterError(`Run '${pathOf(cmd)} --help' for usage.`);
  if (cmd.commands.length) cmd.enablePositionalOptions();
  for (const sub of cmd.commands) configure(sub, cli);
}

/**
 * Build the commander program for one run.
 * @param cli the run's context (the commands write to it and record the outcome in it)
 * @returns the root command
 */
export function buildProgram(cli: Cli): Command {
  const program = new Command(programName(cli))
    .description(`svc-filing ${VERSION} — local filing agent and token service`)
    .version(VERSION, "--version", "print the version")
    .addHelpText("after", ENVIRONMENT);
  for (
    const group of [
      demoCommand,
      agentCommand,
      tokenServiceCommand,
      keysCommand,
      journalCommand,
      sendersCommand,
      adminCommand,
      openapiCommand,
      versionCommand,
    ]
  ) program.addCommand(group(cli));
  configure(program, cli);
  return program;
}

/**
 * The exit code of a commander stop: 0 for help and version, 2 for every wrong command line
 * (commander itself would exit 1).
 */
function commanderExit(e: CommanderError): number {
  if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return 0;
  if (e.code === "commander.help") return e.exitCode === 0 ? 0 : 2; // a group without command
  return 2;
}

/**
 * `help <name>` where `<name>` is no command of that level: the reason, not the whole help
 * (commander would print the parent's help on stderr).
 * @returns the command the unknown name was looked up in, and the name; or null
 */
function unknownHelpTarget(program: Command, argv: readonly string[]) {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    // non-null: i < argv.length
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === "help" && cmd.commands.length && next !== undefined && !next.startsWith("-")) {
      const known = cmd.commands.some((c) => c.name() === next || c.aliases().includes(next));
      return known ? null : { cmd, name: next };
    }
    const sub = cmd.commands.find((c) => c.name() === arg);
    if (!sub) return null;
    cmd = sub;
  }
  return null;
}

/**
 * Run one command line.
 * @param argv the arguments after the program (`["keys", "create", "--mode", "test"]`)
 * @param ctx environment, clock, output, stdin, phase 1 of the agent, optional token store
 * @returns the exit code, and whether a server keeps running (then do not exit)
 * @throws never: a failure is one line on stderr and exit code 1
 */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<CliOutcome> {
  const cli: Cli = { ...ctx, exitCode: 0, serving: false };
  const program = buildProgram(cli);
  const unknown = unknownHelpTarget(program, argv);
  if (unknown) {
    note(cli, `error: unknown command '${unknown.name}'`);
    note(cli, `Run '${pathOf(unknown.cmd)} --help' for usage.`);
    return { code: 2, serving: false };
  }
  try {
    await program.parseAsync(argv.length ? [...argv] : ["--help"], { from: "user" });
    return { code: cli.exitCode, serving: cli.serving };
  } catch (e) {
    if (e instanceof CommanderError) return { code: commanderExit(e), serving: false };
    note(cli, failureText(e));
    return { code: 1, serving: false };
  } finally {
    // Phase 1 of `agent` ran but the agent did not start (a wrong command line): free the port
    // and the lock before the process exits.
    if (cli.phase1 && !cli.serving) {
      cli.phase1.early.handler.failed();
      await cli.phase1.lock.release();
    }
  }
}
