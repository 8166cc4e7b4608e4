/**
 * The agent's start, step 6 of 6 (docs/architecture.md § The start): the portable package's
 * first start (docs/install.md). Once the agent serves, say where its data
 * lives, offer to start it at login (and to let pages start it with `svc-agent://start`) — the
 * person can decline —, open the console in the browser with a one-time link, and
 * remember that this was done (`<data>/first-start.json`). Only when running from the package
 * (`app/svc-filing.js` beside a launcher); a start from source never asks.
 * @module
 */
import { errorMessage } from "../error_message.ts";
import { joinPath } from "../defaults.ts";
import type { AutostartOptions } from "./agent_settings.ts";
import type { Cli } from "./context.ts";
import { note, say } from "./output.ts";

/** The marker written after the first start. */
export const FIRST_START_FILE = "first-start.json";

/** What the first start recorded. */
export interface FirstStartRecord {
  readonly at: string;
  readonly version: string;
  /** "registered", "declined" (the person said no, or nobody could be asked) or "failed: …". */
  readonly autostart: string;
}

/**
 * Whether the answer to the autostart question is yes. An empty line at a terminal is the
 * default (yes); no input at all (stdin closed, nobody there) is no.
 * @param answer the line read ("" at end of input)
 * @param terminal whether stdin is a terminal
 * @returns true to register
 */
export function saysYes(answer: string, terminal: boolean): boolean {
  const a = answer.trim().toLowerCase();
  if (a === "") return terminal;
  return ["y", "yes", "д", "да"].includes(a);
}

/** Where the first start runs: the package's launcher and how it registers itself. */
export interface FirstStartPlace {
  /** The package's launcher, or null when running from source (nothing to do). */
  readonly launcher: string | null;
  /** How installAutostart registers this program (agent_settings.ts). */
  readonly autostart: AutostartOptions;
}

/**
 * Step 6: run the first start when it has not run yet for this data folder.
 * @param cli the run's context (output, stdin, environment, OS)
 * @param dataDir the agent's data folder
 * @param place the package's launcher and the autostart options (step 1's settings)
 * @param url the agent's base URL (`http://127.0.0.1:PORT`)
 * @param openBrowser opens a URL in the default browser
 * @param consoleLink makes a one-time link that opens the console (absent: `/health` is opened)
 * @returns the record written, or null when nothing was to do
 * @throws never (a failure is reported in one sentence and recorded)
 */
export async function firstStart(
  cli: Cli,
  dataDir: string,
  place: FirstStartPlace,
  url: string,
  openBrowser: (url: string) => void,
  consoleLink?: () => string,
): Promise<FirstStartRecord | null> {
  const marker = joinPath(cli.os, dataDir, FIRST_START_FILE);
  if (await Deno.stat(marker).then(() => true, () => false)) return null;
  const { launcher } = place;
  if (!launcher) return null;
  const { VERSION } = await import("../version.ts");
  say(cli, `First start: your data lives in ${dataDir} (senders, the journal of filings).`);
  const host = await import("../agent/host/mod.ts");
  // The Windows installer registers the start at login itself: nothing to ask then.
  const before = await host.autostartStatus(place.autostart).catch(() => null);
  let autostart = "declined";
  if (before?.installed) {
    say(cli, `Starts at login (${before.method}): ${before.location}`);
    autostart = "registered";
  } else {
    say(cli, "Start the agent at login and let your accounting pages start it? [Y/n]");
    const answer = await cli.readLine().catch(() => "");
    autostart = saysYes(answer, Deno.stdin.isTerminal())
      ? await register(cli, place.autostart, host)
      : "declined";
    if (autostart === "declined") {
      say(cli, `Not started at login; to do it later: ${launcher} agent install-autostart`);
    }
  }
  // The console, signed in by a one-time link (the person at the machine started it).
  const page = consoleLink?.() ?? `${url}/health`;
  if (cli.env.SVC_OPEN_BROWSER !== "never") openBrowser(page);
  say(cli, `The agent's console: ${page}`);
  const record: FirstStartRecord = {
    at: new Date(cli.clock.now()).toISOString(),
    version: VERSION,
    autostart,
  };
  await Deno.writeTextFile(marker, JSON.stringify(record, null, 2) + "\n", { mode: 0o600 });
  return record;
}

/** Register the start at login and the `svc-agent://` link; the record's word for the result. */
async function register(
  cli: Cli,
  opts: AutostartOptions,
  host: typeof import("../agent/host/mod.ts"),
): Promise<string> {
  try {
    const { os, run } = opts;
    const st = await host.installAutostart(opts);
    say(cli, `Starts at login (${st.method}): ${st.location}`);
    // The link starts what the login starts (svc-filing.exe on Windows), without `agent`.
    const command = opts.command.slice(0, -1);
    const link = await host.installUrlScheme({ os, env: cli.env, command, run });
    say(cli, `Pages can start it with svc-agent://start (${link.method}).`);
    return "registered";
  } catch (e) {
    const why = errorMessage(e);
    note(cli, `Could not register the start at login: ${why}`);
    return `failed: ${why}`;
  }
}
