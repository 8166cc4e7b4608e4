/**
 * The one session mechanism of both programs' pages for people (docs/architecture.md § Page
 * frame and sessions): the agent's console keeps its sessions in the process's memory
 * ({@link MemoryShelf}), the token service's profile and desk in the database (a shelf over its
 * store). The rules are the same: a session id is 32 random bytes (the cookie's value), kept
 * under a key derived from it (the id itself in memory, its SHA-256 in a database, so a copy of
 * the database opens no session); every session has its own CSRF token; it lasts an idle time
 * after its last request (renewed on use, written at most once per `touchEveryMs`); every
 * sign-in makes a new id (no fixation); a sign-out deletes it. The CSRF token every change must
 * carry comes in the form field `csrf` or the header `X-CSRF-Token` ({@link csrfSent}).
 * @module
 */
import type { Context } from "hono";
import type { Clock } from "./clock.ts";
import { randomToken, sameToken } from "./web_page.ts";

/** How long a page session lives without a request, in both programs (8 hours, in ms). */
export const PAGE_SESSION_IDLE_MS = 8 * 3_600_000;

/** Where sessions are kept, by key: `Fresh` is what a sign-in stores, `Found` what a look-up
 * gives. */
export interface SessionShelf<Fresh, Found> {
  /** The session kept under `key`, or null. */
  get(key: string): Found | null | Promise<Found | null>;
  /** Keep a new session. */
  put(key: string, fresh: Fresh): void | Promise<void>;
  /** Note its last request. */
  touch(key: string, now: number): void | Promise<void>;
  /** Forget it. */
  drop(key: string): void | Promise<void>;
  /** When a found session's last request was (epoch ms). */
  lastSeen(found: Found): number;
  /** Forget what was idle since before `before` (epoch ms); a shelf that expires by itself
   * need not. */
  prune?(before: number): void;
}

/** The rules of one application's sessions. */
export interface SessionRules {
  /** How long a session lives without a request (ms). */
  readonly idleMs: number;
  /** Its last request is written at most this often (ms; 0: on every request). */
  readonly touchEveryMs: number;
  /** The key a session is kept under, from its id (the cookie's value). */
  readonly keyOf: (id: string) => string;
}

/** What a new session is made of: its id, the key it is kept under, its CSRF token, now. */
export interface NewSession {
  readonly id: string;
  readonly key: string;
  readonly csrf: string;
  readonly now: number;
}

/**
 * The sessions of one application, over a shelf.
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const clock = { now: () => t };
 * let t = 1_000;
 * const shelf = new MemoryShelf<{ csrf: string; lastSeen: number }>(8);
 * const sessions = new PageSessions(shelf, clock, { idleMs: 60_000, touchEveryMs: 0, keyOf: (id) => id });
 * const { id, session } = await sessions.open((n) => ({ csrf: n.csrf, lastSeen: n.now }));
 * equal((await sessions.current(id)) === session, true);
 * t += 61_000; // idle for longer than a minute: gone
 * equal(await sessions.current(id), null);
 * ```
 */
export class PageSessions<Fresh, Found> {
  readonly #shelf: SessionShelf<Fresh, Found>;
  readonly #clock: Clock;
  readonly #rules: SessionRules;

  /**
   * @param shelf where the sessions are kept
   * @param clock the program's clock
   * @param rules idle time, how often to write the last request, the key of an id
   */
  constructor(shelf: SessionShelf<Fresh, Found>, clock: Clock, rules: SessionRules) {
    this.#shelf = shelf;
    this.#clock = clock;
    this.#rules = rules;
  }

  /**
   * Open a new session: a new random id and CSRF token.
   * @param make what is kept, from the new id, key, CSRF token and time
   * @returns the id (the cookie's value) and what was kept
   */
  async open(make: (n: NewSession) => Fresh): Promise<{ id: string; session: Fresh }> {
    const now = this.#clock.now();
    this.#shelf.prune?.(now - this.#rules.idleMs);
    const id = randomToken();
    const key = this.#rules.keyOf(id);
    const session = make({ id, key, csrf: randomToken(), now });
    await this.#shelf.put(key, session);
    return { id, session };
  }

  /**
   * The live session with this id (its idle time restarts); an idle one is forgotten.
   * @param id the cookie's value, or undefined
   * @returns the session, or null
   */
  async current(id: string | undefined): Promise<Found | null> {
    if (!id || id.length > 64) return null;
    const key = this.#rules.keyOf(id);
    const found = await this.#shelf.get(key);
    if (!found) return null;
    const now = this.#clock.now();
    const idle = now - this.#shelf.lastSeen(found);
    if (idle > this.#rules.idleMs) {
      await this.#shelf.drop(key);
      return null;
    }
    if (idle > this.#rules.touchEveryMs) await this.#shelf.touch(key, now);
    return found;
  }

  /**
   * End a session (a sign-out, or the browser's old session at a new sign-in).
   * @param id the cookie's value, or undefined (nothing to end)
   */
  async end(id: string | undefined): Promise<void> {
    if (id) await this.#shelf.drop(this.#rules.keyOf(id));
  }
}

/**
 * Sessions in this process's memory, at most `max` of them (the oldest go first).
 */
export class MemoryShelf<S extends { lastSeen: number }> implements SessionShelf<S, S> {
  readonly #max: number;
  readonly #map = new Map<string, S>();

  /** @param max how many sessions are kept at most */
  constructor(max: number) {
    this.#max = max;
  }
  /** @inheritdoc */
  get(key: string): S | null {
    return this.#map.get(key) ?? null;
  }
  /** @inheritdoc */
  put(key: string, s: S): void {
    while (this.#map.size >= this.#max) this.#map.delete(this.#map.keys().next().value!); // non-null: non-empty, size ≥ max ≥ 1
    this.#map.set(key, s);
  }
  /** @inheritdoc */
  touch(key: string, now: number): void {
    const s = this.#map.get(key);
    if (s) s.lastSeen = now;
  }
  /** @inheritdoc */
  drop(key: string): void {
    this.#map.delete(key);
  }
  /** @inheritdoc */
  lastSeen(s: S): number {
    return s.lastSeen;
  }
  /** @inheritdoc */
  prune(before: number): void {
    for (const [k, s] of this.#map) if (s.lastSeen < before) this.#map.delete(k);
  }
}

/**
 * The CSRF token a request sent: the `X-CSRF-Token` header, else the form's `csrf` field (a
 * body that cannot be read sends none).
 * @param c the request's context
 * @returns the token, or undefined
 */
export async function csrfSent(c: Context): Promise<string | undefined> {
  const header = c.req.header("x-csrf-token");
  if (header !== undefined) return header;
  const body = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  return typeof body.csrf === "string" ? body.csrf : undefined;
}

/**
 * Whether a change carries its session's CSRF token ({@link csrfSent}), compared in constant time.
 * @param c the request's context
 * @param csrf the session's token
 * @returns true when it was sent and matches
 */
export async function csrfValid(c: Context, csrf: string): Promise<boolean> {
  const sent = await csrfSent(c);
  return !!sent && sameToken(sent, csrf);
}
