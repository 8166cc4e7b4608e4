/**
 * Who called this agent: one line per integrator and page origin with the modes seen and the
 * last call, kept 30 days, for the console's status page (docs/console.md § Status). Recorded after
 * a token verified, so a line always names a real integrator of the token service. Saved to
 * `callers.json` in the data folder (owner-only) at most every few seconds, so a restart
 * keeps it; a missing or damaged file starts an empty book and is rewritten.
 * @module
 */
import { z } from "zod";
import { KEY_MODES, type KeyMode } from "../../contract/mod.ts";

/** Lines older than this are dropped (30 days, in ms). */
export const CALLERS_KEEP_MS = 30 * 86_400_000;

const Caller = z.object({
  integrator: z.string(),
  integratorName: z.string(),
  /** The page's origin, or "local" for a program without one. */
  origin: z.string(),
  modes: z.array(z.enum(KEY_MODES)),
  /** ISO times of the first and last call (kept within 30 days). */
  firstAt: z.string(),
  lastAt: z.string(),
  calls: z.number().int().nonnegative(),
});
/** One integrator at one origin. */
export type Caller = z.infer<typeof Caller>;

/** Where the book is kept; absent in tests that do not need it. */
export interface CallersFile {
  read(): Promise<string | null>;
  write(text: string): Promise<void>;
}

/** The callers of the last 30 days. */
export class CallerBook {
  #lines = new Map<string, Caller>();
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #file: CallersFile | null;
  readonly #now: () => number;

  /**
   * @param now epoch ms
   * @param file where the book is saved (null: memory only)
   */
  constructor(now: () => number, file: CallersFile | null = null) {
    this.#now = now;
    this.#file = file;
  }

  /** Load the saved book (a damaged file is ignored and later overwritten). */
  async load(): Promise<void> {
    const text = await this.#file?.read().catch(() => null);
    if (!text) return;
    try {
      const list = z.array(Caller).parse(JSON.parse(text));
      for (const c of list) this.#lines.set(`${c.integrator}\n${c.origin}`, c);
    } catch { /* a damaged book starts empty */ }
  }

  /**
   * Note a verified call.
   * @param c the token's integrator id and name, the request's origin (or null), the mode
   */
  record(
    c: { integrator: string; integratorName: string; origin: string | null; mode: KeyMode },
  ): void {
    const origin = c.origin ?? "local";
    const key = `${c.integrator}\n${origin}`;
    const at = new Date(this.#now()).toISOString();
    const old = this.#lines.get(key);
    this.#lines.set(key, {
      integrator: c.integrator,
      integratorName: c.integratorName,
      origin,
      modes: old?.modes.includes(c.mode) ? old.modes : [...(old?.modes ?? []), c.mode].sort(),
      firstAt: old?.firstAt ?? at,
      lastAt: at,
      calls: (old?.calls ?? 0) + 1,
    });
    this.#dirty = true;
    if (this.#file && this.#timer === null) {
      const timer = setTimeout(() => this.flush(), 2_000);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /**
   * The callers of the last 30 days, most recent first.
   * @returns the lines
   */
  list(): Caller[] {
    const since = new Date(this.#now() - CALLERS_KEEP_MS).toISOString();
    for (const [k, c] of this.#lines) if (c.lastAt < since) this.#lines.delete(k);
    return [...this.#lines.values()].sort((a, b) => b.lastAt.localeCompare(a.lastAt));
  }

  /** Save now if anything changed (also called on shutdown). */
  async flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (!this.#dirty || !this.#file) return;
    this.#dirty = false;
    await this.#file.write(JSON.stringify(this.list(), null, 1) + "\n").catch(() => {
      this.#dirty = true;
    });
  }
}
