/**
 * `agent open`: open the console of this user's running agent in the default browser. The
 * agent of the data folder is found by its lock (`agent.lock`: the port); the one-time link is
 * asked for with the secret the agent keeps in the data folder (`console.secret`, owner-only),
 * so only this user's programs get one. The link is printed too (it works once, 10 minutes).
 * @module
 */
import type { Command } from "commander";
import { joinPath } from "../defaults.ts";
import type { Cli } from "./context.ts";
import { dataDirOf } from "./options.ts";
import { say } from "./output.ts";
import { UserError } from "../user_error.ts";

/** The sentence when no agent runs, naming the program as the person has it. */
const notRunning = (program: string) =>
  `The agent is not running for this data folder; start it (\`${program} agent\`, ` +
  `or from the Start menu / Applications) and run \`${program} agent open\` again.`;

/** The package's launcher name on an OS (`svc-filing.cmd` on Windows). */
const launcherOf = (os: string) => os === "windows" ? "svc-filing.cmd" : "svc-filing";

/**
 * A one-time console link from the running agent of a data folder.
 * @param dataDir the agent's data folder
 * @param os Deno.build.os (paths)
 * @param program the program's name in the sentence when no agent runs (default: the launcher)
 * @returns `http://127.0.0.1:PORT/console/open?code=…`
 * @throws Error in one sentence: no agent running, or it refused the secret
 */
export async function consoleLinkOf(
  dataDir: string,
  os: string,
  program: string = launcherOf(os),
): Promise<string> {
  const [{ LOCK_FILE }, { CONSOLE_SECRET_FILE }] = await Promise.all([
    import("../agent/start/mod.ts"),
    import("./agent_stores.ts"),
  ]);
  const read = (name: string) => Deno.readTextFile(joinPath(os, dataDir, name));
  const port = await read(LOCK_FILE).then((t) => Number(JSON.parse(t).port), () => 0);
  const secret = await read(CONSOLE_SECRET_FILE).then((t) => t.trim(), () => "");
  if (!port || !secret) throw new UserError(notRunning(program));
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${port}/console/links`, {
      method: "POST",
      headers: { "x-svc-console-secret": secret },
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    throw new UserError(notRunning(program));
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok || typeof body.url !== "string") {
    throw new UserError(
      `The agent on port ${port} refused the console link (${body.errorCode ?? res.status}); ` +
        "is it another user's agent? Restart yours and try again.",
    );
  }
  return body.url;
}

/**
 * Open the console of the data folder's running agent in the default browser (unless
 * SVC_OPEN_BROWSER=never) and print the link. Also what a second start of the agent does (a
 * double-click on the launcher while the agent runs).
 * @param dataDir the agent's data folder
 * @param e environment, OS, and where the lines go
 * @throws Error as {@link consoleLinkOf}
 */
export async function openRunningConsole(
  dataDir: string,
  e: {
    env: Readonly<Record<string, string | undefined>>;
    os: string;
    print: (l: string) => void;
    program?: string;
    /** The console's language to set as it opens ("bg" or "en"). */
    lang?: string;
  },
): Promise<void> {
  const link = await consoleLinkOf(dataDir, e.os, e.program);
  const url = e.lang ? `${link}&lang=${encodeURIComponent(e.lang)}` : link;
  if (e.env.SVC_OPEN_BROWSER !== "never") {
    const { systemBrowserOpener } = await import("../agent/host/mod.ts");
    systemBrowserOpener(() => {}, e.os)(url);
  }
  e.print(`The console: ${url}`);
  e.print("(the link works once, for 10 minutes)");
}

/**
 * `agent open`: ask the running agent for a one-time console link and open it.
 * @param cli the run's context
 * @param cmd the command (its --data-dir)
 * @throws Error in one sentence: no agent running, or it refused the secret
 */
export async function openConsole(cli: Cli, cmd: Command): Promise<void> {
  const { programName } = await import("./program_name.ts");
  const lang = cmd.opts().lang;
  await openRunningConsole(dataDirOf(cli, cmd), {
    ...cli,
    print: (l) => say(cli, l),
    program: programName(cli),
    ...(typeof lang === "string" ? { lang } : {}),
  });
}
