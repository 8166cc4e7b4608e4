/**
 * Injected time source. Production uses {@link systemClock}; tests use {@link FakeClock} to walk
 * 5-second token lifetimes, 10-minute batch memories and 600-second picker time-outs.
 * @module
 */

/** A clock: `now()` in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  #t: number;
  /** @param start epoch ms (default 2026-11-01T08:00:00Z) */
  constructor(start = Date.UTC(2026, 10, 1, 8, 0, 0)) {
    this.#t = start;
  }
  /** @returns the current fake time, epoch ms */
  now(): number {
    return this.#t;
  }
  /** Move forward. @param ms milliseconds */
  advance(ms: number): void {
    this.#t += ms;
  }
  /** Jump to a time. @param t epoch ms */
  set(t: number): void {
    this.#t = t;
  }
}
