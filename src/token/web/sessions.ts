/**
 * Who is signed in to the profile or the desk (docs/token-service.md § The profile): one-time
 * e-mail links and server-side sessions in the store, shared by every instance on one database
 * (the sessions: the one mechanism of web_session.ts, the console's too, over the store).
 * A session id is 32 random bytes in an `HttpOnly`, `SameSite=Strict` cookie (`Secure` when the
 * service's public URL is https); the store keeps only its SHA-256, so a copy of the database
 * opens no session. A session lasts `PAGE_SESSION_IDLE_MS` (8 hours, src/web_session.ts) after its
 * last request (renewed on use, written at most once a minute); every sign-in makes a new id (no
 * fixation); a sign-out deletes it for every instance. No passwords anywhere.
 * @module
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomToken } from "../../web_page.ts";
import { PAGE_SESSION_IDLE_MS, PageSessions, type SessionShelf } from "../../web_session.ts";
import type { Clock } from "../../clock.ts";
import { hashSecret } from "../access/mod.ts";
import { deviceOf } from "./device.ts";
import type { LinkPurpose, TokenStore, WebLink, WebSession, WebUser } from "../store/mod.ts";

/** How long a one-time link can be used (30 minutes, in ms). */
export const LINK_TTL_MS = 30 * 60_000;
/** How long a passkey ceremony's challenge can be answered (5 minutes, in ms). */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** A session's last request is written at most this often (ms). */
const TOUCH_EVERY_MS = 60_000;

/** A signed-in request's session and person. */
export interface SignedIn {
  readonly session: WebSession;
  readonly user: WebUser;
}

/** Links and sessions of one web application (the profile, or the desk). */
export class WebAuth {
  readonly #store: TokenStore;
  readonly #clock: Clock;
  /** The session cookie's name. */
  readonly cookie: string;
  /** The cookie's path (`/profile` or `/admin`). */
  readonly path: string;
  readonly #secure: () => boolean;
  readonly #sessions: PageSessions<WebSession, SignedIn>;

  /**
   * @param store the token store
   * @param clock the clock
   * @param cookie the cookie's name
   * @param path the application's path
   * @param secure whether the cookie is marked `Secure` (the public URL is https)
   */
  constructor(
    store: TokenStore,
    clock: Clock,
    cookie: string,
    path: string,
    secure: () => boolean,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.cookie = cookie;
    this.path = path;
    this.#secure = secure;
    // In the store, under the id's SHA-256 (a copy of the database opens no session).
    this.#sessions = new PageSessions(storeShelf(store), clock, {
      idleMs: PAGE_SESSION_IDLE_MS,
      touchEveryMs: TOUCH_EVERY_MS,
      keyOf: hashSecret,
    });
  }

  /**
   * A new one-time link's code (its hash stored, good once for {@link LINK_TTL_MS}).
   * @param purpose what it is for
   * @param email where it is sent (lower-case)
   * @param payload what it carries
   * @returns the code (43 characters) for the mail's URL
   */
  async newLink(
    purpose: LinkPurpose,
    email: string,
    payload: Record<string, string> = {},
  ): Promise<string> {
    const code = randomToken();
    const now = this.#clock.now();
    await this.#store.createLink({
      codeHash: hashSecret(code),
      purpose,
      email,
      payload,
      createdAt: now,
      expiresAt: now + LINK_TTL_MS,
      usedAt: null,
    });
    return code;
  }

  /**
   * Keep a passkey ceremony's challenge (its hash) until it is answered, at most
   * {@link CHALLENGE_TTL_MS}; any instance can check the answer.
   * @param purpose registration or sign-in
   * @param challenge the challenge as the options carry it (base64url)
   * @param userId the person registering ("" for a sign-in)
   */
  async keepChallenge(
    purpose: "passkey-register" | "passkey-signin",
    challenge: string,
    userId: string,
  ): Promise<void> {
    const now = this.#clock.now();
    await this.#store.createLink({
      codeHash: hashSecret(challenge),
      purpose,
      email: userId,
      payload: {},
      createdAt: now,
      expiresAt: now + CHALLENGE_TTL_MS,
      usedAt: null,
    });
  }

  /**
   * Use a challenge once.
   * @returns true when it was kept for this purpose (and person) and not used or expired
   */
  async takeChallenge(
    purpose: "passkey-register" | "passkey-signin",
    challenge: string,
    userId: string,
  ): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(challenge)) return false;
    const l = await this.#store.takeLink(hashSecret(challenge), this.#clock.now());
    return l !== null && l.purpose === purpose && l.email === userId;
  }

  /**
   * Use a link's code: gone afterwards, whatever the outcome.
   * @returns the link, or null for an unknown, used or expired code
   */
  takeLink(code: string): Promise<WebLink | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(code)) return Promise.resolve(null);
    return this.#store.takeLink(hashSecret(code), this.#clock.now());
  }

  /**
   * Sign a person in: end the session the browser had (if any), make a new one, set its cookie.
   * @param c the request's context
   * @param user the person
   */
  async signIn(c: Context, user: WebUser): Promise<void> {
    await this.#sessions.end(getCookie(c, this.cookie));
    const { id } = await this.#sessions.open((n) => ({
      idHash: n.key,
      userId: user.id,
      csrf: n.csrf,
      createdAt: n.now,
      lastSeen: n.now,
      device: deviceOf(c.req.header("user-agent")),
    }));
    setCookie(c, this.cookie, id, {
      httpOnly: true,
      sameSite: "Strict",
      secure: this.#secure(),
      path: this.path,
    });
  }

  /**
   * The request's live session (its idle time restarts).
   * @param c the request's context
   * @returns the session and person, or null
   */
  current(c: Context): Promise<SignedIn | null> {
    return this.#sessions.current(getCookie(c, this.cookie));
  }

  /** End the request's session everywhere and clear its cookie. */
  async signOut(c: Context): Promise<void> {
    await this.#sessions.end(getCookie(c, this.cookie));
    deleteCookie(c, this.cookie, { path: this.path, secure: this.#secure() });
  }
}

/** The store as the sessions' shelf (web_session.ts), keyed by the id's SHA-256. */
const storeShelf = (store: TokenStore): SessionShelf<WebSession, SignedIn> => ({
  get: (idHash) => store.getSession(idHash),
  put: (_idHash, fresh) => store.createSession(fresh),
  touch: (idHash, now) => store.touchSession(idHash, now),
  drop: (idHash) => store.deleteSession(idHash),
  lastSeen: (found) => found.session.lastSeen,
});
