/**
 * End-to-end harness: starts the real programs (`main.ts token-service` and `main.ts agent`) as
 * subprocesses on loopback port 0, creates keys through the CLI, and confirms sender dialogs
 * through the confirmation page's own endpoints, as a browser would (GET the page, read the
 * nonce, POST the form from the agent's origin).
 */
import { TextLineStream } from "./lines.ts";
import type { KeyMode } from "../../src/contract/mod.ts";

/** main.ts of this checkout. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A running program with its stderr log lines. */
export interface Proc {
  readonly child: Deno.ChildProcess;
  readonly url: string;
  readonly logs: Record<string, unknown>[];
  /** Lines printed on stdout after the first banner line. */
  readonly stdout: string[];
  /** Resolves with the next log line matching `msg`. */
  waitLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * Follow a process's JSON log lines (its stderr) as they come; a line that is not JSON is kept as
 * `{msg: "raw", line}`.
 * @returns the lines so far, and `waitLog(msg, timeoutMs = 10 s)`: the first line with that
 *   message not taken yet (now or when it comes), taken; rejects at the time-out
 */
export function followLog(
  stderr: ReadableStream<Uint8Array<ArrayBuffer>>,
): Pick<Proc, "logs" | "waitLog"> {
  const logs: Record<string, unknown>[] = [];
  const waiters: { msg: string; resolve: (l: Record<string, unknown>) => void }[] = [];
  (async () => {
    for await (
      const line of stderr.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream())
    ) {
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(line);
      } catch {
        j = { msg: "raw", line };
      }
      logs.push(j);
      for (const w of [...waiters]) {
        if (j.msg === w.msg) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(j);
        }
      }
    }
  })().catch(() => {});
  return {
    logs,
    waitLog(msg, timeoutMs = 10_000) {
      const seen = logs.find((l) => l.msg === msg && !(l as { _taken?: boolean })._taken);
      if (seen) {
        (seen as { _taken?: boolean })._taken = true;
        return Promise.resolve(seen);
      }
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`timed out waiting for log "${msg}"`)),
          timeoutMs,
        );
        waiters.push({
          msg,
          resolve: (l) => {
            clearTimeout(t);
            (l as { _taken?: boolean })._taken = true;
            resolve(l);
          },
        });
      });
    },
  };
}

async function start(args: string[], env: Record<string, string>, banner: RegExp): Promise<Proc> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { logs, waitLog } = followLog(child.stderr);
  const out = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream());
  const reader = out.getReader();
  let url = "";
  const stdout: string[] = [];
  const deadline = Date.now() + 30_000;
  while (!url && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args[0]} exited early: ${JSON.stringify(logs)}`);
    stdout.push(value);
    const m = banner.exec(value);
    // `Token service: <public URL> (listening on <address>)`: the instance is where it listens.
    if (m) url = m[2] ?? m[1]!;
  }
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout.push(value);
    }
  })().catch(() => {});
  return {
    child,
    url,
    logs,
    stdout,
    waitLog,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

/** Start the token service on a free port (or on `port`). */
export function startTokenService(
  dataDir: string,
  env: Record<string, string> = {},
  port = 0,
): Promise<Proc> {
  return start(
    ["token-service", "--port", String(port), "--data-dir", dataDir],
    env,
    /^Token service: (\S+)(?: \(listening on (\S+)\))?/,
  );
}

/** Start the agent on a free port (or on `port` with its fallback range), pointed at a token
 * service. */
export function startAgent(
  dataDir: string,
  tokenServiceUrl: string,
  env: Record<string, string> = {},
  port = 0,
): Promise<Proc> {
  return start(
    ["agent", "--port", String(port), "--data-dir", dataDir, "--token-service", tokenServiceUrl],
    { SVC_OPEN_BROWSER: "never", ...env },
    // Printed once the agent has loaded and reconciled its journal ("Agent:" comes at listen).
    /^Agent ready: (\S+)/,
  );
}

/** Create a key with the CLI; returns the secret. */
export async function createKeyCli(
  dataDir: string,
  mode: KeyMode,
  eiks: string[] = [],
): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "keys",
      "create",
      "--mode",
      mode,
      "--data-dir",
      dataDir,
      ...eiks.flatMap((e) => ["--eik", e]),
    ],
    env: { NO_COLOR: "1" },
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** Issue a token over HTTP. */
export async function issueToken(
  tokenUrl: string,
  key: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await fetch(`${tokenUrl}/api/v1/tokens/issue`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const j = await res.json();
  if (res.status !== 200) throw new Error(`issue ${res.status}: ${JSON.stringify(j)}`);
  return j.token;
}

/**
 * Act on the next confirmation page as a browser would.
 * @param agent the agent
 * @param decision confirm or decline
 * @param senderId the sender to choose (default: the preselected one)
 * @param requests wait until this many requests wait on the page first (requests of a batch
 *   that arrive after its confirmation and ask beyond it open a page of their own)
 */
export async function decideNext(
  agent: Proc,
  decision: "confirm" | "decline",
  senderId?: string,
  requests?: number,
) {
  const log = await agent.waitLog("confirmation page opened");
  const pageUrl = String(log.url);
  for (let i = 0; requests !== undefined && i < 400; i++) {
    const state = await (await fetch(`${pageUrl}/state`)).json();
    if (state.requests >= requests) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  // Like a user: when a request joined after the page was read, the agent refuses the decision
  // (CONFIRMATION_CHANGED) and sends the browser back to the page, which now lists it: read the
  // page again and decide again.
  for (let attempt = 0; attempt < 20; attempt++) {
    const page = await fetch(pageUrl);
    const htmlText = await page.text();
    if (page.status !== 200) throw new Error(`page ${page.status}: ${htmlText}`);
    const nonce = /name="nonce" value="([^"]+)"/.exec(htmlText)![1]!;
    const checked = /name="senderId" value="([^"]+)" checked/.exec(htmlText)?.[1];
    const form = new URLSearchParams({
      seen: /name="seen" id="seen" value="(\d+)"/.exec(htmlText)![1]!,
      nonce,
      decision,
      senderId: senderId ?? checked ?? "",
    });
    const res = await fetch(`${pageUrl}/decision`, {
      method: "POST",
      redirect: "manual",
      headers: {
        origin: new URL(pageUrl).origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form,
    });
    await res.body?.cancel();
    if (res.status === 303) continue;
    if (res.status !== 200) throw new Error(`decision ${res.status}`);
    return { pageUrl, html: htmlText };
  }
  throw new Error(`the confirmation page ${pageUrl} kept changing`);
}

/** A running `demo` (`deno task start`) and what it printed. */
export interface Demo {
  readonly tokenServiceUrl: string;
  readonly agentUrl: string;
  /** The printed lines `Label: value` (Data folder, Console …, Test key). */
  readonly printed: Record<string, string>;
  /** Every line printed so far (the banner, then e.g. the outbox's `Mail to …` lines). */
  readonly lines: string[];
  /** Its JSON log lines (stderr): the agent's "confirmation page opened", … */
  readonly log: Pick<Proc, "logs" | "waitLog">;
  /** Stop it with a signal (SIGTERM, or SIGINT as Ctrl+C); resolves with its exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

/**
 * Start `main.ts demo --port 0` and read its banner up to the test key.
 * @param o `dataDir` (default: the demo's own temporary folder) and the environment
 */
export async function startDemo(
  o: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<Demo> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "demo",
      "--port",
      "0",
      ...(o.dataDir ? ["--data-dir", o.dataDir] : []),
    ],
    env: { NO_COLOR: "1", SVC_OPEN_BROWSER: "never", ...o.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const log = followLog(child.stderr);
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  ).getReader();
  const seen: Record<string, string> = {};
  const all: string[] = [];
  while (!seen["Test key"]) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`demo exited early: ${JSON.stringify(seen)}`);
    all.push(value);
    const m = /^([A-Z][^:]*): (\S+)/.exec(value);
    if (m) seen[m[1]!] = m[2]!;
  }
  (async () => {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      all.push(value);
    }
  })().catch(() => {});
  return {
    tokenServiceUrl: seen["Token service"]!,
    agentUrl: seen.Agent!,
    printed: seen,
    lines: all,
    log,
    async stop(signal: Deno.Signal = "SIGTERM") {
      child.kill(signal);
      return (await child.status).code;
    },
  };
}

/**
 * A TCP port free on 127.0.0.1 right now, for a program that needs one named in advance
 * (nginx, PostgreSQL). It is drawn at random from 20000 up to the kernel's ephemeral range,
 * because every port-0 bind and every outgoing connection of the parallel tests draws from that
 * range: a port taken from it could be handed to another test before the program binds it.
 * @returns the port
 */
export function freePort(): number {
  let low = 32768; // Linux's default start of ip_local_port_range
  try {
    low = Number(Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range").split(/\s+/)[0]);
  } catch { /* not Linux: the default */ }
  for (let i = 0; i < 50 && low > 21000; i++) {
    const port = 20000 + Math.floor(Math.random() * (low - 20000));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch { /* taken: another */ }
  }
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
