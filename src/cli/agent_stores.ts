/**
 * The agent's start, step 3 of 6 (docs/architecture.md § The start): what it keeps in its data
 * folder, opened — the folder made owner-only, agent.json (senders, allowed origins, the live
 * portal's settings), the portals, the journal (reconciled with them first), the callers book,
 * the console's link secret and the log the console shows. The modules load one mod.ts at a
 * time with a macrotask turn before each, so a phase-1 server keeps answering `/health`
 * (src/agent/start/, BENCHMARKS.md § Agent cold start).
 * @module
 */
import type { AgentDeps } from "../agent/mod.ts";
import type { CallerBook } from "../agent/http/mod.ts";
import type { Journal } from "../agent/filing/mod.ts";
import type { AgentFile } from "../agent/senders/mod.ts";
import type { Clock } from "../clock.ts";
import type { AgentConfig } from "../config.ts";
import { joinPath } from "../defaults.ts";
import { type Logger, LogRing, ringLogger } from "../log.ts";
import {
  ensurePrivateDirSync,
  preparePrivateDbFileSync,
  tightenFilesSync,
  writePrivateFile,
} from "../private_files.ts";
import { afterTurn } from "./process.ts";

/** The file in the data folder holding the secret `agent open` shows the running agent. */
export const CONSOLE_SECRET_FILE = "console.secret";

/** The agent's stores, open. */
export interface AgentStores {
  /** agent.json as read at the start. */
  readonly file: AgentFile;
  readonly journal: Journal;
  readonly portals: AgentDeps["portals"];
  /** The integrators' pages that called this agent (callers.json). */
  readonly callers: CallerBook;
  /** What `agent open` trades for a console link (in {@link CONSOLE_SECRET_FILE}). */
  readonly linkSecret: string;
  /** The last 1,000 log lines, for the console's log page. */
  readonly logs: LogRing;
  /** The process's logger, also keeping its lines in `logs` (redacted alike). */
  readonly log: Logger;
}

/**
 * Step 3: open the stores.
 * @param cfg the agent's configuration (data folder, test portal's delay)
 * @param processLog the process's logger
 * @param o the OS (paths) and the clock
 * @returns the stores (close the journal on shutdown, flush the callers book)
 * @throws Error for an invalid agent.json or an unreadable journal
 */
export async function openAgentStores(
  cfg: AgentConfig,
  processLog: Logger,
  o: { readonly os: string; readonly clock: Clock },
): Promise<AgentStores> {
  const logs = new LogRing(1000);
  const log = ringLogger(processLog, logs);
  // The heavy shared modules first, then the concept folders the stores live in.
  await afterTurn(() => import("zod"));
  await afterTurn(() => import("hono"));
  await afterTurn(() => import("../contract/mod.ts"));
  const { createTestPortal } = await afterTurn(() => import("../portal/test/mod.ts"));
  const { CallerBook } = await afterTurn(() => import("../agent/http/mod.ts"));
  const { Journal, reconcileJournal } = await afterTurn(() => import("../agent/filing/mod.ts"));
  const { readAgentFile } = await afterTurn(() => import("../agent/senders/mod.ts"));
  // Owner-only data: the folder 0700; agent.json, the journal and the TLS key 0600 (files of an
  // earlier install are tightened; the journal is created 0600 before SQLite opens it, and
  // SQLite gives its -wal/-shm files the same mode).
  const inData = (...p: string[]) => joinPath(o.os, cfg.dataDir, ...p);
  ensurePrivateDirSync(cfg.dataDir, o.os);
  tightenFilesSync([inData("agent.json"), inData("tls", "server.key")], o.os);
  const file = await readAgentFile(cfg.dataDir);
  preparePrivateDbFileSync(inData("journal.sqlite"), o.os);
  const journal = new Journal(inData("journal.sqlite"));
  const now = () => new Date(o.clock.now());
  const testPortal = createTestPortal({ now, submitDelayMs: cfg.testPortalDelayMs });
  // The live adapter (and its certificate parsing) loads only when agent.json configures it.
  const livePortal = file.portal
    ? (await import("../portal/live/mod.ts")).createLivePortal(file.portal, {
      clock: o.clock,
      log,
    })
    : undefined;
  const portals = { test: testPortal, ...(livePortal ? { live: livePortal } : {}) };
  await reconcileJournal(journal, portals, log, now);
  const callersPath = inData("callers.json");
  const callers = new CallerBook(() => o.clock.now(), {
    read: () => Deno.readTextFile(callersPath),
    write: (text) => writePrivateFile(callersPath, text),
  });
  await callers.load();
  // `agent open` (this user: it can read the data folder) trades this secret for a link.
  const linkSecret = crypto.getRandomValues(new Uint8Array(32)).toBase64({ alphabet: "base64url" });
  await writePrivateFile(inData(CONSOLE_SECRET_FILE), linkSecret);
  return { file, journal, portals, callers, linkSecret, logs, log };
}
