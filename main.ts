/**
 * The one program: `agent`, `token-service`, `demo`, `keys`, `journal`, `senders`, `admin`,
 * `openapi`, `version` (docs/cli.md; `deno run -A main.ts --help`). This file picks the program
 * and wires the process into it; the commands live in src/cli/.
 *
 * `agent` starts in two phases (docs/running.md, BENCHMARKS.md § Agent cold start): phase 1 is
 * decided from the raw command line and listens before zod or Hono load — that is why
 * src/cli/agent_early.ts is the only static import of the CLI here — and phase 2 then takes
 * over what it left running (src/cli/agent_run.ts), without loading the commander program.
 * @module
 */
import { systemClock } from "./src/clock.ts";
import { agentPhase1 } from "./src/cli/agent_early.ts";
import { isAgentLink, isStartUrl } from "./src/agent/start/mod.ts";
import { readStdinLine, writeAllSync } from "./src/cli/process.ts";

if (import.meta.main) {
  // Started by the OS for a `svc-agent://start` link (src/agent/host/url_scheme.ts): start the
  // agent (a running one is reported and left alone). Any other URL is a wrong command line.
  const link = Deno.args[0] ?? "";
  if (isAgentLink(link) && !isStartUrl(link)) {
    writeAllSync(
      Deno.stderr,
      `svc-filing: the only link it answers is svc-agent://start, not ${link}\n`,
    );
    Deno.exit(2);
  }
  const args = isStartUrl(link) ? ["agent"] : Deno.args;
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
        // A second start (the launcher double-clicked while the agent runs) opens the console;
        // a page's svc-agent://start link never does.
        ...(isStartUrl(link) ? {} : {
          alreadyRunning: async (dataDir: string) =>
            await (await import("./src/cli/agent_open.ts")).openRunningConsole(dataDir, {
              env,
              os: Deno.build.os,
              print: (line) => stdout(line + "\n"),
            }),
        }),
      })
      : null;
  } catch (err) {
    stderr(`${err instanceof Error ? err.message : String(err)}\n`);
    Deno.exit(1);
  }
  const ctx = {
    env,
    os: Deno.build.os,
    clock: systemClock,
    stdout,
    stderr,
    readLine: readStdinLine,
    execPath: Deno.execPath(),
    mainModule: Deno.mainModule,
  };
  // Phase 1 read the plain `agent` command line: phase 2 without the CLI library. Otherwise the
  // commander program (it pulls in Node compatibility: node:events, node:child_process).
  const outcome = phase1
    ? await (await import("./src/cli/agent_run.ts")).runResidentAgent({ ...ctx, phase1 })
    : await (await import("./src/cli/program.ts")).runCli(args, { ...ctx, phase1 });
  if (!outcome.serving) Deno.exit(outcome.code);
}
