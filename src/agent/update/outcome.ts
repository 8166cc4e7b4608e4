/**
 * What the last update did, kept in `<data>/updates/last.json` for `agent update` (which waits for
 * it) and later for the console's Status page; and the swap's log, `<data>/updates/update.log`
 * (JSON lines, no secrets: versions, folders, process ids, health answers).
 * @module
 */
import { jsonLogger, type Logger } from "../../log.ts";
import { joinPath } from "../../defaults.ts";
import { writePrivateFile } from "../../private_files.ts";

/** How an update ended. */
export type UpdateOutcomeKind =
  /** The new version answers /health. */
  | "updated"
  /** The new version did not answer in time; the previous one is back (and running if it ran). */
  | "rolled_back"
  /** The swap failed and the previous version could not be put back or restarted. */
  | "failed";

/** The content of `last.json`. */
export interface UpdateOutcome {
  /** The update's id (`agent update` matches it with the swap it started). */
  readonly id: string;
  readonly outcome: UpdateOutcomeKind;
  readonly from: string;
  readonly to: string;
  /** ISO-8601 time the swap ended. */
  readonly at: string;
  /** The running agent's URL afterwards, or null (none runs). */
  readonly agentUrl: string | null;
  /** Why it was rolled back or failed (one sentence), else null. */
  readonly reason: string | null;
}

/**
 * The path of `last.json`.
 * @param os Deno.build.os
 * @param updates the updates folder
 * @returns the path
 */
export const lastOutcomePath = (os: string, updates: string): string =>
  joinPath(os, updates, "last.json");

/**
 * Write the outcome (atomically: a temporary file renamed over the old one).
 * @param path `last.json`
 * @param o the outcome
 * @returns when written
 */
export async function writeOutcome(path: string, o: UpdateOutcome): Promise<void> {
  await writePrivateFile(path, JSON.stringify(o, null, 2) + "\n");
}

/**
 * Read the last outcome.
 * @param path `last.json`
 * @returns it, or null when there is none (or it is unreadable)
 */
export async function readOutcome(path: string): Promise<UpdateOutcome | null> {
  try {
    const j = JSON.parse(await Deno.readTextFile(path));
    return typeof j?.id === "string" && typeof j.outcome === "string" ? j as UpdateOutcome : null;
  } catch {
    return null;
  }
}

/**
 * A logger appending JSON lines to a file (the swap has no terminal), and also to `echo` when
 * given.
 * @param path the log file (created 0600)
 * @param echo a second sink (standard error of `agent update-swap` run by hand)
 * @returns the logger
 */
export function fileLogger(path: string, echo?: (line: string) => void): Logger {
  return jsonLogger((line) => {
    try {
      Deno.writeTextFileSync(path, line + "\n", { append: true, create: true, mode: 0o600 });
    } catch { /* the log is best effort */ }
    echo?.(line);
  }, "info");
}
