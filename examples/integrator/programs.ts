/**
 * Starts the repository's programs (`main.ts token-service`, `main.ts agent`, `main.ts keys
 * create`) as subprocesses on free loopback ports, for the example.
 * @module
 */

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A running program. */
export interface Program {
  readonly url: string;
  stop(): Promise<void>;
}

/** What to do with a program's JSON log lines (stderr). */
export type LogSink = (line: Record<string, unknown>) => void;

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, i).replace(/\r$/, "");
      buf = buf.slice(i + 1);
    }
  }
  if (buf) yield buf;
}

async function start(
  args: string[],
  banner: RegExp,
  env: Record<string, string>,
  onLog: LogSink,
): Promise<Program> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  (async () => {
    for await (const line of lines(child.stderr)) {
      try {
        onLog(JSON.parse(line));
      } catch {
        onLog({ level: "info", msg: line });
      }
    }
  })().catch(() => {});
  const out = lines(child.stdout);
  let url = "";
  const timer = setTimeout(() => child.kill("SIGTERM"), 60_000);
  for await (const line of out) {
    const m = banner.exec(line);
    if (m) {
      url = m[1]!;
      break;
    }
  }
  clearTimeout(timer);
  if (!url) throw new Error(`main.ts ${args[0]} did not start`);
  (async () => {
    for await (const _ of out) { /* drain */ }
  })().catch(() => {});
  return {
    url,
    async stop() {
      // The programs finish running requests on SIGTERM; a request waiting on an open
      // confirmation page could keep them for minutes, so kill after a short grace period.
      const kill = (sig: Deno.Signal) => {
        try {
          child.kill(sig);
        } catch { /* already gone */ }
      };
      kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), 3_000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

/**
 * Start the token service on a free port.
 * @param dataDir its data directory (SQLite)
 * @param onLog log sink
 */
export function startTokenService(dataDir: string, onLog: LogSink): Promise<Program> {
  return start(
    ["token-service", "--port", "0", "--data-dir", dataDir],
    /^Token service: (\S+)/,
    {},
    onLog,
  );
}

/**
 * Start the agent on a free port (write its agent.json first).
 * @param dataDir its data directory
 * @param tokenServiceUrl the token service
 * @param onLog log sink (the agent logs "confirmation page opened" with the page URL)
 * @param openBrowser "auto" opens confirmation pages in the default browser, "never" only logs
 */
export function startAgent(
  dataDir: string,
  tokenServiceUrl: string,
  onLog: LogSink,
  openBrowser: "auto" | "never" = "auto",
): Promise<Program> {
  return start(
    ["agent", "--port", "0", "--data-dir", dataDir, "--token-service", tokenServiceUrl],
    /^Agent: (\S+)/,
    { SVC_OPEN_BROWSER: openBrowser },
    onLog,
  );
}

/**
 * Create a test key in the token service's database with the CLI.
 * @param dataDir the token service's data directory
 * @returns the secret (kept in memory by the caller; never printed)
 */
export async function createTestKey(dataDir: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "keys", "create", "--mode", "test", "--data-dir", dataDir],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}
