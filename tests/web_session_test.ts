/**
 * The one session mechanism of both programs' pages (src/web_session.ts; docs/architecture.md
 * § Page frame and sessions): idle expiry, how often the last request is written, the memory
 * shelf's cap, sign-out, and the CSRF check.
 */
import { equal, notEqual } from "node:assert/strict";
import { Hono } from "hono";
import {
  csrfValid,
  MemoryShelf,
  PAGE_SESSION_IDLE_MS,
  PageSessions,
  type SessionShelf,
} from "../src/web_session.ts";

interface S {
  csrf: string;
  lastSeen: number;
}

/** A shelf that counts its writes (what a database shelf would send). */
class CountingShelf implements SessionShelf<S, S> {
  readonly inner = new MemoryShelf<S>(8);
  touches = 0;
  get = (k: string) => this.inner.get(k);
  put = (k: string, s: S) => this.inner.put(k, s);
  touch = (k: string, now: number) => {
    this.touches++;
    this.inner.touch(k, now);
  };
  drop = (k: string) => this.inner.drop(k);
  lastSeen = (s: S) => s.lastSeen;
}

const make = (n: { csrf: string; now: number }): S => ({ csrf: n.csrf, lastSeen: n.now });

Deno.test("page sessions: a new id and CSRF token each time, gone after the idle time", async () => {
  let now = 1_000_000;
  const clock = { now: () => now };
  const sessions = new PageSessions(new MemoryShelf<S>(8), clock, {
    idleMs: PAGE_SESSION_IDLE_MS,
    touchEveryMs: 0,
    keyOf: (id) => id,
  });
  const a = await sessions.open(make);
  const b = await sessions.open(make);
  notEqual(a.id, b.id);
  notEqual(a.session.csrf, b.session.csrf);
  equal(a.id.length, 43);
  now += PAGE_SESSION_IDLE_MS - 1; // used just in time: the idle time restarts
  equal(await sessions.current(a.id), a.session);
  now += PAGE_SESSION_IDLE_MS - 1;
  equal(await sessions.current(a.id), a.session);
  equal(await sessions.current(b.id), null, "b was idle for longer than the idle time");
  await sessions.end(a.id);
  equal(await sessions.current(a.id), null, "ended");
  equal(await sessions.current(undefined), null);
  equal(await sessions.current("x".repeat(65)), null, "an over-long cookie is no session");
});

Deno.test("page sessions: kept under the key of the id, written at most once per touchEveryMs", async () => {
  let now = 0;
  const shelf = new CountingShelf();
  const sessions = new PageSessions(shelf, { now: () => now }, {
    idleMs: 3_600_000,
    touchEveryMs: 60_000,
    keyOf: (id) => `hash:${id}`,
  });
  const { id } = await sessions.open(make);
  equal(shelf.inner.get(id), null, "not under the id itself");
  notEqual(shelf.inner.get(`hash:${id}`), null);
  now = 30_000;
  await sessions.current(id);
  equal(shelf.touches, 0, "half a minute later: not written");
  now = 61_000;
  await sessions.current(id);
  equal(shelf.touches, 1, "a minute later: written");
  now = 62_000;
  await sessions.current(id);
  equal(shelf.touches, 1);
});

Deno.test("memory shelf: at most its cap, the oldest go first", async () => {
  const sessions = new PageSessions(new MemoryShelf<S>(2), { now: () => 5 }, {
    idleMs: 1_000,
    touchEveryMs: 0,
    keyOf: (id) => id,
  });
  const first = await sessions.open(make);
  const second = await sessions.open(make);
  const third = await sessions.open(make);
  equal(await sessions.current(first.id), null);
  notEqual(await sessions.current(second.id), null);
  notEqual(await sessions.current(third.id), null);
});

Deno.test("csrfValid: the header or the form field, compared with the session's", async () => {
  const app = new Hono();
  app.post("/", async (c) => c.text(String(await csrfValid(c, "token-1"))));
  const ask = async (init: RequestInit) =>
    await (await app.request("/", { method: "POST", ...init })).text();
  equal(await ask({ headers: { "x-csrf-token": "token-1" } }), "true");
  equal(await ask({ headers: { "x-csrf-token": "token-2" } }), "false");
  equal(await ask({ body: new URLSearchParams({ csrf: "token-1" }) }), "true");
  equal(await ask({ body: new URLSearchParams({ csrf: "token-1x" }) }), "false");
  equal(await ask({}), "false", "none sent");
  equal(
    await ask({ headers: { "content-type": "multipart/form-data; boundary=x" }, body: "broken" }),
    "false",
    "an unreadable body sends none",
  );
});
