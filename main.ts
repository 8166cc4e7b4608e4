/**
 * The one program: `agent`, `token-service`, `demo`, `keys`, `journal`, `senders`, `admin`,
 * `openapi`, `version` (docs/cli.md; `deno run -A main.ts --help`). This file picks the program
 * and wires the process into it; the commands live in src/cli/.
 *
 * `agent` starts in two phases (docs/running.md, BENCHMARKS.md § Agent cold start): phase 1 is
 * decided from the raw command line and listens before commander, zod or Hono load — that is
 * why src/cli/agent_early.ts is the only static import of the CLI here — and the commander
 * program then takes over what it left running.
 * @module
 */
import { systemClock } from "./src/clock.ts";
import { agentPhase1, preloadCommanderBuiltins } from "./src/cli/agent_early.ts";
import { readStdinLine, writeAllSync } from "./src/cli/process.ts";

if (import.meta.main) {
  const args = Deno.args;
  const env = Deno.env.toObject();
  const stdout = (text: string) => writeAllSync(Deno.stdout, text);
  const stderr = (text: string) => writeAllSync(Deno.stderr, text);
  let phase1 = null;
  try {
    phase1 = args[0] === "agent"
      ? await agentPhase1(args.slice(1), {
        env,
        os: Deno.build.os,
        clock: systemClock,
        print: (line) => stdout(line + "\n"),
        exit: (code) => Deno.exit(code),
      })
      : null;
  } catch (err) {
    stderr(`${err instanceof Error ? err.message : String(err)}\n`);
    Deno.exit(1);
  }
  // Loaded only now: commander pulls in Node compatibility (node:events, node:child_process);
  // while phase 1 serves /health, one module per macrotask turn.
  if (phase1) await preloadCommanderBuiltins();
  const { runCli } = await import("./src/cli/program.ts");
  const outcome = await runCli(args, {
    env,
    os: Deno.build.os,
    clock: systemClock,
    stdout,
    stderr,
    readLine: readStdinLine,
    execPath: Deno.execPath(),
    mainModule: Deno.mainModule,
    phase1,
  });
  if (!outcome.serving) Deno.exit(outcome.code);
}
