/**
 * Who may use the console (sessions: the one mechanism of web_session.ts, kept in memory): the
 * person at the machine, proven by a one-time link the agent
 * itself made (`agent open`, the first start, the demo). Redeeming a link sets a session cookie
 * (HttpOnly, SameSite=Strict, named after this agent's port so two agents on one machine never
 * overwrite each other's) whose id lives only in this process's memory: a restarted agent, or
 * another agent, knows none of them. Every state change also needs the session's CSRF token.
 * Integrator tokens (Bearer JWTs) never open the console.
 *
 * Lifetimes: a link is good once, for {@link LINK_TTL_MS}; a session lasts
 * {@link PAGE_SESSION_IDLE_MS} after its last request.
 * @module
 */
import type { Clock } from "../../clock.ts";
import { randomToken as random } from "../../web_page.ts";
import { MemoryShelf, PAGE_SESSION_IDLE_MS, PageSessions } from "../../web_session.ts";
import type { Flash } from "./layout.ts";

export { sameToken } from "../../web_page.ts";

/** How long a one-time link can be redeemed (10 minutes, in ms). */
export const LINK_TTL_MS = 10 * 60_000;
/** At most this many sessions and unredeemed links are kept (the oldest go first). */
const MAX_ENTRIES = 64;

/** A signed-in console session. */
export interface ConsoleSession {
  /** The cookie's value (32 random bytes, base64url). */
  readonly id: string;
  /** The token every POST must carry (form field `csrf` or header `X-CSRF-Token`). */
  readonly csrf: string;
  /** Epoch ms of the last request. */
  lastSeen: number;
  /** The message the next page shows once (set by an action before its redirect). */
  flash: Flash | null;
  /** A PKCS#12 file's password after "show the certificate", so that "add" need not ask it
   * again: in memory only, for this session, for 10 minutes (`until`, epoch ms); never
   * written or logged. */
  pkcs12?: { readonly file: string; readonly password: string; readonly until: number };
}

/** The one-time links and the sessions of one agent process. */
export class ConsoleSessions {
  readonly #clock: Clock;
  readonly #links = new Map<string, number>();
  readonly #sessions: PageSessions<ConsoleSession, ConsoleSession>;
  /** The cookie's name: `svc_console_<port>`. */
  readonly cookieName: () => string;

  /**
   * @param clock the agent's clock
   * @param port the agent's port (names the cookie)
   */
  constructor(clock: Clock, port: () => number) {
    this.#clock = clock;
    this.cookieName = () => `svc_console_${port()}`;
    // In memory, under the id itself: a restarted agent knows none.
    this.#sessions = new PageSessions(new MemoryShelf<ConsoleSession>(MAX_ENTRIES), clock, {
      idleMs: PAGE_SESSION_IDLE_MS,
      touchEveryMs: 0,
      keyOf: (id) => id,
    });
  }

  /**
   * A new one-time link path: `/console/open?code=<43 chars>`, good once for 10 minutes.
   * @returns the path (the caller prefixes the agent's origin)
   */
  newLink(): string {
    this.#pruneLinks();
    const code = random();
    this.#links.set(code, this.#clock.now() + LINK_TTL_MS);
    return `/console/open?code=${code}`;
  }

  /**
   * Redeem a link's code: the code is gone afterwards, whatever the outcome.
   * @param code the `code` query parameter
   * @returns the new session, or null for an unknown, used or expired code
   */
  async redeem(code: string): Promise<ConsoleSession | null> {
    const until = this.#links.get(code);
    this.#links.delete(code);
    if (until === undefined || until < this.#clock.now()) return null;
    const { session } = await this.#sessions.open((n) => ({
      id: n.id,
      csrf: n.csrf,
      lastSeen: n.now,
      flash: null,
    }));
    return session;
  }

  /**
   * The live session with this cookie value (its idle time restarts).
   * @param id the cookie's value, or undefined
   * @returns the session, or null
   */
  get(id: string | undefined): Promise<ConsoleSession | null> {
    return this.#sessions.current(id);
  }

  /** End a session (the console's "sign out"). */
  end(id: string): Promise<void> {
    return this.#sessions.end(id);
  }

  #pruneLinks(): void {
    const now = this.#clock.now();
    for (const [code, until] of this.#links) if (until < now) this.#links.delete(code);
    while (this.#links.size >= MAX_ENTRIES) this.#links.delete(this.#links.keys().next().value!); // non-null: non-empty, size ≥ MAX_ENTRIES
  }
}
