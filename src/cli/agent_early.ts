/**
 * Phase 1 of `agent` (docs/running.md § Start in two phases): before commander, zod, Hono or
 * Node compatibility load, take the instance lock, listen and answer `GET /health`. main.ts
 * imports this module statically and calls {@link agentPhase1} with the raw command line; the
 * commander program (src/cli/program.ts) loads afterwards and `agent` takes over what this left
 * running. Imports only src/agent/start/mod.ts and other tiny modules without npm packages.
 * @module
 */
import {
  createEarlyHandler,
  earlyAgentFlags,
  type EarlyHandler,
  earlySettings,
  type InstanceLock,
  phase2Start,
} from "../agent/start/mod.ts";
import type { Clock } from "../clock.ts";
import { DEFAULT_AGENT_PORT } from "../defaults.ts";
import { VERSION } from "../version.ts";
import { lockAgent } from "./agent_lock.ts";
import { resolveDataDir } from "./data_dir.ts";
import { addSignal, serveLoopback, SIGNALS } from "./process.ts";

/** A server already listening (phase 1), to which phase 2 hands the full app. */
export interface EarlyServer {
  readonly server: Deno.HttpServer<Deno.NetAddr>;
  readonly handler: EarlyHandler;
}

/** What phase 1 of the agent's start left running. */
export interface Phase1 {
  /** performance.now() when phase 1 began. */
  readonly t0: number;
  /** The port and data directory phase 1 used (cross-checked against the zod config). */
  readonly settings: { readonly port: number; readonly dataDir: string };
  /** The command line phase 1 read (`--port`, `--data-dir`, `--token-service`), as given. */
  readonly flags: {
    readonly port?: string;
    readonly dataDir?: string;
    readonly tokenService?: string;
  };
  readonly lock: InstanceLock;
  readonly early: EarlyServer;
  /** The SIGINT/SIGTERM handler while phase 2 runs (removed once the agent is ready). */
  readonly stopEarly: () => Promise<void>;
}

/** The outside world of phase 1 (main.ts passes the real one). */
export interface EarlyEnv {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly os: string;
  readonly clock: Clock;
  /** Prints one line on standard output. */
  readonly print: (line: string) => void;
  /** Ends the process (an agent already runs, or Ctrl+C before phase 2 is done). */
  readonly exit: (code: number) => never;
  /** Called when this data folder's agent already runs, before the exit (main.ts: open its
   * console, unless started by a `svc-agent://start` link). */
  readonly alreadyRunning?: (dataDir: string) => Promise<void>;
}

/**
 * Phase 1 of `agent`, for the plain command line only (`earlyAgentFlags`: `--port`,
 * `--data-dir`, `--token-service`); anything else (a subcommand, `--help`, another flag, an
 * invalid port) returns null and the agent starts in one phase after commander has parsed it.
 * @param args the arguments after `agent`
 * @param e environment, OS, clock, output, exit
 * @returns what is running, or null
 * @throws Error when no port of the range can be bound or the lock cannot be written (the lock
 *   is released first)
 */
export async function agentPhase1(args: readonly string[], e: EarlyEnv): Promise<Phase1 | null> {
  const t0 = performance.now();
  const flags = earlyAgentFlags(args);
  if (!flags) return null;
  const dataDir = resolveDataDir(flags.dataDir, e.env, e.os);
  const settings = earlySettings({ port: flags.port, dataDir }, e.env, {
    port: DEFAULT_AGENT_PORT,
    dataDir,
  });
  if (!settings) return null;
  const lock = await lockAgent(settings.dataDir, e) ?? e.exit(0);
  let port = 0;
  const handler = createEarlyHandler(VERSION, () => [port]);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = serveLoopback(handler.fetch, settings.port);
    port = server.addr.port;
  } catch (err) {
    await lock.release(); // every port of the range taken
    throw err;
  }
  e.print(`Agent: http://127.0.0.1:${port}`);
  // The port goes into the lock after the banner: a second start that reads the lock meanwhile
  // sees port 0 and waits for it (src/agent/start/instance.ts).
  try {
    await lock.update(port);
  } catch (err) {
    await server.shutdown();
    await lock.release(); // the lock file is not writable
    throw err;
  }
  // Ctrl+C / SIGTERM before phase 2 is done: nothing runs yet; free the lock and exit 0.
  const stopEarly = async () => {
    handler.failed();
    await lock.release();
    e.exit(0);
  };
  for (const sig of SIGNALS) addSignal(sig, stopEarly);
  await phase2Start(handler);
  return { t0, settings, flags, lock, early: { server, handler }, stopEarly };
}
