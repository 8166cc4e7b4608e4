/**
 * One update at a time per data folder: `<data>/updates/update.lock` holds `{pid, startedAt}` of
 * the process that runs it — `agent update` while it downloads and unpacks, then the swap it
 * hands over to. A lock whose process is gone, or older than 15 minutes, is stale and taken over.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import { joinPath } from "../../defaults.ts";

/** A held update lock. */
export interface UpdateLock {
  /** Name another process (the swap) as the holder. */
  handOver(pid: number): Promise<void>;
  /** Remove the lock if `pid` (default: the one that took it) still holds it. */
  release(pid?: number): Promise<void>;
}

/** Side effects of {@link acquireUpdateLock}. */
export interface UpdateLockDeps {
  readonly pid: number;
  readonly isAlive: (pid: number) => Promise<boolean>;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

const STALE_MS = 15 * 60_000;

/**
 * Take the update lock.
 * @param os Deno.build.os
 * @param updates the updates folder (created)
 * @param d this process's pid, liveness check, clock
 * @returns the lock
 * @throws AppError UPDATE_IN_PROGRESS when another live update holds it (`details.pid`);
 *   UPDATE_DISK_FULL is not special here: a full disk fails the download right after
 */
export async function acquireUpdateLock(
  os: string,
  updates: string,
  d: UpdateLockDeps,
): Promise<UpdateLock> {
  await Deno.mkdir(updates, { recursive: true, mode: 0o700 });
  const path = joinPath(os, updates, "update.lock");
  const write = (pid: number, createNew: boolean) =>
    Deno.writeTextFile(
      path,
      JSON.stringify({ pid, startedAt: new Date(d.now()).toISOString() }) + "\n",
      { createNew, mode: 0o600 },
    );
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await write(d.pid, true);
      return {
        handOver: (pid) => write(pid, false),
        release: async (pid = d.pid) => {
          const held = await holder(path);
          if (held?.pid === pid) await Deno.remove(path).catch(() => {});
        },
      };
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    const held = await holder(path);
    const fresh = held && d.now() - held.startedAt < STALE_MS && await d.isAlive(held.pid);
    if (fresh) {
      throw new AppError(
        "UPDATE_IN_PROGRESS",
        `Another update of this agent is running (pid ${held.pid}); wait for it to finish`,
        { pid: held.pid },
      );
    }
    await Deno.remove(path).catch(() => {});
  }
  throw new AppError("UPDATE_IN_PROGRESS", `Cannot take the update lock ${path}`);
}

async function holder(path: string): Promise<{ pid: number; startedAt: number } | null> {
  try {
    const j = JSON.parse(await Deno.readTextFile(path));
    const at = Date.parse(String(j?.startedAt));
    return typeof j?.pid === "number" ? { pid: j.pid, startedAt: Number.isNaN(at) ? 0 : at } : null;
  } catch {
    return null;
  }
}
