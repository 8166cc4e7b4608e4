/**
 * `--help` on every command and subcommand of `main.ts` (spawned as a subprocess): exit 0, the
 * usage on stdout, nothing on stderr. The list of commands comes from the program itself, so a
 * new command is covered without editing this file.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import type { Command } from "commander";
import { systemClock } from "../../src/clock.ts";
import { buildProgram } from "../../src/cli/program.ts";
import { runMain } from "./_run.ts";

/** Every command path below the root, e.g. ["admin", "keys", "list"]. */
function commandPaths(): string[][] {
  const program = buildProgram({
    env: {},
    os: Deno.build.os,
    clock: systemClock,
    stdout: () => {},
    stderr: () => {},
    readLine: () => Promise.resolve(""),
    execPath: Deno.execPath(),
    mainModule: "file:///main.ts",
    exitCode: 0,
    serving: false,
  });
  const out: string[][] = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      const p = [...path, sub.name()];
      out.push(p);
      walk(sub, p);
    }
  };
  walk(program, []);
  return out;
}

/** Run `work` over `items`, `n` at a time. */
async function pool<T, R>(items: T[], n: number, work: (t: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  }));
  return results;
}

const PATHS = commandPaths();

Deno.test("[cli] the program has today's commands and subcommands", () => {
  const names = new Set(PATHS.map((p) => p.join(" ")));
  for (
    const want of [
      "demo",
      "agent",
      "agent doctor",
      "agent install-autostart",
      "agent uninstall-autostart",
      "agent trust-certificate",
      "token-service",
      "keys create",
      "journal list",
      "journal export",
      "senders add",
      "senders list",
      "senders test",
      "senders remove",
      "admin integrators list",
      "admin integrators show",
      "admin integrators create",
      "admin integrators update",
      "admin keys list",
      "admin keys show",
      "admin keys create",
      "admin keys revoke",
      "admin keys rotate",
      "admin keys allow",
      "admin applications list",
      "admin applications submit",
      "admin applications approve",
      "admin applications reject",
      "admin contracts list",
      "admin contracts show",
      "admin contracts terminate",
      "admin contracts statement",
      "admin usage",
      "openapi",
      "version",
    ]
  ) ok(names.has(want), `missing command: ${want}`);
});

Deno.test("[cli] --help on every command and subcommand exits 0 and prints its usage", async () => {
  const cases = [[], ...PATHS.filter((p) => p.at(-1) !== "help")];
  const results = await pool(cases, 6, (p) => runMain([...p, "--help"]));
  const failed: string[] = [];
  cases.forEach((p, i) => {
    const r = results[i]!;
    const usage = `Usage: ${["main.ts", ...p].join(" ")} `;
    if (r.code !== 0 || !r.stdout.startsWith(usage) || r.stderr !== "") {
      failed.push(`${p.join(" ") || "(root)"}: exit ${r.code}\n${r.stdout}${r.stderr}`);
    }
  });
  deepStrictEqual(failed, [], failed.join("\n\n"));
});

Deno.test("[cli] main.ts alone and `help <command>` print usage and exit 0", async () => {
  const bare = await runMain([]);
  equal(bare.code, 0);
  match(bare.stdout, /^Usage: main\.ts \[options\] \[command\]/);
  match(bare.stdout, /Exit codes: 0 ok, 1 the command failed, 2 a wrong command line/);
  const help = await runMain(["help", "journal"]);
  equal(help.code, 0);
  match(help.stdout, /^Usage: main\.ts journal /);
  const version = await runMain(["--version"]);
  equal(version.code, 0);
  match(version.stdout, /^\d+\.\d+\.\d+\n$/);
});
